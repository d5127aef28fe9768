package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"
)

// capCase is a request that a limit refuses: a 400 naming the setting.
type capCase struct {
	name, method, target, body string
	setting                    string
}

// capsAdminToken is the admin token of the servers whose admin routes checkCaps
// calls: the admin routes are served only with one.
const capsAdminToken = "caps-admin"

func checkCaps(t *testing.T, s *Server, tests []capCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := do(t, s, tt.method, tt.target, tt.body, "Content-Type", "application/json", "Authorization", "Bearer "+capsAdminToken)
			if status != 400 || !strings.Contains(body, tt.setting) {
				t.Errorf("%s %s: %d %s, want 400 naming %s", tt.method, tt.target, status, body, tt.setting)
			}
		})
	}
}

// TestSecurity_H3_MachineBitCapped checks that no network call creates a namespace of
// more slots than max-slots (default 2^16): a 4.x machineBit of 17 or 22, an acquire
// or a raise-floor of 2^22 slots are refused before the store is touched.
func TestSecurity_H3_MachineBitCapped(t *testing.T) {
	st := memstore.New()
	s := newTrustServer(t, openRuntime(t), WithStore(st), WithCompat4x(), WithRoleToken(RoleAdmin, capsAdminToken))
	checkCaps(t, s, []capCase{
		{"MachineBit22", "POST", "/machines/big?instanceId=x&machineBit=22&safeGuardDuration=PT30S", "", settingMaxSlots},
		{"MachineBit17", "POST", "/machines/big?instanceId=x&machineBit=17&safeGuardDuration=PT30S", "", settingMaxSlots},
		{"AcquireLimit", "POST", wire.PathAcquire, `{"namespace":"big","ownerKey":"o","limit":4194304,"tolerance":"1s","ttl":"1m"}`, settingMaxSlots},
		{"RaiseFloorLimit", "POST", wire.PathRaiseFloor, `{"namespace":"big","limit":65537,"tolerance":"1s","slot":0,"floorMs":5}`, settingMaxSlots},
	})
	if _, err := st.Slots(t.Context(), "big"); err == nil {
		t.Error(`namespace "big" was created`)
	}
	if status, _, body := do(t, s, "POST", "/machines/ok?instanceId=x&machineBit=16&safeGuardDuration=PT30S", ""); status != 200 {
		t.Errorf("machineBit 16: %d %s, want 200", status, body)
	}
	raised := newTrustServer(t, openRuntime(t), WithStore(st), WithCompat4x(), WithLimits(Limits{MaxSlots: 1 << 22}))
	if status, _, body := do(t, raised, "POST", "/machines/big?instanceId=x&machineBit=17&safeGuardDuration=PT30S", ""); status != 200 {
		t.Errorf("machineBit 17 with max-slots 2^22: %d %s, want 200", status, body)
	}
}

// TestSecurity_H1_ReserveAndStepCapped checks that one call takes at most max-reserve
// values (default 2^20): a store API reserve, a 4.x step; a raised limit allows more.
func TestSecurity_H1_ReserveAndStepCapped(t *testing.T) {
	st := memstore.New()
	s := newTrustServer(t, openRuntime(t), WithStore(st), WithCompat4x())
	checkCaps(t, s, []capCase{
		{"ReserveMaxInt64", "POST", wire.PathReserve, `{"key":"h1/zz","size":9223372036854775807,"initialOffset":0}`, settingMaxReserve},
		{"ReserveOverDefault", "POST", wire.PathReserve, `{"key":"h1/zz","size":1048577,"initialOffset":0}`, settingMaxReserve},
		{"Step4x", "PATCH", "/segments/app/order?step=9223372036854700000", "", settingMaxReserve},
		{"CreateStep4x", "POST", "/segments/distributor/app/order?offset=0&step=1048577", "", settingMaxReserve},
	})
	if next, err := st.Reserve(t.Context(), "h1/zz", 1, 0); err != nil || next.Start != 0 {
		t.Errorf("h1/zz after the refusals: %v, %v; want it untouched", next, err)
	}
	if status, _, body := do(t, s, "PATCH", "/segments/app/order?step=1048576", ""); status != 200 {
		t.Errorf("step 2^20: %d %s, want 200", status, body)
	}
	raised := newTrustServer(t, openRuntime(t), WithStore(st), WithLimits(Limits{MaxReserve: 1 << 30}))
	status, _, body := do(t, raised, "POST", wire.PathReserve, `{"key":"h1/zz","size":1073741824,"initialOffset":0}`, "Content-Type", "application/json")
	if status != 200 {
		t.Errorf("reserve 2^30 with max-reserve 2^30: %d %s, want 200", status, body)
	}
}

// TestSecurity_M1_LeaseTTLCapped checks that no network call leases a slot for
// longer than max-lease-ttl (default 10m): an acquire or renew until 2319, a 4.x
// distribute or guard with 4.x's "forever".
func TestSecurity_M1_LeaseTTLCapped(t *testing.T) {
	st := memstore.New()
	s := newTrustServer(t, openRuntime(t), WithStore(st), WithCompat4x())
	l, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: "m1", OwnerKey: "o", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1})
	if err != nil {
		t.Fatal(err)
	}
	lease := fmt.Sprintf(`{"namespace":"m1","ownerKey":"o","incarnation":%q,"slot":%d,"fence":%d}`, l.Incarnation, l.Slot, l.Fence)
	const forever = "PT2562047788015215H30M7.807S"
	checkCaps(t, s, []capCase{
		{"Acquire2319", "POST", wire.PathAcquire, `{"namespace":"m1","ownerKey":"evil","limit":4,"tolerance":"1s","ttl":"2562047h"}`, settingMaxLeaseTTL},
		{"RenewOverDefault", "POST", wire.PathRenew, `{"lease":` + lease + `,"ttl":"11m"}`, settingMaxLeaseTTL},
		{"Distribute4xForever", "POST", "/machines/m1x?instanceId=vm&machineBit=2&safeGuardDuration=" + forever, "", settingMaxLeaseTTL},
		{"Guard4xForever", "PATCH", "/machines/m1x?instanceId=vm&safeGuardDuration=" + forever, "", settingMaxLeaseTTL},
	})
	info, err := st.Slots(t.Context(), "m1")
	if err != nil {
		t.Fatal(err)
	}
	for _, sl := range info.Slots {
		if sl.ExpiresAt.After(time.Now().Add(time.Hour)) {
			t.Errorf("slot %d leased until %v", sl.Slot, sl.ExpiresAt)
		}
	}
}

// TestSecurity_H1_4xAPIOptIn checks that the 4.x segment and machine API, which takes
// no token, is served only with WithCompat4x; the 4.x id routes are served either way.
func TestSecurity_H1_4xAPIOptIn(t *testing.T) {
	s := newTrustServer(t, openRuntime(t), WithStore(memstore.New()))
	for _, tt := range []struct{ method, target string }{
		{"POST", "/machines/ns?instanceId=x&machineBit=2&safeGuardDuration=PT30S"},
		{"PATCH", "/machines/ns?instanceId=x&safeGuardDuration=PT30S"},
		{"DELETE", "/machines/ns?instanceId=x"},
		{"POST", "/segments/distributor/ns/name?offset=0&step=10"},
		{"PATCH", "/segments/ns/name?step=10"},
	} {
		if status, _, body := do(t, s, tt.method, tt.target, ""); status != 404 {
			t.Errorf("%s %s without WithCompat4x: %d %s, want 404", tt.method, tt.target, status, body)
		}
	}
	if status, _, body := do(t, s, "GET", "/ids/order", ""); status != 200 {
		t.Errorf("GET /ids/order: %d %s, want 200", status, body)
	}
}

// TestSecurity_L10_4xMapsBounded checks that what a server remembers of 4.x instances
// and segment keys stays within MaxMachines4x however many a caller names.
func TestSecurity_L10_4xMapsBounded(t *testing.T) {
	var m machines4x
	var keys keySet
	for i := range MaxMachines4x + 500 {
		m.keep(store.Lease{Namespace: "ns", OwnerKey: owner4x(fmt.Sprint(i))})
		keys.add(fmt.Sprint("ns/", i))
		if i%3 == 0 {
			m.forget(store.Lease{Namespace: "ns", OwnerKey: owner4x(fmt.Sprint(i))})
		}
	}
	if n := m.len(); n > MaxMachines4x {
		t.Errorf("machines4x keeps %d leases, want at most %d", n, MaxMachines4x)
	}
	if n := keys.len(); n != MaxMachines4x {
		t.Errorf("created4x keeps %d keys, want %d", n, MaxMachines4x)
	}
	if len(m.order) > 2*MaxMachines4x+1 || len(keys.order) != MaxMachines4x {
		t.Errorf("the orders hold %d and %d keys", len(m.order), len(keys.order))
	}
	last := owner4x(fmt.Sprint(MaxMachines4x + 499))
	if _, ok := m.leases[[2]string{"ns", last}]; !ok || !keys.has(fmt.Sprint("ns/", MaxMachines4x+499)) {
		t.Error("the newest entries were forgotten")
	}
}
