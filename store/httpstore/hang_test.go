package httpstore_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
)

// someLease is a lease as a Store checks it before a renew or release.
var someLease = store.Lease{Namespace: "ns", OwnerKey: "o", Incarnation: "i", Slot: 1, Fence: 1}

// hung starts a server that accepts connections and never reads from them, as the
// kernel does for a process stopped with SIGSTOP, and counts them.
func hung(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String(), &n
}

// TestFailover_N6_HungServer is the review's N6: with urls [A, B] and A hung, a
// reserve and an acquire, whose outcome on A is unknown, are sent once more to B
// within the call's timeout and succeed; a release and a give-back are not (they
// would act twice), but fail alone: after any of them, the next calls go to B, and A gets no more.
func TestFailover_N6_HungServer(t *testing.T) {
	lease := `{"namespace":"ns","ownerKey":"o","incarnation":"i","slot":1,"fence":1,"expiresAt":"2030-01-01T00:00:00Z","storeNow":"2030-01-01T00:00:00Z","floorMs":0}`
	for _, tc := range []struct {
		name     string
		call     func(st *httpstore.Store) error
		answered string
		retried  bool
	}{
		{"Reserve", func(st *httpstore.Store) error { _, err := st.Reserve(t.Context(), "k", 1, 0); return err }, oneRange, true},
		{"Acquire", func(st *httpstore.Store) error {
			_, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: "ns", OwnerKey: "o", Limit: 4, TTL: time.Minute, Preferred: -1})
			return err
		}, lease, true},
		{"Release", func(st *httpstore.Store) error { return st.Release(t.Context(), someLease, 0) }, `{}`, false},
		// A give-back repeated on B after another caller reserved the tail A
		// lowered would lower the value below that caller's range (S7).
		{"GiveBack", func(st *httpstore.Store) error {
			_, err := st.GiveBack(t.Context(), "k", store.Range{Start: 3, End: 10})
			return err
		}, `{"lowered":true}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, aConns := hung(t)
			b, bCalls := counted(t, http.StatusOK, tc.answered)
			st, err := httpstore.NewServers([]string{a, b}, httpstore.WithTimeout(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			err = tc.call(st)
			switch {
			case tc.retried && (err != nil || bCalls.Load() != 1):
				t.Fatalf("%s with A hung: %v, B called %d times; want it made on B", tc.name, err, bCalls.Load())
			case !tc.retried && (!errors.Is(err, store.ErrUnavailable) && err == nil || bCalls.Load() != 0):
				t.Fatalf("%s with A hung: %v, B called %d times; want A's timeout, and B not called", tc.name, err, bCalls.Load())
			}
			before := bCalls.Load()
			for range 3 {
				if err := tc.call(st); err != nil {
					t.Fatalf("%s after A hung: %v, want it made on B", tc.name, err)
				}
			}
			if got := bCalls.Load() - before; got != 3 || aConns.Load() != 1 {
				t.Errorf("after A hung: B got %d calls and A %d connections in all, want 3 and 1", got, aConns.Load())
			}
		})
	}
}

// hangingUp starts a server that hangs up on every request once it has read it,
// and counts them.
func hangingUp(t *testing.T) (string, *atomic.Int32) {
	var n atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL, &n
}

// TestFailover_UnknownReserveGoesOnToEachServerOnce: a reserve whose connection
// broke after its request went out goes on to the next server, and on to the one
// after when that one breaks too (the service simulation's seed 1: two hung servers
// of three left the client failing beside a healthy one), each server once.
func TestFailover_UnknownReserveGoesOnToEachServerOnce(t *testing.T) {
	answers := func(t *testing.T) (string, *atomic.Int32) { return counted(t, http.StatusOK, oneRange) }
	for _, tt := range []struct {
		name        string
		next, third func(t *testing.T) (string, *atomic.Int32)
		ok          bool
		calls       [3]int32
	}{
		{"NextAnswers", answers, answers, true, [3]int32{1, 1, 0}},
		{"NextHangsUpToo", hangingUp, answers, true, [3]int32{1, 1, 1}},
		{"AllHangUp", hangingUp, hangingUp, false, [3]int32{1, 1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			first, firstCalls := hangingUp(t)
			next, nextCalls := tt.next(t)
			third, thirdCalls := tt.third(t)
			st, err := httpstore.NewServers([]string{first, next, third})
			if err != nil {
				t.Fatal(err)
			}
			_, err = st.Reserve(t.Context(), "k", 1, 0)
			if (err == nil) != tt.ok {
				t.Errorf("reserve: %v, want ok %v", err, tt.ok)
			}
			if got := [3]int32{firstCalls.Load(), nextCalls.Load(), thirdCalls.Load()}; got != tt.calls {
				t.Errorf("the reserve was sent %v times to the three servers, want %v: each at most once", got, tt.calls)
			}
		})
	}
}
