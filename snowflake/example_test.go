package snowflake_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// A generator takes its machine from a slot lease, so that no two live instances
// share one. The store is shared by every instance of the service.
func ExampleNew() {
	st := memstore.New() // a SQL, Redis or etcd store in production
	g, err := snowflake.New(context.Background(), st, snowflake.DefaultLayout(),
		snowflake.WithNamespace("app/events"), snowflake.WithOwnerKey("host-1"))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close() // releases the slot

	id, err := g.Next()
	if err != nil {
		log.Fatal(err)
	}
	s := g.Layout().Parse(id)
	fmt.Println("machine", s.Machine, "sequence", s.Sequence)
	// Output: machine 0 sequence 0
}

// NewFixed is for deployments that number their machines by hand.
func ExampleNewFixed() {
	g, err := snowflake.NewFixed(7, snowflake.JavaScriptLayout())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	id, err := g.Next()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(id < 1<<53, g.Layout().Parse(id).Machine)
	// Output: true 7
}

// Parse takes an id apart; Compose puts it back together.
func ExampleLayout_Parse() {
	l := snowflake.DefaultLayout()
	const id = 905509192851288106
	s := l.Parse(id)
	fmt.Println(s.Time.Format(time.RFC3339Nano), s.Machine, s.Sequence)

	back, err := l.Compose(s)
	fmt.Println(back == id, err)
	// Output:
	// 2026-10-27T09:30:15.123Z 7 42
	// true <nil>
}

// leaseLog is an Observer that prints the lease events; a real one would set
// metrics, without blocking.
type leaseLog struct{}

func (leaseLog) LeaseAcquired(l store.Lease)        { fmt.Println("acquired slot", l.Slot) }
func (leaseLog) LeaseRenewed(l store.Lease)         { fmt.Println("renewed slot", l.Slot) }
func (leaseLog) LeaseLost(l store.Lease, err error) { fmt.Println("lost slot", l.Slot, err) }
func (leaseLog) LeaseReleased(l store.Lease)        { fmt.Println("released slot", l.Slot) }

// An Observer sees the lease of a generator come and go; Lease tells the current
// one at any time.
func ExampleWithObserver() {
	st := memstore.New()
	g, err := snowflake.New(context.Background(), st, snowflake.DefaultLayout(),
		snowflake.WithNamespace("app/events"), snowflake.WithOwnerKey("host-1"), snowflake.WithObserver(leaseLog{}))
	if err != nil {
		log.Fatal(err)
	}
	l, _ := g.Lease()
	fmt.Println("holding slot", l.Slot, "fence", l.Fence)
	g.Close()
	// Output:
	// acquired slot 0
	// holding slot 0 fence 1
	// released slot 0
}

// A generator of a fixed machine keeps a state file, so that a restart with its
// clock set back stamps no id twice: the file says up to when the machine's ids may
// have been stamped, and a new generator starts after it.
func ExampleWithStateFile() {
	dir, err := os.MkdirTemp("", "state")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "event.state") // on a volume that outlives the process

	g, err := snowflake.NewFixed(3, snowflake.DefaultLayout(), snowflake.WithStateFile(path))
	if err != nil {
		log.Fatal(err) // a file that is not a state file, or another machine's, names its path
	}
	if _, err := g.Next(); err != nil {
		log.Fatal(err)
	}
	g.Close() // writes the time of the last id

	data, _ := os.ReadFile(path)
	lines := strings.Split(string(data), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// cosid snowflake state 1
	// machine 3
}

// A generator of ids wider than an int64, such as CosId 4.x's CosIdGenerator's 80
// bits, hands out each id's time and sequence, which the caller writes with the
// machine.
func ExampleGenerator_NextStamp() {
	g, err := snowflake.NewFixed(7, snowflake.CosIDGeneratorLayout(), snowflake.WithWideIDs())
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	ms, seq, err := g.NextStamp() // the Unit is a millisecond since 1970
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Machine(), seq, time.UnixMilli(ms).After(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)))
	// Output: 7 0 true
}
