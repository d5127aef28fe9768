package store_test

import (
	"context"
	"crypto/rand"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

func TestCheckReserve(t *testing.T) {
	tests := []struct {
		name         string
		key          string
		size, offset int64
		mention      string // "" for valid arguments
	}{
		{"Valid", "app/order", 1, 0, ""},
		{"Key255Bytes", strings.Repeat("k", 255), 1, 0, ""},
		{"UnicodeKey", "app/订单/2026", 100, 1, ""},
		{"EmptyKey", "", 1, 0, "key is empty"},
		{"Key256Bytes", strings.Repeat("k", 256), 1, 0, "256 bytes, over the limit of 255"},
		{"KeyNotUTF8", "app/\xc3", 1, 0, "not valid UTF-8"},
		{"KeyWithNUL", "app/\x00", 1, 0, "NUL byte"},
		{"SizeZero", "k", 0, 0, "size 0"},
		{"SizeNegative", "k", -1, 0, "size -1"},
		{"OffsetNegative", "k", 1, -7, "initialOffset -7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := store.CheckReserve(tc.key, tc.size, tc.offset)
			if tc.mention == "" {
				if err != nil {
					t.Fatalf("CheckReserve: %v", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckReserve = %v, want ErrInvalidArgument saying %q", err, tc.mention)
			}
		})
	}
}

func TestFits(t *testing.T) {
	tests := []struct {
		next, size int64
		want       bool
	}{
		{0, 1, true},
		{0, math.MaxInt64, true},
		{math.MaxInt64 - 1, 1, true},
		{math.MaxInt64, 1, false},
		{math.MaxInt64 - 5, 6, false},
		{1, math.MaxInt64, false},
		{-1, 1, false},
	}
	for _, tc := range tests {
		if got := store.Fits(tc.next, tc.size); got != tc.want {
			t.Errorf("Fits(%d, %d) = %v, want %v", tc.next, tc.size, got, tc.want)
		}
	}
}

// TestExhaustedAfter_WrapsErrExhaustedAndNamesBoth checks the refusal that stores
// share for a reservation past math.MaxInt64: errors.Is finds ErrExhausted, and the
// text names the size, the next value and the bound.
func TestExhaustedAfter_WrapsErrExhaustedAndNamesBoth(t *testing.T) {
	tests := []struct {
		name       string
		next, size int64
		want       string
	}{
		{"NearTheTop", math.MaxInt64 - 5, 6, "range exhausted: 6 more after 9223372036854775802 would pass 9223372036854775807"},
		{"AtTheTop", math.MaxInt64, 1, "range exhausted: 1 more after 9223372036854775807 would pass 9223372036854775807"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := store.ExhaustedAfter(tt.next, tt.size)
			if !errors.Is(err, store.ErrExhausted) {
				t.Errorf("ExhaustedAfter(%d, %d) = %v, want an error wrapping ErrExhausted", tt.next, tt.size, err)
			}
			if err.Error() != tt.want {
				t.Errorf("ExhaustedAfter(%d, %d) says %q, want %q", tt.next, tt.size, err, tt.want)
			}
		})
	}
}

func TestCheckLeaseRequest(t *testing.T) {
	ok := store.LeaseRequest{Namespace: "app", OwnerKey: "host-1", Limit: 1024, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	if err := store.CheckLeaseRequest(ok); err != nil {
		t.Fatalf("valid request: %v", err)
	}
	tests := []struct {
		name    string
		mod     func(*store.LeaseRequest)
		mention string
	}{
		{"EmptyNamespace", func(r *store.LeaseRequest) { r.Namespace = "" }, "Namespace"},
		{"LongNamespace", func(r *store.LeaseRequest) { r.Namespace = strings.Repeat("n", 101) }, "Namespace"},
		{"NamespaceNUL", func(r *store.LeaseRequest) { r.Namespace = "app\x00x" }, "Namespace"},
		{"NamespaceNotUTF8", func(r *store.LeaseRequest) { r.Namespace = "app\xff" }, "Namespace"},
		{"EmptyOwner", func(r *store.LeaseRequest) { r.OwnerKey = "" }, "OwnerKey"},
		{"OwnerNUL", func(r *store.LeaseRequest) { r.OwnerKey = "host\x00" }, "OwnerKey"},
		{"OwnerNotUTF8", func(r *store.LeaseRequest) { r.OwnerKey = "host-\xc3" }, "OwnerKey"},
		{"LimitZero", func(r *store.LeaseRequest) { r.Limit = 0 }, "Limit 0"},
		{"LimitHuge", func(r *store.LeaseRequest) { r.Limit = store.MaxSlots + 1 }, "Limit"},
		{"ToleranceNegative", func(r *store.LeaseRequest) { r.Tolerance = -1 }, "Tolerance"},
		{"TTLZero", func(r *store.LeaseRequest) { r.TTL = 0 }, "TTL"},
		{"PreferredOutside", func(r *store.LeaseRequest) { r.Preferred = 1024 }, "Preferred slot 1024"},
		{"PreferredBelowNone", func(r *store.LeaseRequest) { r.Preferred = -2 }, "Preferred slot -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := ok
			tc.mod(&req)
			err := store.CheckLeaseRequest(req)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckLeaseRequest = %v, want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	open := func(context.Context, store.Spec) (store.RangeStore, error) { return nil, nil }
	check := func(store.Spec) (store.Facts, error) { return store.Facts{Leases: true}, nil }
	typ := "test-" + rand.Text() // unique, so that -count runs register afresh
	store.Register(typ, store.Type{Check: check, Open: open})
	if got, ok := store.Lookup(typ); !ok {
		t.Error("Lookup of a registered type failed")
	} else if facts, _ := got.Check(store.Spec{}); !facts.Leases {
		t.Errorf("Lookup returned a Type whose Check answers %+v, not the registered one's", facts)
	}
	if _, ok := store.Lookup("never-registered"); ok {
		t.Error("Lookup of an unknown type succeeded")
	}
	if !slices.Contains(store.Types(), typ) {
		t.Errorf("Types() = %v lacks the registered type", store.Types())
	}
	for name, f := range map[string]func(){
		"Duplicate": func() { store.Register(typ, store.Type{Check: check, Open: open}) },
		"EmptyType": func() { store.Register("", store.Type{Check: check, Open: open}) },
		"NilOpen":   func() { store.Register("test-nil-open", store.Type{Check: check}) },
		"NilCheck":  func() { store.Register("test-nil-check", store.Type{Open: open}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			f()
		})
	}
}

func TestRange(t *testing.T) {
	r := store.Range{Start: 5, End: 12}
	if r.Len() != 7 || r.String() != "[5, 12)" {
		t.Errorf("Len %d, String %q", r.Len(), r.String())
	}
}

func TestCheckLease(t *testing.T) {
	ok := store.Lease{Namespace: "app", OwnerKey: "host-1", Incarnation: store.NewIncarnation(), Slot: 3, Fence: 7}
	if err := store.CheckRenew(ok, time.Minute); err != nil {
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
			err := store.CheckRenew(l, tc.ttl)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckRenew = %v, want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
}

func TestNewIncarnation_IsAFreshUUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := store.NewIncarnation()
		if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '4' || id[18] != '-' || !strings.ContainsRune("89ab", rune(id[19])) || id[23] != '-' {
			t.Fatalf("NewIncarnation() = %q, want a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("NewIncarnation() returned %q twice", id)
		}
		seen[id] = true
	}
}

// TestNextRange_S2S5S6 checks the range a Reserve takes from a key as last read: a
// new key starts at initialOffset (S2), a sealed one fails (S6), and one that would
// pass math.MaxInt64 fails with ErrExhausted, naming where it stood (S5).
func TestNextRange_S2S5S6(t *testing.T) {
	tests := []struct {
		name                string
		found, sealed       bool
		next, size, initial int64
		want                store.Range
		wantErr             error
	}{
		{"NewKeyAtInitialOffset", false, false, 0, 10, 100, store.Range{Start: 100, End: 110}, nil},
		{"NewKeyIgnoresNext", false, false, 7, 10, 0, store.Range{Start: 0, End: 10}, nil},
		{"FoundKeyAtNext", true, false, 50, 10, 100, store.Range{Start: 50, End: 60}, nil},
		{"UpToTheTop", true, false, math.MaxInt64 - 10, 10, 0, store.Range{Start: math.MaxInt64 - 10, End: math.MaxInt64}, nil},
		{"SealedFound", true, true, 50, 10, 0, store.Range{}, store.ErrSealed},
		{"SealedBeforeExhausted", true, true, math.MaxInt64, 1, 0, store.Range{}, store.ErrSealed},
		{"SealedWhateverFound", false, true, 0, 1, 0, store.Range{}, store.ErrSealed},
		{"FoundPastTheTop", true, false, math.MaxInt64 - 5, 6, 0, store.Range{}, store.ErrExhausted},
		{"NewKeyPastTheTop", false, false, 0, 2, math.MaxInt64 - 1, store.Range{}, store.ErrExhausted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.NextRange(tt.found, tt.sealed, tt.next, tt.size, tt.initial)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("NextRange = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
