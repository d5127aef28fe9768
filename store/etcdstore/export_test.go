package etcdstore

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Clock is the clock of the answers' times of the stores opened WithClock on it,
// moved by the tests: the wall clock plus an offset.
type Clock struct{ offset atomic.Int64 }

// Now returns the wall clock moved by the offset.
func (c *Clock) Now() time.Time { return time.Now().Add(time.Duration(c.offset.Load())) }

// Move moves the clock by d.
func (c *Clock) Move(d time.Duration) { c.offset.Add(int64(d)) }

// WithClock makes a store read c for the times of its answers.
func WithClock(c *Clock) Option { return withClock(c.Now) }

// Misses returns the compare-and-swaps of ranges that found their key changed.
func (s *Store) Misses() int64 { return s.misses.Load() }

// ExpireLeases does what etcd does once the TTL of a slot's etcd lease has passed,
// for every slot under the store's prefix whose lease expires by now: it revokes the
// etcd lease, which deletes the slot's held key. The tests that move the clock call
// it instead of waiting for etcd; etcd's own expiry has a test of its own.
func (s *Store) ExpireLeases(ctx context.Context, now time.Time) error {
	resp, err := s.client.Get(ctx, s.prefix, clientv3.WithPrefix())
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		i := strings.LastIndex(string(kv.Key), "/slots/")
		if i < 0 {
			continue
		}
		if _, ok := slotOf(string(kv.Key), string(kv.Key[:i+len("/slots/")]), 1<<62); !ok {
			continue
		}
		r, err := parseRow(kv.Value)
		if err != nil {
			return err
		}
		if r.EtcdLease != 0 && r.ExpiresMs <= now.UnixMilli() {
			if _, err := s.client.Revoke(ctx, r.EtcdLease); err != nil && !strings.Contains(err.Error(), "lease not found") {
				return err
			}
		}
	}
	return nil
}

// UnsafeVersion reports the releases the gate refuses.
var UnsafeVersion = unsafeVersion

// SlotRecords counts the row keys that the store keeps for the slots of namespace,
// for the lease kit (storetest.WithSlotRows).
func (s *Store) SlotRecords(ctx context.Context, namespace string) (int, error) {
	resp, err := s.client.Get(ctx, s.nsKeys(namespace).slots, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return int(resp.Count), nil
}
