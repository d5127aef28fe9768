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
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
)

// defaultConfig is the configuration file read when --config is not given; without
// it, cosid runs on the embedded default store.
const defaultConfig = "cosid.yaml"

// storeFlags name the store of an ad-hoc segment: one that no configuration names
// (--dsn), or a store of the configuration (--store NAME, as on every command).
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
	fl.StringVar(&f.store, "store", "", "the configuration's store of an ad-hoc segment NAME that the configuration does not name")
	fl.StringVar(&f.dsn, "dsn", "", "an ad-hoc store: the DSN of an SQL database, or an SQLite file such as ids.db")
	fl.StringVar(&f.driver, "driver", "", "the database/sql driver of --dsn: pgx, mysql, sqlserver or sqlite (default: from the DSN)")
	fl.StringVar(&f.namespace, "namespace", cosid.DefaultNamespace, "the namespace of an ad-hoc segment's key NS/NAME")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long an ad-hoc store call may take")
	fl.BoolVar(&f.initSchema, "init-schema", true, "create an ad-hoc store's tables when missing")
}

// adHoc reports whether the flags name a store of their own.
func (f *storeFlags) adHoc() bool { return f.dsn != "" }

// errSQLiteStore is the error of the old --store sqlite:PATH of next.
func errSQLiteStore(value string) error {
	path, _ := strings.CutPrefix(value, "sqlite:")
	return fmt.Errorf("--store %q: --store names a store of the configuration, as on every command; for an SQLite file give --dsn %s", value, path)
}

// onStore returns cfg with the ad-hoc segment name on its store f.store, unless
// cfg has a generator name, which must then be on that store.
func (f *storeFlags) onStore(cmd *cobra.Command, cfg cosid.Config, source, name string) (cosid.Config, error) {
	st, ok := cfg.Stores[f.store]
	if !ok {
		return cfg, fmt.Errorf("--store %q: no such store in %s; it has: %s", f.store, source, strings.Join(slices.Sorted(maps.Keys(cfg.Stores)), ", "))
	}
	if gc, ok := cfg.Generators[name]; ok {
		if gc.Store != f.store {
			return cfg, fmt.Errorf("--store %q: the generator %q of %s is on the store %q", f.store, name, source, gc.Store)
		}
		return cfg, nil
	}
	if cmd.Flags().Changed("namespace") {
		cfg.Namespace = f.namespace
	}
	gc := cosid.GeneratorConfig{Strategy: cosid.DefaultStrategy, Store: f.store}
	if text, ok := st.Settings["timeout"].(string); ok {
		if d, err := time.ParseDuration(text); err == nil && d > segment.DefaultBatchPolicy().ReserveTimeout {
			gc.ReserveTimeout = &d // a reservation may take as long as the store allows
		}
	}
	cfg.Generators = maps.Clone(cfg.Generators)
	if cfg.Generators == nil {
		cfg.Generators = map[string]cosid.GeneratorConfig{}
	}
	cfg.Generators[name] = gc
	return cfg, nil
}

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
			Strategy: cosid.DefaultStrategy, Store: cosid.DefaultStore, ReserveTimeout: &f.timeout,
		}},
	}, nil
}

// target returns the driver and DSN that the flags name.
func (f *storeFlags) target() (driver, dsn string, err error) {
	switch {
	case f.driver != "" && f.dsn == "":
		return "", "", errors.New("--driver needs --dsn")
	case f.dsn != "":
		if f.driver != "" {
			return f.driver, f.dsn, nil
		}
		driver, err := inferDriver(f.dsn)
		return driver, f.dsn, err
	}
	return "sqlite", "cosid.db", nil
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
	case strings.HasPrefix(dsn, "file:"), sqliteFile.MatchString(dsn):
		return "sqlite", nil
	}
	return "", fmt.Errorf("cannot tell the driver of DSN %q: set --driver to pgx, mysql, sqlserver or sqlite", dsn)
}

// sqliteFile is a DSN that can only be an SQLite file: a path ending in .db,
// .sqlite or .sqlite3, with no scheme and no user.
var sqliteFile = regexp.MustCompile(`^[^@:]*\.(db|sqlite3?)$`)

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

// chunk is the most ids the CLI reserves before it prints them. The reservations
// follow the printing and grow from 1 to chunk (1, 2, 4, …), so that a reader that
// stops early (cosid next -n 1000000 | head) leaves unprinted at most one
// reservation: no more than it was printed before it, and never more than chunk.
const chunk = 1000

func nextCommand(stderr io.Writer) *cobra.Command {
	var (
		count  int64
		config string
		key    string
		sf     storeFlags
	)
	cmd := &cobra.Command{
		Use:   "next NAME",
		Short: "Print the text of the next ids of a generator, one a line",
		Long: `Print the next COUNT ids of the generator NAME, one a line, in its text form.

A run reserves exactly the ids it prints, for segment and periodic-segment
generators alike: nothing is skipped, and the next run goes on where this one
stopped. It reserves them as it prints them, 1, 2, 4, … and at most 1000 at a time,
so a reader that stops early (cosid next -n 1000000 | head) leaves unprinted at most
the ids of one reservation: no more than were printed before it, and at most 1000.
The lines printed that the reader never read are lost too: a pipe holds up to 64 KiB
of them. A snowflake generator leases a slot for the run.

With a configuration (--config, or cosid.yaml in the working directory) NAME is one
of its generators, or with --store STORE an ad-hoc segment NS/NAME on the
configuration's store STORE. Without a configuration, or with --dsn, NAME is an
ad-hoc segment with the key NS/NAME; its store is the embedded default, the SQLite
file cosid.db in the working directory (said on stderr), unless --dsn names another
database (an SQLite file, or a DSN of pgx, mysql or sqlserver). With --dsn a
cosid.yaml in the working directory is not read (said on stderr); --dsn and
--config together are refused.

A keyed generator (keyed: true) keeps a sequence per key: --key K names the key,
1–128 bytes of A-Z, a-z, 0-9, '.', '_', ':' and '-', whose store key is
NS/NAME/K. It is required for a keyed generator and refused for any other.

A generator on a store of type memory is refused: each run is a process of its
own, and the store's ids and slot leases die with it.`,
		Example: `  cosid next order -n 3
  cosid next bill --config cosid.yaml
  cosid next invoice --store db --config cosid.yaml
  cosid next invoice --key acme -n 3
  cosid next order --dsn /var/lib/cosid.db
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
			if strings.HasPrefix(sf.store, "sqlite:") {
				return errSQLiteStore(sf.store)
			}
			if sf.store != "" && sf.dsn != "" {
				return errors.New("--store names a store of the configuration and --dsn an ad-hoc one: give one")
			}
			explicit := cmd.Flags().Changed("config")
			if explicit && sf.adHoc() {
				return fmt.Errorf("--dsn names an ad-hoc store, and --config a configuration with stores of its own: give one (--store NAME picks one of the configuration's)")
			}
			cfg, ok, err := readConfig(config, explicit && !sf.adHoc())
			switch {
			case err != nil:
				return err
			case ok && sf.adHoc():
				fmt.Fprintf(stderr, "cosid: --dsn: %s is an ad-hoc segment on that database; %s here is not read\n", name, config)
				if cfg, err = sf.config(name); err != nil {
					return err
				}
			case sf.store != "":
				source := config
				if !ok {
					cfg, source = cosid.DefaultConfig(), "the embedded default configuration"
				}
				if cfg, err = sf.onStore(cmd, cfg, source, name); err != nil {
					return err
				}
			case !ok || sf.adHoc():
				if cfg, err = sf.config(name); err != nil {
					return err
				}
				if !sf.adHoc() {
					fmt.Fprintf(stderr, "cosid: no %s here: %s is an ad-hoc segment on the default store, the SQLite file cosid.db\n", config, name)
				}
			}
			return printNext(cmd.Context(), cmd.OutOrStdout(), stderr, cfg, name, key, count)
		},
	}
	cmd.Flags().Int64VarP(&count, "count", "n", 1, "how many ids to print")
	cmd.Flags().StringVarP(&config, "config", "c", defaultConfig, "the configuration file")
	cmd.Flags().StringVar(&key, "key", "", "the key of a keyed generator: its ids are the key's own sequence")
	sf.register(cmd)
	return cmd
}

func printNext(ctx context.Context, stdout, stderr io.Writer, cfg cosid.Config, name, key string, count int64) error {
	logger := slog.New(oneShotHandler{slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo})})
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(logger)) // no I/O: the stores open on first use
	if err != nil {
		return err
	}
	defer rt.Close()
	src, err := rt.Source(name, key) // an unknown name in the library's words, with a "did you mean"
	if err == nil || errors.Is(err, cosid.ErrKeyRequired) || errors.Is(err, cosid.ErrNotKeyed) {
		if err := oneShotStore(cfg, name, cfg.Generators[name]); err != nil {
			return err
		}
	}
	switch {
	case errors.Is(err, cosid.ErrKeyRequired):
		return fmt.Errorf("generator %q is keyed, a sequence per key: name the key with --key K", name)
	case errors.Is(err, cosid.ErrNotKeyed):
		return fmt.Errorf("--key %q: generator %q is not keyed; leave out --key, or set keyed: true in its configuration", key, name)
	case errors.Is(err, cosid.ErrInvalidKey):
		return fmt.Errorf("--key: %w", cosid.CheckKey(key)) // what is wrong with the key, without the generator

	case err != nil:
		return err
	}
	take := func(n int64) ([]string, error) { return src.Take(ctx, n) }
	w := bufio.NewWriter(stdout)
	for left, size := count, int64(1); left > 0; left, size = left-min(left, size), min(2*size, chunk) {
		texts, err := take(min(left, size))
		for _, text := range texts { // with an error too: the ids that fit a full codec
			fmt.Fprintln(w, text)
		}
		if err != nil {
			return errors.Join(err, w.Flush())
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// oneShotHandler passes on the warnings of a one-shot run, and of its INFO lines
// the one that says a new SQLite file is created, as serve logs it: a new file is a
// new sequence starting at 1, and a -c that points at another folder should not
// start one without a word. The other INFO lines (a slot acquired, …) would be
// noise on every run.
type oneShotHandler struct{ slog.Handler }

// newSQLiteFile begins sqlstore's INFO line of a SQLite file it creates.
const newSQLiteFile = "sqlstore: creating the SQLite database"

func (h oneShotHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn && !strings.HasPrefix(r.Message, newSQLiteFile) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h oneShotHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return oneShotHandler{h.Handler.WithAttrs(attrs)}
}

func (h oneShotHandler) WithGroup(name string) slog.Handler {
	return oneShotHandler{h.Handler.WithGroup(name)}
}

// oneShotStore refuses a generator whose store forgets everything when the process
// ends: each cosid next is a process of its own, so every run would start the same
// way and print the same ids again.
func oneShotStore(cfg cosid.Config, name string, gc cosid.GeneratorConfig) error {
	if gc.Store == "" || cfg.Stores[gc.Store].Type != "memory" { // a fixed machine id has no store
		return nil
	}
	what := "its ids die with the process: every cosid next would print the same ids again"
	if gc.Leases() {
		what = "its slot leases die with the process: the next run could lease the same slot in the same time unit and print the same ids again"
	}
	return fmt.Errorf("generator %q is on the store %q of type memory, and %s; "+
		"put it on a store that keeps its data (sql, redis, etcd, zookeeper, mongodb, http), or take its ids from a long-running cosid serve",
		name, gc.Store, what)
}
