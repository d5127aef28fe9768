package main

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
)

func configCommand(stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Work with configuration files"}
	var (
		path string
		open bool
	)
	check := &cobra.Command{
		Use:   "check",
		Short: "Check a configuration file and print its generators",
		Long: `Check the configuration file: its shape, every generator's settings and codec,
and the store each names. Every error names the YAML path and what is allowed.
With --open it also opens the stores and generators, as a service would: it
connects to the databases, checks their tables, and leases (then releases) a slot
for each Snowflake generator.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := cosid.ReadConfig(path)
			if err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return err
			}
			if open {
				logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
				rt, err := cosid.Open(cmd.Context(), cfg, cosid.WithLogger(logger))
				if err != nil {
					return err
				}
				if err := rt.Close(); err != nil {
					return err
				}
			}
			return printGenerators(cmd.OutOrStdout(), path, cfg)
		},
	}
	check.Flags().StringVarP(&path, "config", "c", defaultConfig, "the configuration file")
	check.Flags().BoolVar(&open, "open", false, "also open the stores and generators")
	cmd.AddCommand(check)
	return cmd
}

func printGenerators(w io.Writer, path string, cfg cosid.Config) error {
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	fmt.Fprintf(w, "%s: ok, namespace %s, %d stores, %d generators\n", path, ns, len(cfg.Stores), len(cfg.Generators))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERATOR\tSTRATEGY\tKEY\tSTORE")
	for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
		g := cfg.Generators[name]
		where := g.Store
		if g.MachineID != nil {
			where = fmt.Sprintf("(machine-id %d)", *g.MachineID)
		} else if st, ok := cfg.Stores[g.Store]; ok {
			where += " (" + st.Type + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, g.Strategy, strings.Join([]string{ns, name}, "/"), where)
	}
	return tw.Flush()
}
