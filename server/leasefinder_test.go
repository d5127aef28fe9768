package server

import (
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// leaseOnly hides every method of a store but the range and lease contracts: a
// store that cannot look up an owner's lease.
type leaseOnly struct {
	store.RangeStore
	store.SlotLeaseStore
}

func (l leaseOnly) Close() error { return l.RangeStore.Close() }

// TestCompat4x_AdminStoreMakesServersInterchangeable distributes a machine id on one
// server and guards, distributes again and reverts it on another, which finds the
// lease in the store (store.Admin's LeaseOf); on a store that cannot look leases up,
// the other server does not know the instance.
func TestCompat4x_AdminStoreMakesServersInterchangeable(t *testing.T) {
	const q = "?instanceId=pod-1&stable=false&machineBit=2&safeGuardDuration=PT30S"
	type step struct {
		onB          bool
		method, path string
		status       int
		body         string
	}
	for _, tc := range []struct {
		name  string
		store func() store.RangeStore
		steps []step
	}{
		{"Admin", func() store.RangeStore { return memstore.New() }, []step{
			{false, "POST", "/machines/ns" + q, 200, `{"machineId":0,"lastTimeStamp":0}`},
			{true, "PATCH", "/machines/ns" + q, 200, ""},
			{true, "POST", "/machines/ns" + q, 200, `{"machineId":0,"lastTimeStamp":0}`},
			{true, "DELETE", "/machines/ns" + q, 200, ""},
			{false, "PATCH", "/machines/ns" + q, 400, `{"code":"M-02"`},
		}},
		{"LeasesOnly", func() store.RangeStore { m := memstore.New(); return leaseOnly{m, m} }, []step{
			{false, "POST", "/machines/ns" + q, 200, `{"machineId":0,"lastTimeStamp":0}`},
			{true, "PATCH", "/machines/ns" + q, 400, `{"code":"M-02"`},
			{false, "PATCH", "/machines/ns" + q, 200, ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.store()
			a, b := newServer(t, st, WithCompat4x()), newServer(t, st, WithCompat4x())
			for i, s := range tc.steps {
				srv := a
				if s.onB {
					srv = b
				}
				status, _, body := do(t, srv, s.method, s.path, "")
				if status != s.status || len(body) < len(s.body) || body[:len(s.body)] != s.body {
					t.Errorf("step %d %s %s: %d %s, want %d %s", i, s.method, s.path, status, body, s.status, s.body)
				}
			}
		})
	}
}
