package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

func configCommand(stderr io.Writer) *cobra.Command {
	var (
		path  string
		open  bool
		fleet bool
	)
	check := &cobra.Command{
		Use:   "check",
		Short: "Check a configuration file and print its generators",
		Long: `Check the configuration file: its shape, every store's settings, every
generator's settings and codec, and the store each names: the same checks, by the
same code, as a service makes when it loads the file. Every error names the file,
the line, the YAML path and what is allowed.

Without --open it checks off the machine the file describes, as a CI job would: it
reads no file that a store's settings name (dsn-file, password-file, token-file,
the TLS files) and does not resolve machine-id: from-hostname; it says each such
thing is checked at --open or start, which read and resolve them all.

With --open it also opens each store, as a service would on first use: it connects
to the database, detects its dialect where none is set, checks the tables (creating
them where initSchema is set), and then makes one request of every store (sql,
redis, etcd, zookeeper, mongodb; an http store's server, with its token), so that
a store that opens lazily is reached too. It says per store and generator what it
found, and exits non-zero when a store failed. It reserves no id and leases no slot.

With --fleet FILE FILE… it checks the configurations of several regions together
(docs/regions.md): it refuses, naming the generator and both files, two whose
generators of one name could hand out the same id: strides whose classes meet,
machine-id ranges that overlap, or one store shared with different strides.`,
		Example: `  cosid config check --fleet east.yaml west.yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if !fleet && len(args) > 0 {
				return fmt.Errorf("unexpected arguments %q: the file is --config, or give --fleet and several files", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if fleet {
				if open || cmd.Flags().Changed("config") {
					return errors.New("--fleet takes its files as arguments, and opens no store: leave out --config and --open")
				}
				return checkFleet(cmd.OutOrStdout(), args)
			}
			cfg, err := cosid.ReadConfig(path)
			if err != nil {
				return err
			}
			checked := cfg // --open reads every file and resolves from-hostname, as start does
			if !open {
				checked = cfg.Offline()
			}
			if err := checked.Validate(); err != nil {
				return err
			}
			if err := printGenerators(cmd.OutOrStdout(), path, checked, !open); err != nil || !open {
				return err
			}
			logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			return openStores(cmd.Context(), cmd.OutOrStdout(), cfg, logger)
		},
	}
	check.Flags().StringVarP(&path, "config", "c", defaultConfig, "the configuration file")
	check.Flags().BoolVar(&open, "open", false, "also open the stores and generators")
	check.Flags().BoolVar(&fleet, "fleet", false, "check the files given as arguments, one a region, together: no two may hand out one id")
	return groupCommand("config", "Work with configuration files", check)
}

// printGenerators prints the generators and stores of cfg, which was checked
// offline (cosid.Config.Offline) when offline is set.
func printGenerators(w io.Writer, path string, cfg cosid.Config, offline bool) error {
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	fmt.Fprintf(w, "%s: ok, namespace %s, %s, %s\n", path, ns, plural(len(cfg.Stores), "store"), plural(len(cfg.Generators), "generator"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERATOR\tSTRATEGY\tKEY\tSTORE")
	for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
		g := cfg.Generators[name]
		where := g.Store
		if g.MachineID != nil && *g.MachineID == cosid.MachineIDFromHostname && offline {
			where = "(machine-id from-hostname: resolved at --open or start)"
		} else if g.MachineID != nil && *g.MachineID == cosid.MachineIDFromHostname {
			where = "(machine-id from-hostname)"
		} else if g.MachineID != nil {
			where = fmt.Sprintf("(machine-id %d)", *g.MachineID)
		} else if st, ok := cfg.Stores[g.Store]; ok {
			where += " (" + st.Type + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, g.Strategy, strings.Join([]string{ns, name}, "/"), where)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printStores(w, cfg)
}

// printStores says of each store what its type's check found in its settings: the
// timeout of a call, whether it leases slots, and what it checks when it opens.
func printStores(w io.Writer, cfg cosid.Config) error {
	for _, name := range slices.Sorted(maps.Keys(cfg.Stores)) {
		facts, err := cfg.CheckStore(name)
		if err != nil {
			return err
		}
		timeout := "no timeout of its own"
		switch {
		case facts.Timeout == 0:
		case facts.TimeoutSet:
			timeout = fmt.Sprintf("timeout %v", facts.Timeout)
		default:
			timeout = fmt.Sprintf("timeout %v (the type's default)", facts.Timeout)
		}
		leases := ""
		if facts.Leases {
			leases = ", leases slots"
		}
		fmt.Fprintf(w, "\nstore %s (%s): %s%s\n", name, cfg.Stores[name].Type, timeout, leases)
		if len(facts.Checks) > 0 {
			fmt.Fprintln(w, "  checks when it opens:")
		}
		for _, c := range facts.Checks {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	return nil
}

// plural returns n and noun, in the plural unless n is 1: "1 key", "2 keys",
// "2 machine hashes".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "sh") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// openStores opens every store of cfg and says what it found for it and for the
// generators on it. It fails when a store cannot be opened.
func openStores(ctx context.Context, w io.Writer, cfg cosid.Config, logger *slog.Logger) error {
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(logger))
	if err != nil {
		return err
	}
	defer rt.Close()
	failed := map[string]error{}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSTORE\tTYPE\tOPEN")
	for _, name := range slices.Sorted(maps.Keys(cfg.Stores)) {
		st, err := rt.Store(ctx, name)
		if p, ok := st.(store.Pinger); ok && err == nil {
			err = p.Ping(ctx)
		}
		state := "ok"
		if err != nil {
			failed[name], state = storeFailure{name, cfg.Stores[name].Type, err}, "FAILED (below)"
		} else if _, ok := st.(store.SlotLeaseStore); ok {
			state = "ok, leases slots"
		}
		if ider, ok := st.(store.Identifier); ok && err == nil {
			id, err := ider.StoreID(ctx)
			if err != nil {
				failed[name], state = fmt.Errorf("store %q (type %s): %w", name, cfg.Stores[name].Type, err), "FAILED (below)"
			} else {
				state += ", store-id " + id
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, cfg.Stores[name].Type, state)
	}
	fmt.Fprintln(tw, "\nGENERATOR\tSTORE\tREADY")
	for _, g := range rt.Generators() {
		state := "ok"
		switch {
		case g.Store == "":
			state = "ok, needs no store"
		case failed[g.Store] != nil:
			state = "no: its store failed"
		case g.Leases:
			state = "ok (no slot leased)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", g.Name, g.Store, state)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(failed)) {
		errs = append(errs, failed[name])
	}
	return errors.Join(errs...)
}

// storeFailure is the error of a store that config check --open could not open
// or ping. It names the store and its type once: the runtime's error starts with
// "cosid: store NAME", which it replaces.
type storeFailure struct {
	name, typ string
	err       error
}

func (e storeFailure) Error() string {
	rest := strings.TrimPrefix(e.err.Error(), fmt.Sprintf("cosid: store %q", e.name))
	if rest == e.err.Error() {
		rest = ": " + rest
	}
	return fmt.Sprintf("store %q (type %s)%s", e.name, e.typ, rest)
}

func (e storeFailure) Unwrap() error { return e.err }
