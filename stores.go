package cosid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"go.yaml.in/yaml/v3"
)

// The store types every binary that imports this package has: the in-process store,
// and the SQL store (sqlstore, above) with the pure-Go SQLite driver of the embedded
// default. Other types (redis, etcd, zookeeper, mongodb, http) and other SQL drivers
// (pgx, mysql, sqlserver) register when their packages are imported.
import (
	_ "github.com/cosid-go/cosid/store/memstore"
	_ "modernc.org/sqlite"
)

// openStore opens the store name of sc. Its settings were checked at Open, so its
// errors are about reaching the store.
func openStore(ctx context.Context, name string, sc StoreConfig, dir string, logger *slog.Logger) (*storeBox, error) {
	st, err := openSpec(ctx, name, sc, dir, logger)
	if err != nil {
		return nil, err
	}
	return &storeBox{st: st}, nil
}

// openSpec calls the opener of sc's type. dir is the directory its relative file
// names are read from (Config.Dir).
func openSpec(ctx context.Context, name string, sc StoreConfig, dir string, logger *slog.Logger) (store.RangeStore, error) {
	path := "cosid.stores." + name
	open, ok := store.Lookup(sc.Type)
	if !ok {
		return nil, configErr(unknownType(path, sc.Type))
	}
	node, err := sc.settingsNode()
	if err != nil {
		return nil, configErr(fmt.Errorf("%s: %w", path, err))
	}
	st, err := open(ctx, store.Spec{Name: name, Path: path, Logger: logger, Dir: dir, Decode: func(v any) error {
		return decodeStrict(node, path, v)
	}})
	if err != nil && !strings.Contains(err.Error(), path) {
		err = fmt.Errorf("%s: %w", path, err) // an opener that did not name the path
	}
	return st, err
}

// checkStore checks the settings of the store name without I/O: it calls the opener
// with a context that is already canceled. Openers check their settings first and
// do their I/O under ctx, so a bad setting is an error of its own and a good one
// ends in context.Canceled. It returns the store when the opener needed no I/O (the
// memory store), for the caller to inspect and close.
func checkStore(name string, sc StoreConfig, dir string) (store.RangeStore, error) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := openSpec(ctx, name, sc, dir, slog.New(slog.DiscardHandler))
	switch {
	case err == nil:
		return st, nil
	case errors.Is(err, context.Canceled):
		return nil, nil
	}
	return nil, configErr(err)
}

func unknownType(path, typ string) error {
	return fmt.Errorf("%s.type: unknown store type %q; this binary has: %s (another type needs its package imported)",
		path, typ, typeList())
}

func typeList() string { return quotedList(store.Types()) }

func decodeStrict(node *yaml.Node, path string, v any) error {
	return strictyaml.Decode(node, path, v)
}

// storeTimeout returns the timeout a store's settings give it: its timeout key, or
// the default of the sql type. The path has @ for the store's name.
func storeTimeout(sc StoreConfig) (time.Duration, string, bool) {
	node, err := sc.settingsNode()
	if err == nil && node.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == "timeout" {
				d, err := time.ParseDuration(node.Content[i+1].Value)
				return d, "cosid.stores.@.timeout", err == nil
			}
		}
	}
	if sc.Type == "sql" {
		return sqlstore.DefaultTimeout, "the default timeout of a store of type sql", true
	}
	return 0, "", false
}
