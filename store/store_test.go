package store_test

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

func TestCheckKey_NamesWhatIsWrong(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		mention string // "" for a valid key
	}{
		{"Valid", "app/order", ""},
		{"Key255Bytes", strings.Repeat("k", 255), ""},
		{"UnicodeKey", "app/订单/2026", ""},
		{"EmptyKey", "", "key is empty"},
		{"Key256Bytes", strings.Repeat("k", 256), "256 bytes, over the limit of 255"},
		{"KeyNotUTF8", "app/\xc3", "not valid UTF-8"},
		{"KeyWithNUL", "app/\x00", "NUL byte"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := store.CheckKey(tc.key)
			if tc.mention == "" {
				if err != nil {
					t.Fatalf("CheckKey: %v", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("CheckKey = %v, want ErrInvalidArgument saying %q", err, tc.mention)
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
