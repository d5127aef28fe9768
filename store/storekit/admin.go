package storekit

import (
	"fmt"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// CheckFloorRequest reports whether req keeps the rules of store.Admin's RaiseFloor,
// with an error wrapping store.ErrInvalidArgument that names the field. A request
// with a Limit must name a slot below it; one without (the namespace must exist) is
// checked against store.MaxSlots, and the store checks the slot against the
// namespace's limit (L4).
func CheckFloorRequest(req store.FloorRequest) error {
	if err := CheckNamespace(req.Namespace); err != nil {
		return err
	}
	slots := store.MaxSlots
	if req.Limit > 0 {
		slots = req.Limit
	}
	switch {
	case req.Limit < 0 || req.Limit > store.MaxSlots:
		return fmt.Errorf("%w: Limit %d for namespace %q, want 0–%d", store.ErrInvalidArgument, req.Limit, req.Namespace, store.MaxSlots)
	case req.Tolerance < 0:
		return fmt.Errorf("%w: Tolerance %v for namespace %q, want ≥ 0", store.ErrInvalidArgument, req.Tolerance, req.Namespace)
	case req.Slot < 0 || req.Slot >= slots:
		return fmt.Errorf("%w: Slot %d of namespace %q, want 0–%d", store.ErrInvalidArgument, req.Slot, req.Namespace, slots-1)
	case req.FloorMs < 0:
		return fmt.Errorf("%w: FloorMs %d for slot %d of namespace %q, want ≥ 0", store.ErrInvalidArgument, req.FloorMs, req.Slot, req.Namespace)
	}
	return nil
}

// CheckKeys reports whether the arguments of store.Admin's Keys keep its rules, with
// an error wrapping store.ErrInvalidArgument that names the argument.
func CheckKeys(prefix, after string, limit int) error {
	switch {
	case len(prefix) > store.MaxKeyLen || !utf8.ValidString(prefix):
		return fmt.Errorf("%w: prefix %.40q must be 0–%d bytes of UTF-8", store.ErrInvalidArgument, prefix, store.MaxKeyLen)
	case len(after) > store.MaxKeyLen || !utf8.ValidString(after):
		return fmt.Errorf("%w: after %.40q must be 0–%d bytes of UTF-8", store.ErrInvalidArgument, after, store.MaxKeyLen)
	case limit < 1 || limit > store.MaxPage:
		return fmt.Errorf("%w: limit %d, want 1–%d", store.ErrInvalidArgument, limit, store.MaxPage)
	}
	return nil
}

// CheckRaise reports whether the arguments of store.Admin's RaiseTo keep its rules:
// a valid key (store.CheckKey) and a next value ≥ 0.
func CheckRaise(key string, next int64) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	if next < 0 {
		return fmt.Errorf("%w: next value %d for key %q, want ≥ 0", store.ErrInvalidArgument, next, key)
	}
	return nil
}

// CheckLeaseOf reports whether the arguments of store.Admin's LeaseOf keep its rules:
// a valid namespace (CheckNamespace) and owner key (CheckOwnerKey).
func CheckLeaseOf(namespace, ownerKey string) error {
	if err := CheckNamespace(namespace); err != nil {
		return err
	}
	return CheckOwnerKey(ownerKey)
}

// CheckNamespace reports whether namespace is 1–store.MaxNamespaceLen bytes of
// UTF-8, as store.Admin's Slots, LeaseOf and RaiseFloor take it.
func CheckNamespace(namespace string) error {
	if namespace == "" || len(namespace) > store.MaxNamespaceLen || !utf8.ValidString(namespace) {
		return fmt.Errorf("%w: namespace %.40q must be 1–%d bytes of UTF-8", store.ErrInvalidArgument, namespace, store.MaxNamespaceLen)
	}
	return nil
}

// CheckOwnerKey reports whether ownerKey is 1–store.MaxKeyLen bytes of UTF-8.
func CheckOwnerKey(ownerKey string) error {
	if ownerKey == "" || len(ownerKey) > store.MaxKeyLen || !utf8.ValidString(ownerKey) {
		return fmt.Errorf("%w: owner key %.40q must be 1–%d bytes of UTF-8", store.ErrInvalidArgument, ownerKey, store.MaxKeyLen)
	}
	return nil
}

// PrefixBounds returns the keys [lo, hi) that hold exactly the keys of valid UTF-8
// that start with prefix, in byte order: lo is prefix, and hi the least string above
// every such key (the prefix with its last rune stepped up), or ok false when none
// is (an empty prefix, or one of only the highest rune). A store that scans an
// ordered index for store.Admin's Keys uses it to stop at the prefix's end.
func PrefixBounds(prefix string) (lo, hi string, ok bool) {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i] + 1
		if r == 0xD800 { // surrogates are no runes of UTF-8
			r = 0xE000
		}
		if r <= utf8.MaxRune {
			rs[i] = r
			return prefix, string(rs[:i+1]), true
		}
	}
	return prefix, "", false
}
