package faultproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	_ "github.com/cosid-go/cosid/store/etcdstore"
	_ "github.com/cosid-go/cosid/store/redisstore"
	_ "github.com/cosid-go/cosid/store/sqlstore"
)

// childEnv carries a child process's job, as JSON.
const childEnv = "COSID_FAULT_CHILD"

// The kinds of generator a child runs.
const (
	kindSegment   = "segment"
	kindPeriodic  = "periodic"
	kindSnowflake = "snowflake"
)

// periodicZone is the periodic generators' zone. Its midnight of 2026-09-06 does not
// exist (clocks go from 00:00 to 01:00), a day that once made a Periodic seal early.
const periodicZone = "America/Santiago"

// job is what a child process does: make ids from one store for a while, with one
// generator of each of its kinds at once, printing them as it goes.
type job struct {
	Kinds     []string
	StoreType string // as in a configuration: sql, redis, etcd
	Store     string // the store's YAML settings
	Key       string // the segment and periodic keys' prefix, and the Snowflake namespace
	Owner     string // the Snowflake owner key; "" lets the generator make one
	Seconds   float64
	TTL       time.Duration // the Snowflake lease
	Slots     int           // the Snowflake namespace's slots
	Reacquire bool          // a Snowflake generator that lost its lease acquires a new one
	Shift     time.Duration // the periodic generator's clock is real time + Shift
}

// newJob returns a segment job on the store of type typ with settings.
func newJob(typ, settings, key string, ttl time.Duration) job {
	return job{Kinds: []string{kindSegment}, StoreType: typ, Store: settings, Key: key, TTL: ttl, Slots: 1}
}

// TestFaultChild is the body of the child processes of the harness tests. It prints
// one line per event, each written at once, so that a kill loses none that was
// printed:
//
//	R a b          segment ids a to b, consecutive
//	P period a b   periodic ids a to b of period, consecutive
//	S id           a Snowflake id
//	ERR kind ms …  Next (or opening the store) failed, as it may, at unix ms
//	BAD kind …     Next failed with an error it must not return
//	LOST           the Snowflake generator lost its lease
//	END            the job ran to its end
func TestFaultChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs only as a child of the harness tests")
	}
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		t.Fatalf("%s=%s: %v", childEnv, spec, err)
	}
	// The drivers log every connection the proxy resets and every failed dial; the
	// errors that matter reach the generators.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	redis.SetLogger(quiet{})
	deadline := time.Now().Add(time.Duration(j.Seconds * float64(time.Second)))
	st := openUntil(t, j, deadline)
	if st == nil {
		fmt.Println("END")
		return
	}
	defer st.Close()
	var wg sync.WaitGroup
	for _, k := range j.Kinds {
		switch k {
		case kindSegment:
			wg.Go(func() { runSegment(t, j, st, deadline) })
		case kindPeriodic:
			wg.Go(func() { runPeriodic(t, j, st, deadline) })
		case kindSnowflake:
			wg.Go(func() { runSnowflake(t, j, st, deadline) })
		default:
			t.Fatalf("job kind %q: want segment, periodic or snowflake", k)
		}
	}
	wg.Wait()
	fmt.Println("END")
}

// quiet drops go-redis's own log lines.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// openUntil opens the job's store, trying again while the proxy refuses it.
func openUntil(t *testing.T, j job, deadline time.Time) store.RangeStore {
	openType, ok := store.Lookup(j.StoreType)
	open := openType.Open
	if !ok {
		t.Fatalf("store type %q is not linked into the test binary", j.StoreType)
	}
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*storeTimeout)
		st, err := open(ctx, testenv.Spec("fault", j.Store, nil))
		cancel()
		if err == nil {
			return st
		}
		fmt.Printf("ERR open %d %v\n", time.Now().UnixMilli(), err)
		time.Sleep(50 * time.Millisecond) // sleep-ok: the child's own retry pace, not a wait in a test
	}
	return nil
}

// batch is the children's batch policy: small ranges, often refilled.
func batch() segment.BatchPolicy {
	p := segment.DefaultBatchPolicy()
	p.Step, p.Lookahead, p.ReserveTimeout = 10, 100*time.Millisecond, 2*storeTimeout
	return p
}

// pace keeps a generating loop near 100,000 ids a second, so that four servers'
// children share two cores with the stores' own goroutines.
func pace(n int) {
	if n%100 == 99 {
		time.Sleep(time.Millisecond) // sleep-ok: paces a child process's loop
	}
}

// runs prints consecutive ids as one line, and starts a new line at least every
// 1000 ids, so that a kill loses few of them.
type runs struct {
	head        string // "R", or "P 20260905"
	first, last int64
	n           int
}

func (r *runs) add(head string, v int64) {
	if head != r.head || v != r.last+1 || r.n%1000 == 0 {
		r.flush()
		r.head, r.first = head, v
	}
	r.last = v
	r.n++
}

func (r *runs) flush() {
	if r.head != "" {
		fmt.Printf("%s %d %d\n", r.head, r.first, r.last)
	}
	r.head, r.n = "", 0
}

func runSegment(t *testing.T, j job, st store.RangeStore, deadline time.Time) {
	g, err := segment.New(st, j.Key+"/order", batch(), segment.WithLogger(nil))
	if err != nil {
		t.Error(err)
		return
	}
	defer g.Close()
	generate(kindSegment, deadline, func() (string, int64, error) {
		v, err := g.Next()
		return "R", v, err
	})
}

func runPeriodic(t *testing.T, j job, st store.RangeStore, deadline time.Time) {
	loc, err := time.LoadLocation(periodicZone)
	if err != nil {
		t.Error(err)
		return
	}
	now := func() time.Time { return time.Now().Add(j.Shift) }
	g, err := segment.NewPeriodic(st, j.Key+"/bill", segment.YearMonthDay, loc, batch(),
		segment.PeriodicPolicy{Prewarm: 5 * time.Second}, segment.WithLogger(nil), segment.WithClock(now))
	if err != nil {
		t.Error(err)
		return
	}
	defer g.Close()
	generate(kindPeriodic, deadline, func() (string, int64, error) {
		id, err := g.Next()
		return "P " + id.Period, id.Value, err
	})
}

// generate prints the ids of next, a segment or periodic generator's, as runs
// under their head, until the deadline.
func generate(kind string, deadline time.Time, next func() (head string, v int64, err error)) {
	var r runs
	for n := 0; time.Now().Before(deadline); n++ {
		head, v, err := next()
		if err != nil {
			r.flush()
			report(kind, err, segment.ErrUnavailable)
			time.Sleep(10 * time.Millisecond) // sleep-ok: the child's own retry pace
			continue
		}
		r.add(head, v)
		pace(n)
	}
	r.flush()
}

func runSnowflake(t *testing.T, j job, st store.RangeStore, deadline time.Time) {
	leases, ok := st.(store.SlotLeaseStore)
	if !ok {
		t.Errorf("store type %s keeps no slot leases", j.StoreType)
		return
	}
	for time.Now().Before(deadline) {
		g := acquire(j, leases, deadline)
		if g == nil {
			return
		}
		lost := stamp(g, deadline)
		g.Close()
		if !lost || !j.Reacquire {
			return
		}
	}
}

// acquire makes a Snowflake generator of the job's namespace, trying again while
// the store is out of reach or every slot is held.
func acquire(j job, leases store.SlotLeaseStore, deadline time.Time) *snowflake.Generator {
	opts := []snowflake.Option{snowflake.WithNamespace(j.Key), snowflake.WithLimit(j.Slots),
		snowflake.WithLeaseTTL(j.TTL), snowflake.WithTolerance(300 * time.Millisecond), snowflake.WithLogger(nil)}
	if j.Owner != "" {
		opts = append(opts, snowflake.WithOwnerKey(j.Owner))
	}
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		g, err := snowflake.New(ctx, leases, snowflake.DefaultLayout(), opts...)
		cancel()
		if err == nil {
			return g
		}
		fmt.Printf("ERR snowflake %d acquire: %v\n", time.Now().UnixMilli(), err)
		time.Sleep(100 * time.Millisecond) // sleep-ok: the child's own retry pace
	}
	return nil
}

// stamp prints g's ids until the deadline, or until g loses its lease (true).
func stamp(g *snowflake.Generator, deadline time.Time) (lost bool) {
	for time.Now().Before(deadline) {
		v, err := g.Next()
		if err != nil {
			if errors.Is(err, snowflake.ErrLeaseLost) {
				fmt.Println("LOST")
				return true
			}
			report(kindSnowflake, err, snowflake.ErrClockBackwards)
			continue
		}
		fmt.Printf("S %d\n", v)
		time.Sleep(200 * time.Microsecond) // sleep-ok: a few thousand ids a second keep the output small
	}
	return false
}

// report prints a failed Next: as ERR when it wraps allowed, else as BAD.
func report(kind string, err, allowed error) {
	if errors.Is(err, allowed) {
		fmt.Printf("ERR %s %d %v\n", kind, time.Now().UnixMilli(), err)
		return
	}
	fmt.Printf("BAD %s %v\n", kind, err)
}
