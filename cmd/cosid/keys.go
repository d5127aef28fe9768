package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/storekit"
)

// keysPage is how many keys cosid keys reads at a time: a store of millions streams.
const keysPage = 1000

func keysCommand() *cobra.Command {
	var (
		f       adminFlags
		prefix  string
		asJSON  bool
		reindex bool
	)
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "List the store's keys with their next value and whether they are sealed",
		Long: `List the keys of the store, in byte order, with the value each key's next
reservation starts at and whether it is sealed. The store is read a page at a time,
so a store of millions of period keys streams. With --json each key is a JSON object
on a line of its own.

A Redis store lists its keys from an index that it keeps itself; --reindex first adds
to it the keys that a version of the store without the index wrote (a SCAN of the
server, which takes a while on millions of keys).`,
		Example: `  cosid keys
  cosid keys --prefix app/bill/
  cosid keys --dsn 'postgres://app@db:5432/app' --json
  cosid keys --store redis --reindex`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := storekit.CheckKeys(prefix, "", keysPage); err != nil {
				return fmt.Errorf("--prefix: %w", err)
			}
			a, cfg, err := f.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			if reindex {
				name, _ := f.storeName(cfg)
				if err := rebuildIndex(cmd, a, name, cfg.Stores[name].Type); err != nil {
					return err
				}
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			err = listKeys(w, store.AllKeys(cmd.Context(), a, prefix, keysPage), asJSON)
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", "", "list only the keys that start with it")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object a line: {\"key\":…,\"next\":…,\"sealed\":…}")
	cmd.Flags().BoolVar(&reindex, "reindex", false, "first rebuild the store's key index (Redis: keys written by a version without one)")
	f.register(cmd)
	f.access = readOnly
	return cmd
}

// reindexer is a store that lists its keys from an index of its own, which Reindex
// rebuilds from the keys themselves (redisstore).
type reindexer interface {
	Reindex(ctx context.Context) (int, error)
}

// rebuildIndex rebuilds the key index of a, the store name of type typ, and says on
// stderr how many keys it holds.
func rebuildIndex(cmd *cobra.Command, a store.Admin, name, typ string) error {
	r, ok := a.(reindexer)
	if !ok {
		return fmt.Errorf("--reindex: store %q (type %s) keeps no key index to rebuild: it lists its keys as they are", name, typ)
	}
	n, err := r.Reindex(cmd.Context())
	if err != nil {
		return fmt.Errorf("--reindex: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "reindexed: %s in the index\n", plural(n, "key"))
	return nil
}

type keyJSON struct {
	Key    string `json:"key"`
	Next   int64  `json:"next"`
	Sealed bool   `json:"sealed"`
}

// listKeys writes the keys as a table, aligned a page at a time, or as JSON lines.
func listKeys(w io.Writer, keys func(func(store.KeyInfo, error) bool), asJSON bool) error {
	enc := json.NewEncoder(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if !asJSON {
		fmt.Fprintln(tw, "KEY\tNEXT\tSEALED")
	}
	n := 0
	for k, err := range keys {
		if err != nil {
			tw.Flush()
			return err
		}
		n++
		if asJSON {
			if err := enc.Encode(keyJSON{k.Key, k.Next, k.Sealed}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", k.Key, k.Next, yesNo(k.Sealed))
		if n%keysPage == 0 {
			tw.Flush()
		}
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
