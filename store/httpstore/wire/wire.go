// Package wire is the JSON of the store API that package server serves and package
// httpstore calls: the paths, the request and response bodies, and the error codes that
// carry the store's sentinel errors across HTTP and back.
//
// It is public so that a client in another process or language, or a server of its own,
// can speak the store API without copying its types: docs/server.md describes the same
// routes. The package is versioned with the core module, and a change to a body or a
// code here is a change to the protocol of every deployed cosid serve, so fields are
// only ever added.
package wire

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cosid-go/cosid/store"
)

// The paths of the store API.
const (
	PathReserve = "/v1/store/reserve"
	PathSeal    = "/v1/store/seal"
	PathAcquire = "/v1/store/acquire"
	PathRenew   = "/v1/store/renew"
	PathRelease = "/v1/store/release"
	// PathGiveBack gives a range's unused tail back (store.GiveBacker, S7).
	PathGiveBack = "/v1/store/give-back"
)

// Error is the body of every error answer: a stable code and a message for people.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The error codes of the API.
const (
	CodeInvalidArgument   = "invalid_argument"
	CodeUnauthorized      = "unauthorized"
	CodeNotFound          = "not_found"
	CodeUnknownGenerator  = "unknown_generator"
	CodeMethodNotAllowed  = "method_not_allowed"
	CodeSealed            = "sealed"
	CodeExhausted         = "exhausted"
	CodeNoFreeSlot        = "no_free_slot"
	CodeLeaseLost         = "lease_lost"
	CodeNamespaceConflict = "namespace_conflict"
	CodeTooLarge          = "body_too_large"
	CodeUnsupported       = "unsupported"
	CodeUnavailable       = "unavailable"
	CodeInternal          = "internal"
	CodeForbidden         = "forbidden"              // a cross-site request or a Host the server does not answer
	CodeUnsupportedMedia  = "unsupported_media_type" // a body that is not application/json
	CodeNotSetUp          = "not_set_up"             // the store has no tables yet: a setup error, not an outage
)

// sentinels maps the codes that stand for a store sentinel to it, and its status.
var sentinels = []struct {
	code   string
	err    error
	status int
}{
	{CodeInvalidArgument, store.ErrInvalidArgument, http.StatusBadRequest},
	{CodeSealed, store.ErrSealed, http.StatusConflict},
	{CodeExhausted, store.ErrExhausted, http.StatusConflict},
	{CodeNoFreeSlot, store.ErrNoFreeSlot, http.StatusConflict},
	{CodeLeaseLost, store.ErrLeaseLost, http.StatusConflict},
	{CodeNamespaceConflict, store.ErrNamespaceConflict, http.StatusConflict},
	{CodeUnsupported, errors.ErrUnsupported, http.StatusNotImplemented},
	{CodeAbsent, store.ErrNotFound, http.StatusNotFound},
	{CodeSlotHeld, store.ErrSlotHeld, http.StatusConflict},
	// A store without its tables is not down: retrying does not help until they are
	// made, so it is no 503.
	{CodeNotSetUp, store.ErrNotSetUp, http.StatusInternalServerError},
}

// Classify returns the status and code of a store's error; an error that is none of
// the sentinels means the store could not answer: 503, unavailable.
func Classify(err error) (status int, code string) {
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return s.status, s.code
		}
	}
	return http.StatusServiceUnavailable, CodeUnavailable
}

// Sentinel returns the store sentinel that code stands for, or nil.
func Sentinel(code string) error {
	for _, s := range sentinels {
		if s.code == code {
			return s.err
		}
	}
	return nil
}

// ErrRemote is wrapped by the errors of a server that the store sentinels do not
// cover: it was unavailable, refused the token, or answered something else.
var ErrRemote = errors.New("server error")

// AsError turns an error answer back into an error wrapping its sentinel, or
// ErrRemote.
func AsError(status int, e Error) error {
	if s := Sentinel(e.Code); s != nil {
		return &sentinelError{msg: e.Message, sentinel: s}
	}
	switch e.Code {
	case CodeUnavailable:
		return fmt.Errorf("%w: %d %s: %s", ErrRemote, status, e.Code, e.Message)
	case "":
		return fmt.Errorf("%w: status %d without an error body", ErrRemote, status)
	}
	return fmt.Errorf("%w: %d %s: %s", ErrRemote, status, e.Code, e.Message)
}

// sentinelError is a store's error that came over the wire: the server's message,
// matching the sentinel it named.
type sentinelError struct {
	msg      string
	sentinel error
}

func (e *sentinelError) Error() string { return e.msg }
func (e *sentinelError) Unwrap() error { return e.sentinel }

// ReserveRequest is the body of PathReserve.
type ReserveRequest struct {
	Key           string `json:"key"`
	Size          int64  `json:"size"`
	InitialOffset int64  `json:"initialOffset"`
}

// Range is the answer of PathReserve; its bounds are strings, like every id of the
// API, because they may pass 2^53.
type Range struct {
	Start int64 `json:"start,string"`
	End   int64 `json:"end,string"`
}

// SealRequest is the body of PathSeal.
type SealRequest struct {
	Key string `json:"key"`
}

// GiveBackRequest is the body of PathGiveBack: the key, and the tail [Start, End)
// of the caller's last range to give back, in strings like every id of the API.
type GiveBackRequest struct {
	Key   string `json:"key"`
	Start int64  `json:"start,string"`
	End   int64  `json:"end,string"`
}

// GivenBack is the answer of PathGiveBack: whether the key's next value was
// lowered. A server whose store takes no give-back answers false.
type GivenBack struct {
	Lowered bool `json:"lowered"`
}

// LeaseRequest is the body of PathAcquire. Durations are Go duration strings ("30s");
// a missing Preferred means none.
type LeaseRequest struct {
	Namespace string `json:"namespace"`
	OwnerKey  string `json:"ownerKey"`
	Limit     int    `json:"limit"`
	Tolerance string `json:"tolerance"`
	TTL       string `json:"ttl"`
	Preferred *int   `json:"preferred,omitempty"`
}

// FromLeaseRequest returns the body that asks for req.
func FromLeaseRequest(req store.LeaseRequest) LeaseRequest {
	p := req.Preferred
	return LeaseRequest{Namespace: req.Namespace, OwnerKey: req.OwnerKey, Limit: req.Limit,
		Tolerance: req.Tolerance.String(), TTL: req.TTL.String(), Preferred: &p}
}

// Store returns the request that r stands for, with an error wrapping
// store.ErrInvalidArgument that names a field that is not a duration.
func (r LeaseRequest) Store() (store.LeaseRequest, error) {
	req := store.LeaseRequest{Namespace: r.Namespace, OwnerKey: r.OwnerKey, Limit: r.Limit, Preferred: -1}
	var err error
	if req.Tolerance, err = Duration("tolerance", r.Tolerance); err != nil {
		return req, err
	}
	if req.TTL, err = Duration("ttl", r.TTL); err != nil {
		return req, err
	}
	if r.Preferred != nil {
		req.Preferred = *r.Preferred
	}
	return req, nil
}

// Duration parses the Go duration s of the field name; empty is zero.
func Duration(name, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%w: %s %q is not a duration such as 30s or 1m", store.ErrInvalidArgument, name, s)
	}
	return d, nil
}

// Lease is a store.Lease in JSON.
type Lease struct {
	Namespace   string    `json:"namespace"`
	OwnerKey    string    `json:"ownerKey"`
	Incarnation string    `json:"incarnation"`
	Slot        int       `json:"slot"`
	Fence       int64     `json:"fence"`
	ExpiresAt   time.Time `json:"expiresAt"`
	Floor       int64     `json:"floor"`
	Ceiling     int64     `json:"ceiling"`
	StoreNow    time.Time `json:"storeNow"`
}

// FromLease returns l in JSON.
func FromLease(l store.Lease) Lease { return Lease(l) }

// Store returns the lease l stands for.
func (l Lease) Store() store.Lease { return store.Lease(l) }

// RenewRequest is the body of PathRenew.
type RenewRequest struct {
	Lease Lease  `json:"lease"`
	TTL   string `json:"ttl"`
}

// ReleaseRequest is the body of PathRelease.
type ReleaseRequest struct {
	Lease      Lease `json:"lease"`
	LastUsedMs int64 `json:"lastUsedMs"`
}
