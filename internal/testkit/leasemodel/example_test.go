package leasemodel_test

import (
	"fmt"

	"github.com/cosid-go/cosid/internal/testkit/leasemodel"
)

// Explore finds the planted defect, a take that ignores the Ceiling of an owner
// whose lease expired, and the steps that lead to it.
func ExampleExplore() {
	b := leasemodel.Bounds{Owners: 2, Slots: 1, Horizon: 4, TTL: 2, Tolerance: 1, Skew: 1, Takes: 2}
	r, err := leasemodel.Explore(b, leasemodel.TakeIgnoringCeiling, 100_000)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Violation.Invariant + ": " + r.Violation.Detail)
	for _, s := range r.Violation.Trace {
		fmt.Println(" ", s)
	}
	r, _ = leasemodel.Explore(b, leasemodel.RealTake, 100_000)
	fmt.Println("storekit's take:", r.Violation == nil, r.States > 1000)
	// Output:
	// L3: slot 0's new Floor 0 is not above time 2, stamped by fence 1
	//   owner-0 acquire slot 0
	//   tick
	//   tick
	//   owner-1 acquire slot 0
	// storekit's take: true true
}
