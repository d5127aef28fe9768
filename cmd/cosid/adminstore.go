package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// adminFlags name the store of an operator's command (keys, slots, seal, purge,
// migrate): a store of the configuration, or an SQL database given by its DSN.
type adminFlags struct {
	config  string
	store   string
	dsn     string
	driver  string
	timeout time.Duration
	// access is what the command may do to the store (inspect.go).
	access access
}

func (f *adminFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.config, "config", "c", defaultConfig, "the configuration file (without one: the embedded default, ./cosid.db)")
	fl.StringVar(&f.store, "store", "", "the configuration's store to work on (default: its only store, else its first sql store)")
	f.registerDSN(cmd, "an SQL database to work on instead of the configuration's store")
}

// registerDSN registers --dsn, --driver and --timeout, which migrate uses for its source.
func (f *adminFlags) registerDSN(cmd *cobra.Command, dsnUsage string) {
	fl := cmd.Flags()
	fl.StringVar(&f.dsn, "dsn", "", dsnUsage)
	fl.StringVar(&f.driver, "driver", "", "the database/sql driver of --dsn: pgx, mysql, sqlserver or sqlite (default: from the DSN)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long a store call may take")
}

// configuration returns the configuration the flags name: the file, or the embedded
// default when there is none, or one SQL store on --dsn.
func (f *adminFlags) configuration(cmd *cobra.Command) (cosid.Config, error) {
	explicit := cmd.Flags().Changed("config")
	if f.dsn != "" {
		if explicit || f.store != "" {
			return cosid.Config{}, fmt.Errorf("--dsn names a store; --config and --store name another: give one")
		}
		sc, err := f.dsnStore()
		if err != nil {
			return cosid.Config{}, err
		}
		return cosid.Config{Namespace: cosid.DefaultNamespace, Stores: map[string]cosid.StoreConfig{cosid.DefaultStore: sc}}, nil
	}
	if f.driver != "" {
		return cosid.Config{}, fmt.Errorf("--driver needs --dsn")
	}
	cfg, ok, err := readConfig(f.config, explicit)
	if err != nil {
		return cosid.Config{}, err
	}
	if !ok {
		cfg = cosid.DefaultConfig()
		if f.access != mayCreate {
			fmt.Fprintf(cmd.ErrOrStderr(), "cosid: no %s here: the default store, the SQLite file cosid.db\n", f.config)
		}
	}
	return cfg, nil
}

// dsnStore returns the sql store of --dsn, --driver and --timeout.
func (f *adminFlags) dsnStore() (cosid.StoreConfig, error) {
	if f.timeout <= 0 {
		return cosid.StoreConfig{}, fmt.Errorf("--timeout %v: want > 0", f.timeout)
	}
	driver := f.driver
	if driver == "" {
		var err error
		if driver, err = inferDriver(f.dsn); err != nil {
			return cosid.StoreConfig{}, err
		}
	}
	return cosid.StoreConfig{Type: "sql", Settings: map[string]any{
		"driver": driver, "dsn": f.dsn, "timeout": f.timeout.String(), "options": map[string]any{"initSchema": true},
	}}, nil
}

// storeName returns the store of cfg the flags pick.
func (f *adminFlags) storeName(cfg cosid.Config) (string, error) {
	names := slices.Sorted(maps.Keys(cfg.Stores))
	switch {
	case f.store != "":
		if _, ok := cfg.Stores[f.store]; !ok {
			return "", fmt.Errorf("--store %q: no such store in the configuration; it has: %s", f.store, strings.Join(names, ", "))
		}
		return f.store, nil
	case len(names) == 1:
		return names[0], nil
	}
	for _, n := range names {
		if cfg.Stores[n].Type == "sql" {
			return n, nil
		}
	}
	return "", fmt.Errorf("the configuration has %d stores and none of type sql: name one with --store (%s)", len(names), strings.Join(names, ", "))
}

// open opens the store the flags name as a store.Admin; the caller closes it.
func (f *adminFlags) open(ctx context.Context, cmd *cobra.Command, logger *slog.Logger) (store.Admin, cosid.Config, error) {
	cfg, err := f.configuration(cmd)
	if err != nil {
		return nil, cfg, err
	}
	name, err := f.storeName(cfg)
	if err != nil {
		return nil, cfg, err
	}
	sc, err := existingStore(cfg, cfg.Stores[name], f.access)
	if err != nil {
		return nil, cfg, fmt.Errorf("cosid.stores.%s: %w", name, err)
	}
	cfg.Stores = maps.Clone(cfg.Stores)
	cfg.Stores[name] = sc
	a, err := openAdmin(ctx, cfg, name, logger)
	return a, cfg, err
}

// openAdmin opens the store name of cfg as a store.Admin, as the runtime would open
// it (cosid.Config.OpenStore).
func openAdmin(ctx context.Context, cfg cosid.Config, name string, logger *slog.Logger) (store.Admin, error) {
	st, err := cfg.OpenStore(ctx, name, cosid.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	a, ok := st.(store.Admin)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("cosid.stores.%s: a store of type %q has no admin operations", name, cfg.Stores[name].Type)
	}
	return a, nil
}

// warnLogger logs the stores' warnings to stderr.
func warnLogger(cmd *cobra.Command) *slog.Logger {
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}
