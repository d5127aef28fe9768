package storekit_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

func TestCheckRenew_NamesTheBadField(t *testing.T) {
	ok := store.Lease{Namespace: "app", OwnerKey: "host-1", Incarnation: storekit.NewIncarnation(), Slot: 3, Fence: 7}
	if err := storekit.CheckRenew(ok, time.Minute); err != nil {
		t.Fatalf("valid lease: %v", err)
	}
	tests := []struct {
		name    string
		mod     func(*store.Lease)
		ttl     time.Duration
		mention string
	}{
		{"EmptyNamespace", func(l *store.Lease) { l.Namespace = "" }, time.Minute, "Namespace"},
		{"NamespaceNUL", func(l *store.Lease) { l.Namespace = "\x00app" }, time.Minute, "Namespace"},
		{"NamespaceNotUTF8", func(l *store.Lease) { l.Namespace = "app\xfe" }, time.Minute, "Namespace"},
		{"EmptyOwner", func(l *store.Lease) { l.OwnerKey = "" }, time.Minute, "OwnerKey"},
		{"OwnerNUL", func(l *store.Lease) { l.OwnerKey = "host-1\x00" }, time.Minute, "OwnerKey"},
		{"OwnerNotUTF8", func(l *store.Lease) { l.OwnerKey = "\x80host" }, time.Minute, "OwnerKey"},
		{"NoIncarnation", func(l *store.Lease) { l.Incarnation = "" }, time.Minute, "Incarnation"},
		{"SlotNegative", func(l *store.Lease) { l.Slot = -1 }, time.Minute, "Slot -1"},
		{"SlotHuge", func(l *store.Lease) { l.Slot = store.MaxSlots }, time.Minute, "Slot"},
		{"TTLUnderAMillisecond", func(*store.Lease) {}, time.Microsecond, "TTL 1µs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := ok
			tc.mod(&l)
			err := storekit.CheckRenew(l, tc.ttl)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckRenew = %v, want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
}
func TestNewIncarnation_IsAFreshUUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := storekit.NewIncarnation()
		if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '4' || id[18] != '-' || !strings.ContainsRune("89ab", rune(id[19])) || id[23] != '-' {
			t.Fatalf("NewIncarnation() = %q, want a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("NewIncarnation() returned %q twice", id)
		}
		seen[id] = true
	}
}
