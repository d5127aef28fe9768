package metrics_test

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/memstore"
)

// A library user's generator reporting its reservations to a registry.
func Example() {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		panic(err)
	}
	g, err := segment.New(memstore.New(), "app/order", segment.DefaultBatchPolicy(), m.SegmentOption("mem"))
	if err != nil {
		panic(err)
	}
	g.Next()
	g.Close()
	n, _ := testutil.GatherAndCount(reg, "cosid_reservations_total")
	fmt.Println(n, "series of cosid_reservations_total")
	// Output: 1 series of cosid_reservations_total
}

// A runtime's capacity series: the time its Snowflake layout has left, at scrape,
// before any generator is built.
func ExampleNewCapacityCollector() {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  generators:
    event: { strategy: snowflake, machine-id: 1 }
`))
	if err != nil {
		panic(err)
	}
	rt, err := cosid.Open(context.Background(), cfg, cosid.WithLogger(nil))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCapacityCollector(metrics.RuntimeCapacity(rt)))
	mfs, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, mf := range mfs {
		left := time.Duration(mf.GetMetric()[0].GetGauge().GetValue()) * time.Second
		fmt.Println(mf.GetName(), "over a year:", left > 365*24*time.Hour)
	}
	// Output: cosid_snowflake_layout_seconds_left over a year: true
}
