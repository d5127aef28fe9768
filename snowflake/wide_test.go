package snowflake_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

func cosIDLayout() snowflake.Layout { return snowflake.CosIDGeneratorLayout() }

type stamp struct {
	tick int64
	seq  int
}

func mustStamp(t *testing.T, g *snowflake.Generator) stamp {
	t.Helper()
	tick, seq, err := g.NextStamp()
	if err != nil {
		t.Fatalf("NextStamp: %v", err)
	}
	return stamp{tick, seq}
}

// TestWideIDs_StampsIncreaseAcrossFullUnits checks a generator of 80-bit ids: its
// Next refuses with ErrWideIDs, and its stamps strictly increase through Units whose
// 65,536 sequences it uses up, on the highest machine of 20 bits.
func TestWideIDs_StampsIncreaseAcrossFullUnits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const machine = 1<<20 - 1
		g := newFixed(t, machine, cosIDLayout(), snowflake.WithWideIDs())
		if g.Machine() != machine {
			t.Errorf("Machine() = %d, want %d", g.Machine(), machine)
		}
		if _, err := g.Next(); !errors.Is(err, snowflake.ErrWideIDs) {
			t.Fatalf("Next of a generator of wide ids: %v, want ErrWideIDs", err)
		}
		prev := mustStamp(t, g)
		units := map[int64]int{prev.tick: 1}
		for range 3 << 16 {
			s := mustStamp(t, g)
			if s.tick < prev.tick || s.tick == prev.tick && s.seq <= prev.seq {
				t.Fatalf("stamp %+v after %+v", s, prev)
			}
			if s.seq < 0 || s.seq >= 1<<16 {
				t.Fatalf("sequence %d outside 16 bits", s.seq)
			}
			units[s.tick]++
			prev = s
		}
		full := 0
		for _, n := range units {
			if n == 1<<16 {
				full++
			}
		}
		if full < 2 {
			t.Errorf("%d Units used all 65,536 sequences, want the fake clock to stand still long enough for 2", full)
		}
	})
}

// TestNextStamp_IsNextWithoutItsMachine checks that NextStamp and Next hand out one
// sequence of ids between them: a stamp composed with the machine is the id Next
// would have made, after the previous and before the next.
func TestNextStamp_IsNextWithoutItsMachine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := testLayout()
		g := newFixed(t, 5, l)
		var ids []int64
		for i := range 5000 {
			if i%3 == 0 {
				ids = append(ids, mustNext(t, g))
				continue
			}
			s := mustStamp(t, g)
			id, err := l.Compose(snowflake.State{Time: l.Epoch.Add(time.Duration(s.tick) * l.Unit), Machine: 5, Sequence: s.seq})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			if i%100 == 0 {
				elapse(time.Millisecond)
			}
		}
		checkIncreasing(t, ids)
	})
}

// TestWideIDs_LayoutRules checks which layouts a generator of wide ids takes: an
// 80-bit layout only with WithWideIDs, time and sequence within 63 bits, a machine
// of at most 30.
func TestWideIDs_LayoutRules(t *testing.T) {
	if _, err := snowflake.NewFixed(1, cosIDLayout(), snowflake.WithLogger(nil)); err == nil || !strings.Contains(err.Error(), "WithWideIDs") {
		t.Errorf("NewFixed of an 80-bit layout without WithWideIDs: %v, want an error naming WithWideIDs", err)
	}
	for _, tt := range []struct {
		name    string
		mod     func(*snowflake.Layout)
		mention string
	}{
		{"TimeAndSequenceOver63", func(l *snowflake.Layout) { l.SequenceBits = 20 }, "44+20 = 64"},
		{"Machine31", func(l *snowflake.Layout) { l.MachineBits = 31 }, "MachineBits 31, want 0–30"},
	} {
		l := cosIDLayout()
		tt.mod(&l)
		_, err := snowflake.NewFixed(1, l, snowflake.WithLogger(nil), snowflake.WithWideIDs())
		if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%s: NewFixed: %v, want ErrInvalidArgument saying %q", tt.name, err, tt.mention)
		}
	}
}

// TestWideIDs_LeaseTwentyBitMachines checks leased machines of 20 bits: the
// namespace has 2^20 slots, and two generators get two of them.
func TestWideIDs_LeaseTwentyBitMachines(t *testing.T) {
	st := memstore.New()
	var machines []int
	for _, owner := range []string{"a", "b"} {
		g, err := snowflake.New(t.Context(), st, cosIDLayout(), snowflake.WithLogger(nil), snowflake.WithOwnerKey(owner), snowflake.WithWideIDs())
		if err != nil {
			t.Fatalf("New for %s: %v", owner, err)
		}
		defer g.Close()
		if _, _, err := g.NextStamp(); err != nil {
			t.Fatalf("NextStamp: %v", err)
		}
		machines = append(machines, g.Machine())
	}
	if machines[0] == machines[1] {
		t.Errorf("two leased generators got machine %d both", machines[0])
	}
	info, err := st.Slots(t.Context(), snowflake.DefaultNamespace)
	if err != nil || info.Limit != 1<<20 {
		t.Errorf("the namespace has limit %d (%v), want 2^20", info.Limit, err)
	}
}
