package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// findingStore is a memory store that also looks up an owner's lease, as a
// LeaseFinder: it notes every lease its calls hand out.
type findingStore struct {
	*memstore.Store
	mu     sync.Mutex
	leases map[[2]string]store.Lease
}

func (f *findingStore) note(l store.Lease, err error) (store.Lease, error) {
	if err == nil {
		f.mu.Lock()
		f.leases[[2]string{l.Namespace, l.OwnerKey}] = l
		f.mu.Unlock()
	}
	return l, err
}

func (f *findingStore) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	return f.note(f.Store.Acquire(ctx, req))
}

func (f *findingStore) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return f.note(f.Store.Renew(ctx, l, ttl))
}

func (f *findingStore) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	err := f.Store.Release(ctx, l, lastUsedMs)
	if err == nil {
		f.mu.Lock()
		delete(f.leases, [2]string{l.Namespace, l.OwnerKey})
		f.mu.Unlock()
	}
	return err
}

func (f *findingStore) FindLease(_ context.Context, ns, owner string) (store.Lease, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.leases[[2]string{ns, owner}]
	return l, ok, nil
}

// TestCompat4x_LeaseFinderMakesServersInterchangeable distributes a machine id on one
// server and guards, distributes again and reverts it on another, which finds the
// lease in the store.
func TestCompat4x_LeaseFinderMakesServersInterchangeable(t *testing.T) {
	st := &findingStore{Store: memstore.New(), leases: map[[2]string]store.Lease{}}
	a, b := newServer(t, st), newServer(t, st)
	const q = "?instanceId=pod-1&stable=false&machineBit=2&safeGuardDuration=PT30S"
	steps := []struct {
		s            *Server
		method, path string
		status       int
		body         string
	}{
		{a, "POST", "/machines/ns" + q, 200, `{"machineId":0,"lastTimeStamp":0}`},
		{b, "PATCH", "/machines/ns" + q, 200, ""},
		{b, "POST", "/machines/ns" + q, 200, `{"machineId":0,"lastTimeStamp":0}`},
		{b, "DELETE", "/machines/ns" + q, 200, ""},
		{a, "PATCH", "/machines/ns" + q, 400, `{"code":"M-02"`},
	}
	for i, s := range steps {
		status, _, body := do(t, s.s, s.method, s.path, "")
		if status != s.status || (s.body != "" && len(body) < len(s.body)) || body[:len(s.body)] != s.body {
			t.Errorf("step %d %s %s: %d %s, want %d %s", i, s.method, s.path, status, body, s.status, s.body)
		}
	}
}
