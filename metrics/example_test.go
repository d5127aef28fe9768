package metrics_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

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
