package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

func sealCommand() *cobra.Command {
	var (
		f      adminFlags
		create bool
	)
	cmd := &cobra.Command{
		Use:   "seal KEY...",
		Short: "Seal keys: every later reservation of them fails, and their values stay",
		Long: `Seal each KEY, such as app/bill/20261027: every later reservation of it fails
with "key sealed", and its value is kept, so that it is never handed out again.
Generators already holding a range of the key finish it. A key that does not exist
is refused, since it is most often a typo (cosid keys --prefix lists the keys);
--create creates it sealed, so that no generator ever starts it, at the initial
offset of the configuration's generator whose key it is (NS/NAME, or one of its
periods or keys NS/NAME/…), else at 1, the default initial offset.`,
		Example: `  cosid seal app/bill/20261027
  cosid seal app/order --config cosid.yaml --store db`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(cmd, "want the KEYs to seal, such as app/bill/20261027")
			}
			a, cfg, err := f.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			missing := map[string]bool{}
			for _, key := range args { // every key is checked before any is sealed
				if err := store.CheckKey(key); err != nil {
					return err
				}
				page, err := a.Keys(cmd.Context(), key, "", 1)
				if err != nil {
					return err
				}
				if len(page) == 1 && page[0].Key == key {
					continue
				}
				if !create {
					return fmt.Errorf("key %q does not exist, so nothing was sealed; check the key (cosid keys --prefix lists them), or give --create to create it sealed", key)
				}
				missing[key] = true
			}
			offsets := initialOffsets(cfg)
			for _, key := range args {
				if missing[key] { // where its generator would have started it
					if _, err := a.RaiseTo(cmd.Context(), key, initialOffset(offsets, key)); err != nil {
						return err
					}
				}
				if err := a.Seal(cmd.Context(), key); err != nil {
					return err
				}
				page, err := a.Keys(cmd.Context(), key, "", 1)
				if err != nil {
					return err
				}
				if len(page) == 1 && page[0].Key == key {
					fmt.Fprintf(cmd.OutOrStdout(), "sealed %s at next value %d\n", key, page[0].Next)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&create, "create", false, "create a KEY that does not exist, sealed")
	f.register(cmd)
	f.access = mustExist
	return cmd
}

// initialOffset returns the initial offset of the generator whose key, or one of
// whose period or key keys, key is, of offsets (initialOffsets); else the default.
func initialOffset(offsets map[string]int64, key string) int64 {
	for base := key; base != ""; {
		if o, ok := offsets[base]; ok {
			return o
		}
		i := strings.LastIndexByte(base, '/')
		if i < 0 {
			break
		}
		base = base[:i]
	}
	return segment.DefaultBatchPolicy().InitialOffset
}
