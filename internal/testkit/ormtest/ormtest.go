// Package ormtest is what the tests of the ORM modules (orm/cosidgorm,
// orm/cosident, orm/cosidbun) share: a runtime of a generator of each kind, and
// stores that are down or count their reservations.
package ormtest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

// Config has a generator of each kind on a memory store: order, a segment (ranges);
// line, a segment whose batches are 10 ids (step 10, lookahead 0s); event, a
// Snowflake (int64 ids one at a time); bill, a periodic segment (text only); and
// tenant, a keyed segment.
const Config = `
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem, step: 100 }
    line: { strategy: segment, store: mem, step: 10, lookahead: 0s }
    event: { strategy: snowflake, machine-id: 3 }
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
    tenant: { strategy: segment, store: mem, keyed: true }
`

// Runtime opens Config, its stores wrapped by wrap unless it is nil, and closes it
// when t ends.
func Runtime(t testing.TB, wrap func(store.RangeStore) store.RangeStore) *cosid.Runtime {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(Config))
	if err != nil {
		t.Fatal(err)
	}
	opts := []cosid.Option{cosid.WithLogger(nil)}
	if wrap != nil {
		opts = append(opts, cosid.WithStoreWrapper(func(_, _ string, st store.RangeStore) store.RangeStore { return wrap(st) }))
	}
	rt, err := cosid.Open(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// ErrDown is the error of the reservations of a Down store.
var ErrDown = errors.New("the store is down")

// Down is st, down: its reservations fail with ErrDown.
func Down(st store.RangeStore) store.RangeStore {
	return testenv.ReserveHook{RangeStore: st, Hook: func(string, int64) error { return ErrDown }}
}

// Counting returns a wrap for Runtime whose stores count in n their reservations
// of the keys whose name ends with suffix ("/line").
func Counting(suffix string, n *atomic.Int64) func(store.RangeStore) store.RangeStore {
	return func(st store.RangeStore) store.RangeStore {
		return testenv.ReserveHook{RangeStore: st, Hook: func(key string, _ int64) error {
			if strings.HasSuffix(key, suffix) {
				n.Add(1)
			}
			return nil
		}}
	}
}
