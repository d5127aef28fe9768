package storekit_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// A store's Acquire decides with SlotRow: which slot to try (SlotCandidates), and the
// row to write when the slot is free (Take). The new owner's fence is the next one
// (L2), and its floor lies above the last stamp the earlier owner reported (L3).
func ExampleSlotRow_Take() {
	const ttlMs, toleranceMs = 10_000, 1_000
	rows := map[int]storekit.SlotRow{}

	// host-a takes slot 0 at store time 1,000,000 and releases it, having stamped
	// its last id at 1,004,321.
	a := storekit.SlotRow{}.Take("host-a", 1_000_000, ttlMs, toleranceMs)
	released, err := a.Release(1_004_321)
	if err != nil {
		fmt.Println(err)
		return
	}
	rows[0] = released

	// host-b asks for a slot a little later: slot 0 is free, and the lowest.
	now := int64(1_005_000)
	slot := storekit.SlotCandidates(rows, 1024, "host-b", -1, now, 1)[0]
	b := rows[slot].Take("host-b", now, ttlMs, toleranceMs)
	fmt.Println("slot", slot, "fence", b.Fence, "floor", b.FloorMs, "ceiling", b.CeilingMs)

	// host-a's old lease no longer holds the row: its renew or release is lost.
	fmt.Println("host-a holds it:", b.Holds(a.Lease("app", 0, now)))
	// Output:
	// slot 0 fence 2 floor 1004322 ceiling 1016000
	// host-a holds it: false
}

// A lease that expired instead of being released leaves its Ceiling as the highest
// stamp its owner may have used, so the next owner starts above it (L3).
func ExampleSlotRow_NextFloor() {
	expired := storekit.SlotRow{}.Take("host-a", 1_000_000, 10_000, 1_000)
	fmt.Println("ceiling", expired.CeilingMs, "next floor", expired.NextFloor())
	fmt.Println("free at 1,010,000:", expired.Free(1_010_000))
	// Output:
	// ceiling 1011000 next floor 1011001
	// free at 1,010,000: true
}

// A store checks the arguments before it touches its backend, and works out the range
// of a key as it read it with NextRange: a new key starts at its initial offset (S2),
// and no range passes math.MaxInt64 (S5).
func ExampleNextRange() {
	if err := storekit.CheckReserve("app/order", 0, 0); errors.Is(err, store.ErrInvalidArgument) {
		fmt.Println(err)
	}
	r, _ := storekit.NextRange(false, false, 0, 100, 1000)
	fmt.Println("new key:", r)
	r, _ = storekit.NextRange(true, false, r.End, 100, 1000)
	fmt.Println("next:", r)
	_, err := storekit.NextRange(true, false, math.MaxInt64-10, 100, 0)
	fmt.Println(errors.Is(err, store.ErrExhausted))
	// Output:
	// invalid argument: size 0 for key "app/order", want ≥ 1
	// new key: [1000, 1100)
	// next: [1100, 1200)
	// true
}

// A store bounds each call by its timeout with DoCall: a call that runs out says so
// with context.DeadlineExceeded, whatever its client's error said.
func ExampleDoCall() {
	const timeout = 10 * time.Millisecond
	closed := false
	begin := func(ctx context.Context) (context.Context, context.CancelFunc, error) {
		if closed {
			return ctx, func() {}, errors.New("mystore: closed")
		}
		ctx, cancel := storekit.BoundCall(ctx, timeout)
		return ctx, cancel, nil
	}
	// A client that reports the end of the call in its own words.
	slowQuery := func(ctx context.Context) (int64, error) {
		<-ctx.Done()
		return 0, errors.New("driver: query interrupted")
	}
	_, err := storekit.DoCall(context.Background(), begin, slowQuery)
	fmt.Println(errors.Is(err, context.DeadlineExceeded), err)
	closed = true
	_, err = storekit.DoCall(context.Background(), begin, slowQuery)
	fmt.Println(err)
	// Output:
	// true context deadline exceeded: driver: query interrupted
	// mystore: closed
}

// A store whose writes are compare-and-swaps keeps what it last read of a key in the
// key's turn, so that one process's writes of a key wait for each other instead of
// making each other miss.
func ExampleKeyTurns() {
	var turns storekit.KeyTurns[int64] // the key's next value, as last written
	ctx := context.Background()
	for range 3 {
		turn, err := turns.Take(ctx, "app/order")
		if err != nil {
			fmt.Println(err)
			return
		}
		turn.State += 100 // read, compare-and-swap, and keep what was written
		turn.Give()
	}
	turn, _ := turns.Take(ctx, "app/order")
	defer turn.Give()
	fmt.Println(turn.State)
	// Output:
	// 300
}

// A store reads back the JSON rows it wrote with DecodeStrict: a field it never
// writes means the row is not what the store thinks it is.
func ExampleDecodeStrict() {
	var row struct {
		Next   int64 `json:"next"`
		Sealed bool  `json:"sealed"`
	}
	fmt.Println(storekit.DecodeStrict([]byte(`{"next": 1200, "sealed": false}`), &row), row.Next)
	fmt.Println(storekit.DecodeStrict([]byte(`{"next": 1200, "nxt": 1}`), &row))
	// Output:
	// <nil> 1200
	// json: unknown field "nxt"
}

// memoSettings are the settings of the example's configuration type: the address of
// its server and the timeout of its calls.
type memoSettings struct {
	Addr    string        `yaml:"addr"`
	Timeout time.Duration `yaml:"timeout"`
}

// A configuration type checks its settings, decoded by Opener, alike for Check and
// for Open, and only Open dials. In a store package, init registers it:
// store.Register("memo", storekit.Opener(parse, dial)). memstore stands in for the
// client and store that a real dial makes.
func ExampleOpener() {
	const defaultTimeout = 2 * time.Second
	parse := func(spec store.Spec, s memoSettings) (memoSettings, store.Facts, error) {
		if s.Addr == "" {
			return s, store.Facts{}, spec.Invalid("addr", "missing; want the server's host:port")
		}
		timeout, err := spec.Timeout(s.Timeout, defaultTimeout)
		if err != nil {
			return s, store.Facts{}, err
		}
		facts := store.Facts{Timeout: timeout, DefaultTimeout: defaultTimeout, TimeoutSet: s.Timeout != 0, Leases: true}
		s.Timeout = timeout
		return s, facts, nil
	}
	dial := func(ctx context.Context, _ store.Spec, s memoSettings) (store.RangeStore, error) {
		if s.Addr == "down:7000" {
			return nil, fmt.Errorf("memo: dialing %s: connection refused", s.Addr)
		}
		return memstore.New(), nil
	}
	memo := storekit.Opener(parse, dial)

	// The root package makes a Spec of each entry of a configuration's stores; here
	// Decode fills the settings as the YAML would.
	entry := func(s memoSettings) store.Spec {
		return store.Spec{Name: "ids", Path: "cosid.stores.ids", Decode: func(v any) error {
			*v.(*memoSettings) = s
			return nil
		}}
	}
	facts, err := memo.Check(entry(memoSettings{Addr: "10.0.0.1:7000"}))
	fmt.Println("timeout", facts.Timeout, "leases", facts.Leases, err)
	_, err = memo.Check(entry(memoSettings{Timeout: time.Second}))
	fmt.Println(err)
	_, err = memo.Open(context.Background(), entry(memoSettings{Addr: "down:7000"}))
	fmt.Println(err)

	st, err := memo.Open(context.Background(), entry(memoSettings{Addr: "10.0.0.1:7000"}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	r, err := st.Reserve(context.Background(), "order", 100, 1)
	fmt.Println(r, err)
	// Output:
	// timeout 2s leases true <nil>
	// cosid.stores.ids.addr: missing; want the server's host:port
	// cosid.stores.ids: memo: dialing down:7000: connection refused
	// [1, 101) <nil>
}
