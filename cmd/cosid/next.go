package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
)

// defaultConfig is the configuration file read when --config is not given; without
// it, cosid runs on the embedded default store.
const defaultConfig = "cosid.yaml"

// storeFlags name the store of an ad-hoc segment: one that no configuration names.
type storeFlags struct {
	store      string
	dsn        string
	driver     string
	namespace  string
	timeout    time.Duration
	initSchema bool
}

func (f *storeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "an ad-hoc store: sqlite:PATH (default sqlite:cosid.db)")
	fl.StringVar(&f.dsn, "dsn", "", "an ad-hoc store: the DSN of an SQL database")
	fl.StringVar(&f.driver, "driver", "", "the database/sql driver of --dsn: pgx, mysql, sqlserver or sqlite (default: from the DSN)")
	fl.StringVar(&f.namespace, "namespace", cosid.DefaultNamespace, "the namespace of an ad-hoc segment's key NS/NAME")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long an ad-hoc store call may take")
	fl.BoolVar(&f.initSchema, "init-schema", true, "create an ad-hoc store's tables when missing")
}

// adHoc reports whether the flags name a store of their own.
func (f *storeFlags) adHoc() bool { return f.store != "" || f.dsn != "" }

// config returns the configuration of an ad-hoc segment NAME on the store the flags
// name.
func (f *storeFlags) config(name string) (cosid.Config, error) {
	if f.timeout <= 0 {
		return cosid.Config{}, fmt.Errorf("--timeout %v: want > 0", f.timeout)
	}
	driver, dsn, err := f.target()
	if err != nil {
		return cosid.Config{}, err
	}
	return cosid.Config{
		Namespace: f.namespace,
		Stores: map[string]cosid.StoreConfig{cosid.DefaultStore: {Type: "sql", Settings: map[string]any{
			"driver": driver, "dsn": dsn, "timeout": f.timeout.String(),
			"options": map[string]any{"initSchema": f.initSchema},
		}}},
		Generators: map[string]cosid.GeneratorConfig{name: {
			Strategy: "segment", Store: cosid.DefaultStore, ReserveTimeout: &f.timeout,
		}},
	}, nil
}

// target returns the driver and DSN that the flags name.
func (f *storeFlags) target() (driver, dsn string, err error) {
	switch {
	case f.store != "" && f.dsn != "":
		return "", "", errors.New("--store and --dsn both name a store: give one")
	case f.driver != "" && f.dsn == "":
		return "", "", errors.New("--driver needs --dsn")
	case f.dsn != "":
		if f.driver != "" {
			return f.driver, f.dsn, nil
		}
		driver, err := inferDriver(f.dsn)
		return driver, f.dsn, err
	}
	target := f.store
	if target == "" {
		target = "sqlite:cosid.db"
	}
	path, ok := strings.CutPrefix(target, "sqlite:")
	if !ok || path == "" {
		return "", "", fmt.Errorf("--store %q: want sqlite:PATH, or --dsn for another database", f.store)
	}
	return "sqlite", path, nil
}

// inferDriver tells the driver from the form of a DSN.
func inferDriver(dsn string) (string, error) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "pgx", nil
	case strings.HasPrefix(dsn, "sqlserver://"):
		return "sqlserver", nil
	case strings.Contains(dsn, "@tcp("), strings.Contains(dsn, "@unix("), strings.HasPrefix(dsn, "tcp("):
		return "mysql", nil
	case strings.HasPrefix(dsn, "file:"):
		return "sqlite", nil
	}
	return "", fmt.Errorf("cannot tell the driver of DSN %q: set --driver to pgx, mysql, sqlserver or sqlite", dsn)
}

// readConfig reads the file --config names, or cosid.yaml when it exists. It returns
// false when there is no configuration to read.
func readConfig(path string, explicit bool) (cosid.Config, bool, error) {
	if !explicit {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return cosid.Config{}, false, nil
		}
	}
	cfg, err := cosid.ReadConfig(path)
	return cfg, err == nil, err
}

// chunk is how many ids the CLI reserves before it prints them: the reservation
// follows the printing, so a reader that stops early (cosid next -n 1000000 | head)
// leaves at most one chunk unprinted.
const chunk = 1000

func nextCommand(stderr io.Writer) *cobra.Command {
	var (
		count  int64
		config string
		sf     storeFlags
	)
	cmd := &cobra.Command{
		Use:   "next NAME",
		Short: "Print the text of the next ids of a generator, one a line",
		Long: `Print the next COUNT ids of the generator NAME, one a line, in its text form.

A run reserves exactly the ids it prints, for segment and periodic-segment
generators alike: nothing is skipped, and the next run goes on where this one
stopped. It reserves them 1000 at a time as it prints them, so a reader that stops
early leaves at most 1000 unprinted. A snowflake generator leases a slot for the run.

With a configuration (--config, or cosid.yaml in the working directory) NAME is one
of its generators. Without one, or with --store or --dsn, NAME is an ad-hoc segment
with the key NS/NAME; its store is the embedded default, the SQLite file cosid.db in
the working directory (said on stderr), unless --store or --dsn names another.`,
		Example: `  cosid next order -n 3
  cosid next bill --config cosid.yaml
  cosid next order --store sqlite:/var/lib/cosid.db
  cosid next order --dsn 'postgres://app@db:5432/app'
  cosid next order --dsn 'app@tcp(db:3306)/app'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr(cmd, fmt.Sprintf("want one generator NAME, got %d arguments", len(args)))
			}
			if count < 1 {
				return fmt.Errorf("--count %d: want ≥ 1", count)
			}
			name := args[0]
			cfg, ok, err := readConfig(config, cmd.Flags().Changed("config"))
			switch {
			case err != nil:
				return err
			case ok && sf.adHoc():
				return fmt.Errorf("--store and --dsn name an ad-hoc store; the configuration %s names its own", config)
			case !ok || sf.adHoc():
				if cfg, err = sf.config(name); err != nil {
					return err
				}
				if !sf.adHoc() {
					fmt.Fprintf(stderr, "cosid: no %s here: %s is an ad-hoc segment on the default store, the SQLite file cosid.db\n", config, name)
				}
			}
			return printNext(cmd.Context(), cmd.OutOrStdout(), stderr, cfg, name, count)
		},
	}
	cmd.Flags().Int64VarP(&count, "count", "n", 1, "how many ids to print")
	cmd.Flags().StringVarP(&config, "config", "c", defaultConfig, "the configuration file")
	sf.register(cmd)
	return cmd
}

func printNext(ctx context.Context, stdout, stderr io.Writer, cfg cosid.Config, name string, count int64) error {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if err := cfg.Validate(); err != nil {
		return err
	}
	gc, ok := cfg.Generators[name]
	if !ok {
		return fmt.Errorf("no generator %q in the configuration; it has: %s", name, generatorNames(cfg))
	}
	if err := oneShotStore(cfg, name, gc); err != nil {
		return err
	}
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(logger))
	if err != nil {
		return err
	}
	defer rt.Close()
	w := bufio.NewWriter(stdout)
	for left := count; left > 0; left -= min(left, chunk) {
		texts, err := rt.Take(ctx, name, min(left, chunk))
		if err != nil {
			return errors.Join(err, w.Flush())
		}
		for _, text := range texts {
			fmt.Fprintln(w, text)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// oneShotStore refuses a generator whose store forgets everything when the process
// ends: each cosid next is a process of its own, so every run would start the same
// way and print the same ids again.
func oneShotStore(cfg cosid.Config, name string, gc cosid.GeneratorConfig) error {
	if gc.Store == "" || cfg.Stores[gc.Store].Type != "memory" || (gc.Strategy == "snowflake" && gc.MachineID != nil) {
		return nil
	}
	what := "its ids die with the process: every cosid next would print the same ids again"
	if gc.Strategy == "snowflake" {
		what = "its slot leases die with the process: the next run could lease the same slot in the same time unit and print the same ids again"
	}
	return fmt.Errorf("generator %q is on the store %q of type memory, and %s; "+
		"put it on a store that keeps its data (sql, redis, etcd, zookeeper, mongodb, http), or take its ids from a long-running cosid serve",
		name, gc.Store, what)
}

func generatorNames(cfg cosid.Config) string {
	names := slices.Sorted(maps.Keys(cfg.Generators))
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
