package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

const keyedConfig = `
cosid:
  namespace: app
  stores:
    mem: { type: memory }
  generators:
    invoice:
      strategy: segment
      store: mem
      step: 10
      lookahead: 0s
      keyed: true
      max-live-keys: 2
      idle-close: 1m
      codec: [ { prefix: { value: "INV-" } }, { to-string: {} } ]
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      keyed: true
    order: { strategy: segment, store: mem }
`

// openKeyed opens text on a key clock the test moves.
func openKeyed(t *testing.T, text string, opts ...cosid.Option) (*cosid.Runtime, *fakeClock) {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	rt, err := cosid.Open(t.Context(), cfg, append([]cosid.Option{cosid.WithLogger(nil), cosid.WithKeyClock(clock.Now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, clock
}

// source returns the Source of key of the generator name.
func source(t testing.TB, rt *cosid.Runtime, name, key string) cosid.Source {
	t.Helper()
	src, err := rt.Source(name, key)
	if err != nil {
		t.Fatalf("Source(%q, %q): %v", name, key, err)
	}
	return src
}

func nextKeyInt(t *testing.T, rt *cosid.Runtime, name, key string) int64 {
	t.Helper()
	v, err := source(t, rt, name, key).NextInt(t.Context())
	if err != nil {
		t.Fatalf("NextInt of %q key %q: %v", name, key, err)
	}
	return v
}

func TestSource_KeyedSequencePerKeyWithTheTemplatesCodec(t *testing.T) {
	rt, _ := openKeyed(t, keyedConfig)
	ctx := t.Context()
	var got []string
	for _, key := range []string{"acme", "acme", "globex", "acme", "globex"} {
		text, err := source(t, rt, "invoice", key).Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, key+"="+text)
	}
	want := "acme=INV-1 acme=INV-2 globex=INV-1 acme=INV-3 globex=INV-2"
	if strings.Join(got, " ") != want {
		t.Errorf("Next gave %v; want %s", got, want)
	}
	// The key's sequence is the store key {namespace}/{name}/{key}: a reservation
	// there lies above the key's first range of 10.
	st, err := rt.Store(ctx, "mem")
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Reserve(ctx, "app/invoice/acme", 1, 1)
	if err != nil || r.Start != 11 {
		t.Errorf("Reserve(app/invoice/acme) = %v, %v; want the value after the key's range [1, 11)", r, err)
	}
	if r, err := source(t, rt, "invoice", "globex").NextRange(ctx, 3); err != nil || r != (store.Range{Start: 3, End: 6}) {
		t.Errorf("NextRange(globex, 3) = %v, %v; want [3, 6), after globex's two ids", r, err)
	}
	if _, err := source(t, rt, "bill", "globex").NextRange(ctx, 3); !errors.Is(err, cosid.ErrUnknownGenerator) {
		t.Errorf("NextRange of a periodic one: %v; want ErrUnknownGenerator", err)
	}
	if st := source(t, rt, "invoice", "acme").Stats(); len(st.Segments) != 1 || st.Segments[0].Key != "app/invoice/acme" {
		t.Errorf("Stats of invoice/acme = %+v; want the live key's, of app/invoice/acme", st)
	}
	if st := source(t, rt, "invoice", "initech").Stats(); st.Segments != nil {
		t.Errorf("Stats of a key never used = %+v; want none, and the key not opened", st)
	}
}

func TestSource_KeyedPeriodicAddsThePeriod(t *testing.T) {
	rt, _ := openKeyed(t, keyedConfig)
	ctx := t.Context()
	today := time.Now().UTC().Format("20060102")
	for i, want := range []string{today + "-1", today + "-2"} {
		if text, err := source(t, rt, "bill", "shop-1").Next(ctx); err != nil || text != want {
			t.Errorf("call %d: Next of bill/shop-1 = %q, %v; want %q", i, text, err, want)
		}
	}
	if text, err := source(t, rt, "bill", "shop-2").Next(ctx); err != nil || text != today+"-1" {
		t.Errorf("Next of bill/shop-2 = %q, %v; want its own sequence, %q", text, err, today+"-1")
	}
	if st := source(t, rt, "bill", "shop-1").Stats(); len(st.Segments) == 0 || st.Segments[0].Key != "app/bill/shop-1/"+today {
		t.Errorf("Stats of bill/shop-1 = %+v; want the key app/bill/shop-1/%s", st, today)
	}
	texts, err := source(t, rt, "bill", "shop-3").Take(ctx, 2)
	if err != nil || strings.Join(texts, " ") != today+"-1 "+today+"-2" {
		t.Errorf("Take of bill/shop-3, 2 = %v, %v; want exactly the key's first two", texts, err)
	}
	if ks := rt.Stats("bill").Keys; ks.Opened != 2 {
		t.Errorf("Stats.Keys = %+v; want shop-1 and shop-2 opened, and Take opening none", ks)
	}
}

func TestSource_RefusesCallsThatMissTheKeyOrGiveOne(t *testing.T) {
	rt, _ := openKeyed(t, keyedConfig)
	ctx := t.Context()
	var order struct {
		ID int64 `cosid:"invoice"`
	}
	tests := []struct {
		name    string
		call    func() error
		want    error
		mention string
	}{
		{"Next on a keyed one", func() error { _, err := rt.Next(ctx, "invoice"); return err }, cosid.ErrKeyRequired, "name one"},
		{"NextInt on a keyed one", func() error { _, err := rt.NextInt(ctx, "invoice"); return err }, cosid.ErrKeyRequired, `"invoice" is keyed`},
		{"a Source of a keyed one without a key", func() error { _, err := rt.Source("invoice", ""); return err }, cosid.ErrKeyRequired, "1–128 bytes of A-Z"},
		{"Segment on a keyed one", func() error { _, err := rt.Segment(ctx, "invoice"); return err }, cosid.ErrKeyRequired, "a sequence per key"},
		{"Fill of a keyed one", func() error { return rt.Fill(ctx, &order) }, cosid.ErrKeyRequired, "field ID"},
		{"a key to a plain one", func() error { _, err := rt.Source("order", "a"); return err }, cosid.ErrNotKeyed, "keyed: true"},
		{"an empty key", func() error { _, err := rt.Source("invoice", ""); return err }, cosid.ErrKeyRequired, "want 1–128 bytes of A-Z"},
		{"a key with a slash", func() error { _, err := rt.Source("invoice", "a/b"); return err }, cosid.ErrInvalidKey, `has '/' at byte 1`},
		{"a key of 129 bytes", func() error { _, err := rt.Source("invoice", strings.Repeat("k", 129)); return err }, cosid.ErrInvalidKey, "is 129 bytes"},
		{"a key with ü", func() error { _, err := rt.Source("invoice", "ü"); return err }, cosid.ErrInvalidKey, "want 1–128 bytes"},
		{"NextInt of a periodic one's key", func() error { _, err := source(t, rt, "bill", "a").NextInt(ctx); return err }, cosid.ErrUnknownGenerator, "text only"},
		{"NextRange of a periodic one's key", func() error { _, err := source(t, rt, "bill", "a").NextRange(ctx, 2); return err }, cosid.ErrUnknownGenerator, "not in ranges"},
		{"Periodic of a keyed segment", func() error { _, err := rt.Periodic(ctx, "invoice"); return err }, cosid.ErrKeyRequired, "is keyed"},
		{"an unknown name", func() error { _, err := rt.Source("nope", "a"); return err }, cosid.ErrUnknownGenerator, "configured: bill, invoice, order"},
		{"the zero Source", func() error { _, err := cosid.Source{}.Next(ctx); return err }, cosid.ErrUnknownGenerator, "Runtime.Source"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %v; want one wrapping %v that mentions %q", err, tt.want, tt.mention)
			}
		})
	}
	if ks := rt.Stats("invoice").Keys; ks.Opened != 0 {
		t.Errorf("refused calls opened %d keys; want none", ks.Opened)
	}
}

func TestConfig_KeyedSettingsAreChecked(t *testing.T) {
	long := strings.Repeat("n", 120)
	tests := []struct{ gen, want string }{
		{"{strategy: snowflake, machine-id: 1, keyed: true}",
			"cosid.generators.g.keyed: a snowflake generator cannot be keyed: only segment and periodic-segment generators keep a sequence per key; remove keyed"},
		{"{strategy: segment, store: mem, max-live-keys: 5}", "cosid.generators.g.max-live-keys: only a keyed generator takes it; set keyed: true"},
		{"{strategy: segment, store: mem, idle-close: 1m}", "cosid.generators.g.idle-close: only a keyed generator takes it"},
		{"{strategy: segment, store: mem, keyed: true, max-live-keys: 0}", "cosid.generators.g.max-live-keys: 0, want ≥ 1 (or leave it out for 100000)"},
		{"{strategy: segment, store: mem, keyed: true, idle-close: -1s}", "cosid.generators.g.idle-close: -1s, want a positive duration (or leave it out for 10m0s)"},
		{"{strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, keyed: true, seal-after: 48h}",
			"cosid.generators.g.seal-after: a keyed generator seals no past period"},
		{"{strategy: segment, store: mem, keyed: true}\n    " + long + ": {strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, keyed: true}",
			"cosid.generators." + long + ".keyed: the store key of a key of 128 bytes would be 262 bytes, over the stores' limit of 255"},
	}
	for _, tt := range tests {
		_, err := openYAML(t, "cosid:\n  namespace: app\n"+memStore+"  generators:\n    g: "+tt.gen+"\n")
		if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("generator %s: error %v; want ErrConfig containing %q", tt.gen, err, tt.want)
		}
	}
}

// TestSource_KeyedEvictsTheLeastRecentlyUsedKey uses three keys of a template of two live
// keys: the one used longest ago closes and gives back the rest of its range (S7), so
// its ids go on from the first one it did not hand out; the key used since keeps its
// range.
func TestSource_KeyedEvictsTheLeastRecentlyUsedKey(t *testing.T) {
	w := newGiveBackWatch()
	rt, _ := openKeyed(t, keyedConfig, w.option())
	a1, b1, a2 := nextKeyInt(t, rt, "invoice", "a"), nextKeyInt(t, rt, "invoice", "b"), nextKeyInt(t, rt, "invoice", "a")
	nextKeyInt(t, rt, "invoice", "c") // the third live key: b goes
	if g := w.wait(t, "app/invoice/b"); g.tail != (store.Range{Start: 2, End: 11}) || !g.lowered {
		t.Errorf("b, evicted, gave back %v (lowered %v); want [2, 11) lowered", g.tail, g.lowered)
	}
	ks := rt.Stats("invoice").Keys
	if ks.Live != 2 || ks.Evicted != 1 || ks.Opened != 3 {
		t.Errorf("KeyStats = %+v; want 2 live, 3 opened, 1 evicted", ks)
	}
	if a3 := nextKeyInt(t, rt, "invoice", "a"); a1 != 1 || a2 != 2 || a3 != 3 {
		t.Errorf("a gave %d, %d, %d; want 1, 2, 3 from its one range: it was used after b", a1, a2, a3)
	}
	if b2 := nextKeyInt(t, rt, "invoice", "b"); b1 != 1 || b2 != 2 {
		t.Errorf("b gave %d, then %d after it was evicted; want 1, then 2: the rest of its range was given back", b1, b2)
	}
}

func TestSource_KeyedClosesAKeyIdleForIdleClose(t *testing.T) {
	w := newGiveBackWatch()
	rt, clock := openKeyed(t, keyedConfig, w.option())
	nextKeyInt(t, rt, "invoice", "a")
	clock.Add(59 * time.Second)
	nextKeyInt(t, rt, "invoice", "b")
	if ks := rt.Stats("invoice").Keys; ks.Live != 2 || ks.IdleClosed != 0 {
		t.Fatalf("after 59s: KeyStats = %+v; want a still live", ks)
	}
	clock.Add(time.Second) // a is idle for 1m, b for 1s
	// Opening a key reads the clock and sweeps: a closes for idle-close, before c
	// would make three live keys and close one for max-live-keys.
	nextKeyInt(t, rt, "invoice", "c")
	if ks := rt.Stats("invoice").Keys; ks.Live != 2 || ks.IdleClosed != 1 || ks.Evicted != 0 {
		t.Errorf("after a was idle 1m: KeyStats = %+v; want a closed for idle-close, b and c live", ks)
	}
	if g := w.wait(t, "app/invoice/a"); g.tail != (store.Range{Start: 2, End: 11}) || !g.lowered {
		t.Errorf("a, closed for idle-close, gave back %v (lowered %v); want [2, 11) lowered (S7)", g.tail, g.lowered)
	}
	if a := nextKeyInt(t, rt, "invoice", "a"); a != 2 {
		t.Errorf("a after its idle close gave %d; want 2, the first id it did not hand out", a)
	}
}

// TestSource_KeyedSweepClosesIdleKeysWithoutCalls leaves a key idle with no call at all:
// the runtime's one sweep closes it, on synctest's time.
func TestSource_KeyedSweepClosesIdleKeysWithoutCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := mustOpen(t, keyedConfig) // on synctest's time.Now
		nextKeyInt(t, rt, "invoice", "a")
		time.Sleep(59 * time.Second) // sleep-ok: synctest's fake time
		synctest.Wait()
		if ks := rt.Stats("invoice").Keys; ks.Live != 1 {
			t.Fatalf("after 59s: KeyStats = %+v; want a live", ks)
		}
		time.Sleep(30 * time.Second) // sleep-ok: synctest's fake time; the sweep runs every 15s
		synctest.Wait()
		if ks := rt.Stats("invoice").Keys; ks.Live != 0 || ks.IdleClosed != 1 {
			t.Errorf("after 89s idle: KeyStats = %+v; want a closed by the sweep", ks)
		}
	})
}

// TestSource_KeyedIdleCloseOnTheCoarseClock uses a key without reading the clock
// (a call on a live key stamps the janitor's tick, not the time): the key stays open
// for idle-close after that use, and closes within a janitor period or two after,
// on synctest's time.
func TestSource_KeyedIdleCloseOnTheCoarseClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := mustOpen(t, keyedConfig) // on synctest's time.Now; invoice: idle-close 1m, swept every 15s
		live := func(when string, want int64) {
			t.Helper()
			synctest.Wait()
			ks := rt.Stats("invoice").Keys
			if got := int64(ks.Live); got != want || ks.IdleClosed != 1-want {
				t.Errorf("%s: KeyStats = %+v; want %d live", when, ks, want)
			}
		}
		nextKeyInt(t, rt, "invoice", "a")
		time.Sleep(50 * time.Second) // sleep-ok: synctest's fake time
		nextKeyInt(t, rt, "invoice", "a")
		time.Sleep(59 * time.Second) // sleep-ok: synctest's fake time
		live("59s after its last use", 1)
		time.Sleep(31 * time.Second) // sleep-ok: synctest's fake time
		live("idle-close and two sweeps' periods after its last use", 0)
		if a := nextKeyInt(t, rt, "invoice", "a"); a != 3 {
			t.Errorf("a after its idle close gave %d; want 3, the first id it did not hand out (its close gave the rest back, S7)", a)
		}
	})
}

// TestSource_KeyedConcurrentKeysWithEvictionChurnNeverRepeat runs many goroutines over
// more keys than the template keeps live, so that keys close and open again under
// the callers: no id repeats within a key, and each caller sees a key's ids rise.
func TestSource_KeyedConcurrentKeysWithEvictionChurnNeverRepeat(t *testing.T) {
	rt, clock := openKeyed(t, keyedConfig)
	const workers, calls, keys = 8, 3000, 24
	sources := map[string]cosid.Source{} // held, as a caller of many keys would
	for k := range keys {
		key := "k" + strconv.Itoa(k)
		sources[key] = source(t, rt, "invoice", key)
	}
	var mu sync.Mutex
	seen := map[string]map[int64]bool{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			last := map[string]int64{}
			for i := range calls {
				key := "k" + strconv.Itoa((i*7+w*3)%keys)
				if i%500 == 0 {
					clock.Add(30 * time.Second) // some keys go idle too
				}
				v, err := sources[key].NextInt(t.Context())
				if err != nil {
					t.Error(err)
					return
				}
				if v <= last[key] {
					t.Errorf("worker %d: key %s gave %d after %d", w, key, v, last[key])
				}
				last[key] = v
				mu.Lock()
				if seen[key] == nil {
					seen[key] = map[int64]bool{}
				}
				if seen[key][v] {
					t.Errorf("key %s: id %d handed out twice", key, v)
				}
				seen[key][v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	ks := rt.Stats("invoice").Keys
	if ks.Evicted == 0 || ks.Live > 2 {
		t.Errorf("KeyStats = %+v; want evictions, and at most 2 live keys", ks)
	}
	total := 0
	for _, ids := range seen {
		total += len(ids)
	}
	if total != workers*calls {
		t.Errorf("%d distinct ids; want %d", total, workers*calls)
	}
}

// recordingObserver keeps the keys a generator reports its events under.
type recordingObserver struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (o *recordingObserver) Reserved(key string, _ store.Range, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keys[key] = true
}
func (o *recordingObserver) RefillFailed(string, error, time.Duration) {}
func (o *recordingObserver) Waited(string, time.Duration)              {}

func TestStats_KeyedTemplateCountsOnceForAllItsKeys(t *testing.T) {
	obs := &recordingObserver{keys: map[string]bool{}}
	rt, _ := openKeyed(t, keyedConfig, cosid.WithSegmentOptions(func(string, string) []segment.Option {
		return []segment.Option{segment.WithObserver(obs)}
	}))
	if st := rt.Stats("invoice").Segments; st != nil {
		t.Errorf("Stats before any key = %+v; want nil", st)
	}
	var reserves int64
	for i, key := range []string{"a", "b", "c", "d", "a"} { // every call but the last evicts a key
		nextKeyInt(t, rt, "invoice", key)
		st := rt.Stats("invoice").Segments
		if len(st) != 1 || st[0].Key != "app/invoice" {
			t.Fatalf("Stats = %+v; want one, at the template's key app/invoice", st)
		}
		if st[0].Reserves < reserves || st[0].Reserves < int64(i+1) {
			t.Errorf("after %d keys: Reserves %d (was %d); want at least one a key, never fewer", i+1, st[0].Reserves, reserves)
		}
		reserves = st[0].Reserves
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.keys) != 1 || !obs.keys["app/invoice"] {
		t.Errorf("the observer saw the keys %v; want only the template's, app/invoice", obs.keys)
	}
	infos := rt.Generators()
	if !infos[1].Keyed || infos[1].Name != "invoice" || infos[2].Keyed {
		t.Errorf("Generators = %+v; want invoice keyed and order not", infos)
	}
}

func TestSource_KeyedAfterCloseFails(t *testing.T) {
	rt, _ := openKeyed(t, keyedConfig)
	nextKeyInt(t, rt, "invoice", "a")
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := source(t, rt, "invoice", "a").Next(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Next after Close: %v; want an error that says the runtime closed", err)
	}
	if ks := rt.Stats("invoice").Keys; ks.Live != 0 {
		t.Errorf("KeyStats after Close = %+v; want no live key", ks)
	}
}

func ExampleRuntime_Source_keyed() {
	ctx := context.Background()
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: saas
  stores:
    mem: { type: memory }
  generators:
    invoice:
      strategy: segment
      store: mem
      keyed: true          # a sequence per customer, at saas/invoice/{key}
      max-live-keys: 10000 # open at once; the least recently used closes first
      idle-close: 10m
      codec: [ { prefix: { value: "INV-" } }, { radix: { radix: 10, width: 5, pad-start: true } } ]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(nil))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close()
	for _, customer := range []string{"acme", "acme", "globex"} {
		invoices, err := rt.Source("invoice", customer) // hold it to spare the lookup
		if err != nil {
			fmt.Println(err)
			return
		}
		text, err := invoices.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(customer, text)
	}
	_, err = rt.Source("invoice", "acme/eu")
	fmt.Println(errors.Is(err, cosid.ErrInvalidKey))
	// Output:
	// acme INV-00001
	// acme INV-00002
	// globex INV-00001
	// true
}

// TestSource_KeyedConcurrentFirstCallsOpenTheKeyOnce sends the first calls of a key from
// many goroutines at once: the key opens once, and no id repeats.
func TestSource_KeyedConcurrentFirstCallsOpenTheKeyOnce(t *testing.T) {
	for round := range 20 {
		rt, _ := openKeyed(t, keyedConfig)
		var mu sync.Mutex
		seen := map[int64]bool{}
		fresh := source(t, rt, "invoice", "fresh")
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				<-start
				v, err := fresh.NextInt(t.Context())
				mu.Lock()
				defer mu.Unlock()
				if err != nil || seen[v] {
					t.Errorf("round %d: NextInt = %d, %v; want a new id", round, v, err)
				}
				seen[v] = true
			})
		}
		close(start)
		wg.Wait()
		if ks := rt.Stats("invoice").Keys; ks.Opened != 1 || ks.Live != 1 {
			t.Errorf("round %d: KeyStats = %+v; want the key opened once", round, ks)
		}
	}
}
