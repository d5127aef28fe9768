// Package store holds the contracts between CosId's generators and the stores that back
// them: RangeStore for segments, SlotLeaseStore for Snowflake machine ids, the sentinel
// errors every store wraps, and a registry through which configured stores are opened.
//
// The package imports nothing of the project. Stores live in sub-packages (memstore,
// sqlstore, …) and prove they keep the contract with the test kit in storetest. A
// store's writer finds the helpers that keep the contract's rules (argument checks,
// the slot-row arithmetic of L2 and L3, call timeouts) in storekit, as a database
// driver's writer finds them in database/sql/driver.
package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Range is the half-open interval [Start, End) of values a RangeStore reserved.
type Range struct{ Start, End int64 }

// Len reports how many values r holds.
func (r Range) Len() int64 { return r.End - r.Start }

// String returns r as "[start, end)".
func (r Range) String() string { return fmt.Sprintf("[%d, %d)", r.Start, r.End) }

// RangeStore reserves ranges of a key's sequence. Implementations are safe for
// concurrent use, also by several processes sharing one backend.
//
// Every store keeps the invariants S1–S6 (see storetest):
//
//	S1 ranges of one key never overlap and grow strictly in completion order
//	S2 a new key's first range starts at initialOffset; of concurrent first reservations only one creates it
//	S3 the returned range is the truth: callers never infer a boundary
//	S4 gaps are allowed (a timeout, a crash, a discarded range), duplicates never
//	S5 values lie in [0, math.MaxInt64): past it ErrExhausted, never a wrap-around
//	S6 a sealed key is never recreated; runtime code never deletes a key
//
// A store may also take back the unused tail of a range: S7, in GiveBacker.
type RangeStore interface {
	// Reserve atomically reserves [start, start+size) of key; a new key starts at
	// initialOffset. A reservation that would pass math.MaxInt64 fails with
	// ErrExhausted and leaves the key as it was.
	Reserve(ctx context.Context, key string, size, initialOffset int64) (Range, error)
	// Seal makes every later Reserve of key fail with ErrSealed; the value is kept.
	// Sealing a key that does not exist creates it sealed. A store that cannot seal
	// returns an error wrapping errors.ErrUnsupported.
	Seal(ctx context.Context, key string) error
	// Close releases what the store owns. A store given a client (a *sql.DB, a
	// Redis client) by the application leaves that client open.
	Close() error
}

// Timeouter is implemented by stores that bound every call with a timeout. Generators
// check it at start-up: a caller must never give up on a refill that the store would
// still be allowed to finish.
type Timeouter interface {
	Timeout() time.Duration
}

// The sentinel errors. Stores wrap them with the key and the store in question; match
// them with errors.Is.
var (
	// ErrExhausted means the reservation would pass math.MaxInt64 (S5).
	ErrExhausted = errors.New("range exhausted")
	// ErrSealed means the key is sealed and hands out no more ranges (S6).
	ErrSealed = errors.New("key sealed")
	// ErrInvalidArgument means an argument broke the contract's rules; the message
	// names the argument.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrNoFreeSlot means every slot of the namespace is leased.
	ErrNoFreeSlot = errors.New("no free slot")
	// ErrLeaseLost means a renew or release named a lease that is no longer this owner's.
	ErrLeaseLost = errors.New("lease lost")
	// ErrNamespaceConflict means a namespace was asked for with another limit or
	// tolerance than the ones it was created with.
	ErrNamespaceConflict = errors.New("namespace conflict")
	// ErrUnavailable means a store cannot be used now: it is down, did not answer
	// in time, refused the connection or password, or a generator on it has no id
	// for now. It is the one sentinel of an outage: segment.ErrUnavailable, the
	// snowflake package's ErrLeaseLost and ErrClockBackwards, and
	// cosid.ErrUnavailable all match it with errors.Is. Calling again later may
	// succeed without a restart.
	ErrUnavailable = errors.New("unavailable")
	// ErrNotSetUp means a store was reached but is not set up for CosId: its tables
	// (or what else the store needs) are missing. It is no outage, so it does not
	// match ErrUnavailable: an operator must act, and the message says what to run
	// or which setting creates them.
	ErrNotSetUp = errors.New("store not set up")
	// ErrClosed is wrapped by the error of every call of a store after its Close.
	// Calling again never succeeds, and it is no outage: it does not match
	// ErrUnavailable. Each store wraps it with its package's prefix, such as
	// "etcdstore: store closed".
	ErrClosed = errors.New("store closed")
)

// Sentinel returns a sentinel error of its own, with the message msg, that also
// matches parent with errors.Is: the way a package keeps a sentinel of its own, with
// its own words, that is one of the store's. segment.ErrUnavailable is
// Sentinel("no range available", ErrUnavailable).
func Sentinel(msg string, parent error) error { return &sentinel{msg: msg, parent: parent} }

type sentinel struct {
	msg    string
	parent error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.parent }

// MaxKeyLen is the longest key, in bytes, that every store accepts.
const MaxKeyLen = 255

// CheckKey reports whether key is 1–MaxKeyLen bytes of valid UTF-8 without NUL, with an error
// wrapping ErrInvalidArgument that says what is wrong. Generators and tools check a
// configured key with it before they use a store; stores check every key they are
// given with it (storekit.CheckReserve for a Reserve).
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: key is empty", ErrInvalidArgument)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: key %.40q… is %d bytes, over the limit of %d", ErrInvalidArgument, key, len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: key %q is not valid UTF-8", ErrInvalidArgument, key)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("%w: key %q holds a NUL byte, which some stores cannot keep", ErrInvalidArgument, key)
	}
	return nil
}
