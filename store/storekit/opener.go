package storekit

import (
	"context"
	"fmt"

	"github.com/cosid-go/cosid/store"
)

// Opener returns the store.Type of a configuration type from its two halves: parse,
// which checks an entry's settings, and dial, which opens a store from what parse
// made of them. A store package registers it from init:
//
//	func init() { store.Register("etcd", storekit.Opener(parseSpec, dialSpec)) }
//
// Opener decodes the settings with spec.DecodeSettings into C, a struct with yaml
// field tags, so that every type refuses a key it does not know and reads a
// relative store.File from the configuration's directory alike. parse checks the
// decoded settings (spec.Invalid, spec.Timeout) and returns them as the store needs
// them, P, with their Facts. It does no I/O beyond reading the local files the
// settings name, such as a password file, so that a configuration loads while its
// stores are down. Its errors name the setting at fault, and Opener passes them on
// as they are.
//
// dial opens the store of p, parse's answer for spec: it makes the client and the
// store, and closes the client again when the store cannot be made. Its errors are
// about reaching the store, or about what the server answered; Opener prefixes each
// with spec.Path, so that it names the entry. ctx is the dial's alone: it ends when
// Open's ctx does, after Facts.Timeout when that is above 0 (so that a store that
// checks its server at open gives up when one of its calls would), and when Open
// returns, so no client made by dial may keep it.
//
// The Type's Check decodes and parses; its Open does the same again, then dials.
// Check's errors are therefore Open's for the same settings, as store.Type asks.
func Opener[C, P any](
	parse func(spec store.Spec, settings C) (P, store.Facts, error),
	dial func(ctx context.Context, spec store.Spec, p P) (store.RangeStore, error),
) store.Type {
	if parse == nil || dial == nil {
		panic("storekit: Opener needs a parse and a dial")
	}
	decodeAndParse := func(spec store.Spec) (P, store.Facts, error) {
		var settings C
		if err := spec.DecodeSettings(&settings); err != nil {
			var none P
			return none, store.Facts{}, err
		}
		return parse(spec, settings)
	}
	return store.Type{
		Check: func(spec store.Spec) (store.Facts, error) {
			_, facts, err := decodeAndParse(spec)
			if err != nil {
				return store.Facts{}, err
			}
			return facts, nil
		},
		Open: func(ctx context.Context, spec store.Spec) (store.RangeStore, error) {
			p, facts, err := decodeAndParse(spec)
			if err != nil {
				return nil, err
			}
			var cancel context.CancelFunc
			if facts.Timeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, facts.Timeout)
			} else {
				ctx, cancel = context.WithCancel(ctx)
			}
			defer cancel()
			st, err := dial(ctx, spec, p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Path, err)
			}
			return st, nil
		},
	}
}
