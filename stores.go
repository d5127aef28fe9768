package cosid

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/store"
	"go.yaml.in/yaml/v3"
)

// The store types every binary that imports this package has: the in-process store
// and the SQL store. No database/sql driver comes with them, as none comes with
// database/sql: a program whose sql stores use SQLite, as DefaultConfig does,
// imports _ "modernc.org/sqlite" (cmd/cosid does), and one that uses another
// database imports its driver. Other store types (redis, etcd, zookeeper, mongodb,
// http) register when their packages are imported.
import (
	_ "github.com/cosid-go/cosid/store/memstore"
	_ "github.com/cosid-go/cosid/store/sqlstore"
)

// OpenStore opens the store name of c as a Runtime would open it for its generators:
// through the store registry, with its relative file names read from c.Dir, and logging
// to the logger of WithLogger (default slog.Default). The caller closes the store. It
// is for tools that work on a store itself, such as an operator's command reaching its
// admin operations (store.Admin), without building a Runtime. An unknown name wraps
// ErrUnknownStore; settings a Validate would refuse wrap ErrConfig.
func (c Config) OpenStore(ctx context.Context, name string, opts ...Option) (store.RangeStore, error) {
	c.offline = false // what is opened is read
	if _, err := c.CheckStore(name); err != nil {
		return nil, err
	}
	return openSpec(ctx, name, c.Stores[name], c.Dir, options(opts).logger)
}

// CheckStore checks the settings of the store name of c with its type's Check, which
// does no I/O, and returns what the type says of them: the timeout of each call, whether
// it leases slots, and what it checks of its server when it opens. An unknown name wraps
// ErrUnknownStore; bad settings wrap ErrConfig and name the YAML path.
func (c Config) CheckStore(name string) (store.Facts, error) {
	sc, ok := c.Stores[name]
	if !ok {
		return store.Facts{}, unknownName(ErrUnknownStore, name, sortedKeys(c.Stores))
	}
	facts, err := checkStore(name, sc, c.Dir, c.offline)
	return facts, c.locate(err)
}

// openWrapped opens the store name of sc, as openStore does, and wraps it with the
// runtime's WithStoreWrapper.
func (o *runtimeOptions) openWrapped(ctx context.Context, name string, sc StoreConfig, dir string) (*storeBox, error) {
	b, err := openStore(ctx, name, sc, dir, o.logger)
	if err != nil || o.wrap == nil {
		return b, err
	}
	return &storeBox{st: o.wrap(name, sc.Type, b.st)}, nil
}

// openStore opens the store name of sc. Its settings were checked at Open, so its
// errors are about reaching the store.
func openStore(ctx context.Context, name string, sc StoreConfig, dir string, logger *slog.Logger) (*storeBox, error) {
	st, err := openSpec(ctx, name, sc, dir, logger)
	if err != nil {
		return nil, err
	}
	return &storeBox{st: st}, nil
}

// openSpec opens the store name of sc with its type's Open. dir is the directory
// its relative file names are read from (Config.Dir).
func openSpec(ctx context.Context, name string, sc StoreConfig, dir string, logger *slog.Logger) (store.RangeStore, error) {
	typ, spec, err := storeSpec(name, sc, dir, logger)
	if err != nil {
		return nil, err
	}
	st, err := typ.Open(ctx, spec)
	return st, namePath(spec.Path, err)
}

// checkStore checks the settings of the store name with its type's Check, which
// does no I/O, and returns their facts; offline, it reads no file (store.Spec.Offline).
func checkStore(name string, sc StoreConfig, dir string, offline bool) (store.Facts, error) {
	typ, spec, err := storeSpec(name, sc, dir, slog.New(slog.DiscardHandler))
	if err != nil {
		return store.Facts{}, err
	}
	spec.Offline = offline
	facts, err := typ.Check(spec)
	if err != nil {
		return store.Facts{}, configErr(namePath(spec.Path, err))
	}
	return facts, nil
}

// storeSpec returns the registered type of sc and the Spec of its settings.
func storeSpec(name string, sc StoreConfig, dir string, logger *slog.Logger) (store.Type, store.Spec, error) {
	path := "cosid.stores." + name
	typ, ok := store.Lookup(sc.Type)
	if !ok {
		return store.Type{}, store.Spec{}, configErr(unknownType(path, sc.Type))
	}
	node, err := sc.settingsNode()
	if err != nil {
		return store.Type{}, store.Spec{}, configErr(fmt.Errorf("%s: %w", path, err))
	}
	return typ, store.Spec{Name: name, Path: path, Logger: logger, Dir: dir, Decode: func(v any) error {
		return decodeStrict(node, path, v)
	}}, nil
}

// namePath puts path before an error of a store type that does not name it.
func namePath(path string, err error) error {
	if err != nil && !strings.Contains(err.Error(), path) {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

func unknownType(path, typ string) error {
	return fmt.Errorf("%s.type: unknown store type %q; this binary has: %s (another type needs its package imported)",
		path, typ, typeList())
}

func typeList() string { return quotedList(store.Types()) }

func decodeStrict(node *yaml.Node, path string, v any) error {
	return strictyaml.Decode(node, path, v)
}
