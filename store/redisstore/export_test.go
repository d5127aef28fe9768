package redisstore

import (
	"context"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// ClockOffset moves the store clock of the stores opened WithClockOffset on it, for
// the external tests (storetest.ClockMover).
type ClockOffset = clockOffset

// WithClockOffset makes a store read Redis TIME moved by c.
var WithClockOffset = withClockOffset

// Move moves the clock by d, rounded up to a whole millisecond.
func (c *clockOffset) Move(d time.Duration) { c.ms.Add(storekit.MillisUp(d)) }

// Keys of the store's layout, for the tests that read Redis directly.
var (
	RangeKey = rangeKey
	Tag      = tag
)

// NamespaceKeys returns the keys of a namespace: meta, slots, owners, held, busy.
func NamespaceKeys(prefix, namespace string) []string {
	k := namespaceKeys(prefix, namespace)
	return []string{k.meta, k.slots, k.owners, k.held, k.busy}
}

// Reply parsers, for the fuzz tests.
var (
	ParseReserve = parseReserve
	ParseLease   = parseLease
	ParseRelease = parseRelease
)

// AcquireAs acquires with the given incarnation, as a retried call would.
func (s *Store) AcquireAs(ctx context.Context, req store.LeaseRequest, incarnation string) (store.Lease, error) {
	return s.acquire(ctx, req, incarnation)
}

// IndexName names the sorted set of the keys that Keys lists.
var IndexName = indexName

// KeyOfRangeName decodes the name of a range hash, for the fuzz tests.
var KeyOfRangeName = keyOfRangeName

// Admin reply parsers, for the fuzz tests.
var (
	ParseRaise = parseRaise
	ParseFloor = parseFloor
)

// Replication is what ParseReplication read, for the fuzz test.
type Replication struct {
	Role     string
	Replicas int
}

// ParseReplication reads INFO replication, for the fuzz test.
func ParseReplication(info string) (Replication, error) {
	r, err := parseReplication(info)
	return Replication{r.role, r.replicas}, err
}

// SlotRecords counts the slots that the store keeps a row for in namespace's slots
// hash (each row is several fields "slot.name"), for the lease kit
// (storetest.WithSlotRows).
func (s *Store) SlotRecords(ctx context.Context, namespace string) (int, error) {
	fields, err := s.client.HKeys(ctx, namespaceKeys(s.prefix, namespace).slots).Result()
	if err != nil {
		return 0, err
	}
	slots := map[string]bool{}
	for _, f := range fields {
		slot, _, _ := strings.Cut(f, ".")
		slots[slot] = true
	}
	return len(slots), nil
}
