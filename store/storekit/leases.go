package storekit

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// CheckLease reports whether l has the fields by which a store finds a lease (a
// valid namespace and owner key, an incarnation, a slot ≥ 0), with an error wrapping
// store.ErrInvalidArgument that names the field. A store calls it in Release before
// it touches its backend; a well-formed lease that is not the owner's is
// store.ErrLeaseLost (L2), which only the store can tell.
func CheckLease(l store.Lease) error {
	switch {
	case !validName(l.Namespace, store.MaxNamespaceLen):
		return fmt.Errorf("%w: lease Namespace %.40q must be 1–%d bytes of UTF-8 without NUL", store.ErrInvalidArgument, l.Namespace, store.MaxNamespaceLen)
	case !validName(l.OwnerKey, store.MaxKeyLen):
		return fmt.Errorf("%w: lease OwnerKey %.40q must be 1–%d bytes of UTF-8 without NUL", store.ErrInvalidArgument, l.OwnerKey, store.MaxKeyLen)
	case l.Incarnation == "":
		return fmt.Errorf("%w: lease of slot %d in namespace %q has no Incarnation", store.ErrInvalidArgument, l.Slot, l.Namespace)
	case l.Slot < 0 || l.Slot >= store.MaxSlots:
		return fmt.Errorf("%w: lease Slot %d in namespace %q, want 0–%d", store.ErrInvalidArgument, l.Slot, l.Namespace, store.MaxSlots-1)
	}
	return nil
}

// validName reports whether a namespace or an owner key is 1–maxLen bytes of UTF-8
// without NUL, the rules store.CheckLeaseRequest holds an acquisition to: a lease
// that breaks them was never handed out.
func validName(s string, maxLen int) bool {
	return s != "" && len(s) <= maxLen && utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// CheckRenew reports whether the arguments of a Renew keep the contract's rules: a
// lease that passes CheckLease and a ttl of at least a millisecond.
func CheckRenew(l store.Lease, ttl time.Duration) error {
	if err := CheckLease(l); err != nil {
		return err
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: renew TTL %v for slot %d in namespace %q, want ≥ 1ms", store.ErrInvalidArgument, ttl, l.Slot, l.Namespace)
	}
	return nil
}

// NewIncarnation returns a fresh random UUID (version 4) in its 36-character text
// form, for the Incarnation of a new lease (SlotRow.Take makes one): a renew or a
// release names it, with the fence, to show that the lease is still its owner's (L2).
func NewIncarnation() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
