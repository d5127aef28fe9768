package faultproxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// childEnv carries a child process's job, as JSON.
const childEnv = "COSID_FAULT_CHILD"

// job is what a child process does: make ids of one kind from a store for a while,
// printing them as it goes.
type job struct {
	Kind    string // "segment" or "snowflake"
	Driver  string
	DSN     string
	Tables  sqlstore.Tables
	Key     string // segment key, or Snowflake namespace
	Owner   string // Snowflake owner key
	Seconds float64
}

// storeTimeout bounds each statement of the children's stores.
const storeTimeout = time.Second

// TestFaultChild is the body of the child processes of the harness tests. It prints
// one line per event, each written at once, so that a kill loses none that was
// printed:
//
//	R a b   segment ids a to b, consecutive
//	S id    a Snowflake id
//	ERR ms  Next failed, as it may (ErrUnavailable, ErrLeaseLost), at unix ms
//	BAD msg Next failed with an error it must not return
//	LOST    the Snowflake generator lost its lease
//	END     the job ran to its end
func TestFaultChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs only as a child of the harness tests")
	}
	var j job
	if err := json.Unmarshal([]byte(spec), &j); err != nil {
		t.Fatalf("%s=%s: %v", childEnv, spec, err)
	}
	deadline := time.Now().Add(time.Duration(j.Seconds * float64(time.Second)))
	st := openUntil(t, j, deadline)
	if st == nil {
		fmt.Println("END")
		return
	}
	defer st.Close()
	switch j.Kind {
	case "segment":
		runSegment(t, j, st, deadline)
	case "snowflake":
		runSnowflake(j, st, deadline)
	}
	fmt.Println("END")
}

// openUntil opens the job's store, trying again while the proxy refuses it.
func openUntil(t *testing.T, j job, deadline time.Time) *sqlstore.Store {
	for time.Now().Before(deadline) {
		st, err := sqlstore.Open(j.Driver, j.DSN, storeTimeout, sqlstore.WithInitSchema(true), sqlstore.WithTables(j.Tables), sqlstore.WithLogger(nil))
		if err == nil {
			return st
		}
		fmt.Printf("ERR %d open: %v\n", time.Now().UnixMilli(), err)
		time.Sleep(50 * time.Millisecond) // the child's own retry pace, not a wait in a test
	}
	return nil
}

func runSegment(t *testing.T, j job, st *sqlstore.Store, deadline time.Time) {
	p := segment.DefaultBatchPolicy()
	p.Step, p.Lookahead, p.ReserveTimeout = 10, 100*time.Millisecond, 2*storeTimeout
	g, err := segment.New(st, j.Key, p, segment.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	first, last := int64(-1), int64(-1)
	flush := func() {
		if first >= 0 {
			fmt.Printf("R %d %d\n", first, last)
		}
		first = -1
	}
	for n := 0; time.Now().Before(deadline); n++ {
		v, err := g.Next()
		if err != nil {
			flush()
			report(err, segment.ErrUnavailable)
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if v != last+1 || n%1000 == 0 {
			flush()
			first = v
		}
		last = v
	}
	flush()
}

func runSnowflake(j job, st *sqlstore.Store, deadline time.Time) {
	var g *snowflake.Generator
	for g == nil && time.Now().Before(deadline) {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		var err error
		g, err = snowflake.New(ctx, st, snowflake.DefaultLayout(), snowflake.WithNamespace(j.Key), snowflake.WithOwnerKey(j.Owner),
			snowflake.WithLimit(1), snowflake.WithLeaseTTL(1500*time.Millisecond), snowflake.WithTolerance(300*time.Millisecond),
			snowflake.WithLogger(nil))
		cancel()
		if err != nil {
			fmt.Printf("ERR %d acquire: %v\n", time.Now().UnixMilli(), err)
			time.Sleep(100 * time.Millisecond)
		}
	}
	if g == nil {
		return
	}
	defer g.Close()
	for time.Now().Before(deadline) {
		v, err := g.Next()
		if err != nil {
			if errors.Is(err, snowflake.ErrLeaseLost) {
				fmt.Println("LOST")
				return
			}
			report(err, snowflake.ErrClockBackwards)
			continue
		}
		fmt.Printf("S %d\n", v)
		time.Sleep(200 * time.Microsecond) // a few thousand ids a second keep the output small
	}
}

// report prints a failed Next: as ERR when it wraps allowed, else as BAD.
func report(err, allowed error) {
	if errors.Is(err, allowed) {
		fmt.Printf("ERR %d %v\n", time.Now().UnixMilli(), err)
		return
	}
	fmt.Printf("BAD %v\n", err)
}
