package cosid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"go.yaml.in/yaml/v3"
)

// build makes the generator that p plans, on its store, which is open.
func (rt *Runtime) build(ctx context.Context, p *plan) (*built, error) {
	var st store.RangeStore
	if p.store != "" {
		b, err := rt.stores[p.store].get(ctx)
		if err != nil {
			return nil, err
		}
		st = b.st
	}
	b, err := p.def.build(ctx, rt, p, st)
	var pe *segment.PolicyError
	if errors.As(err, &pe) {
		return nil, configErr(policyErr(p.path, err))
	}
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// segmentOptions returns the options of a generator on segments of p: the
// runtime's logger, then WithSegmentOptions's.
func (rt *Runtime) segmentOptions(p *plan) []segment.Option {
	opts := []segment.Option{segment.WithLogger(rt.o.logger)}
	if f := rt.o.segOpts; f != nil {
		opts = append(opts, f(p.name, p.store)...)
	}
	return opts
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
