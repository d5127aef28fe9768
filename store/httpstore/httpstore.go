// Package httpstore is the store type http ("proxy" in CosId 4.x): a RangeStore and
// SlotLeaseStore whose backend is a cosid serve, reached over its store API
// (/v1/store/…). Many processes share the server's store through any number of
// servers; the servers keep no state, so it does not matter which one a call reaches.
//
// A call is retried only when it did not reach the server (the connection was
// refused): a call that reached it may have taken effect, and the generators above a
// store retry with backoff anyway.
//
// A Store trusts its server only so far: it follows no redirect (its token would go
// along), refuses a URL with a user name or password in it (which would show in
// every error), and checks the ranges and leases it is answered before it returns
// them.
//
// Configuration (type http):
//
//	stores:
//	  ids: { type: http, url: "https://ids.internal:8686", token-file: /run/secrets/cosid, timeout: 3s }
package httpstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

// DefaultTimeout bounds every call of a Store without WithTimeout.
const DefaultTimeout = 5 * time.Second

// maxAnswer is the largest answer body a Store reads.
const maxAnswer = 1 << 20

// Store is a RangeStore and SlotLeaseStore served by a cosid serve. It is safe for
// concurrent use.
type Store struct {
	base    string // the server's URL, without a trailing slash
	token   string
	timeout time.Duration
	tls     *tls.Config
	client  *http.Client
	owned   *http.Transport // closed by Close; nil with WithHTTPClient
}

// Option configures a Store.
type Option func(*Store)

// WithToken sends token as the bearer token of every call.
func WithToken(token string) Option { return func(s *Store) { s.token = token } }

// WithTimeout bounds every call, including its retry (default DefaultTimeout). It
// must exceed the server's own store timeout, or a generator may give up on a
// reservation that the server still makes.
func WithTimeout(d time.Duration) Option { return func(s *Store) { s.timeout = d } }

// WithTLSConfig sets the TLS configuration of an https URL, such as the CA that
// signed the server's certificate. WithHTTPClient overrides it.
func WithTLSConfig(cfg *tls.Config) Option { return func(s *Store) { s.tls = cfg } }

// WithHTTPClient makes the calls with c's transport, cookie jar and timeout instead
// of a client of the Store's own; c's redirect policy is replaced by none.
func WithHTTPClient(c *http.Client) Option { return func(s *Store) { s.client = c } }

// noRedirect answers a redirect as the answer itself: a Store follows none, so that
// its token and body reach no other server or port.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// New returns the Store of the cosid serve at baseURL, such as
// "http://127.0.0.1:8686". It makes no call.
func New(baseURL string, opts ...Option) (*Store, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		if u != nil && u.User != nil {
			baseURL = u.Redacted()
		}
		return nil, fmt.Errorf("httpstore: %w: url %q: want http://host:port or https://host:port", store.ErrInvalidArgument, baseURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("httpstore: %w: url %q holds user info, which would show in every error: give the token with token-file (WithToken) instead",
			store.ErrInvalidArgument, u.Redacted())
	}
	s := &Store{base: strings.TrimRight(baseURL, "/"), timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(s)
	}
	if s.timeout <= 0 {
		return nil, fmt.Errorf("httpstore: %w: timeout %v, want > 0", store.ErrInvalidArgument, s.timeout)
	}
	if s.client == nil {
		s.owned = http.DefaultTransport.(*http.Transport).Clone()
		s.owned.MaxIdleConnsPerHost = 64 // the generators of a process call at once
		s.owned.TLSClientConfig = s.tls
		s.client = &http.Client{Transport: s.owned}
	}
	c := *s.client
	c.CheckRedirect = noRedirect
	c.Transport = wrapTransport(c.Transport) // SetTransportWrapper
	s.client = &c
	return s, nil
}

// Timeout reports the bound of every call.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close closes the idle connections of the Store's own client.
func (s *Store) Close() error {
	if s.owned != nil {
		s.owned.CloseIdleConnections()
	}
	return nil
}

// Reserve implements store.RangeStore.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("httpstore: %w", err)
	}
	var r wire.Range
	err := s.call(ctx, wire.PathReserve, wire.ReserveRequest{Key: key, Size: size, InitialOffset: initialOffset}, &r)
	if err != nil {
		return store.Range{}, fmt.Errorf("httpstore: reserve %d of %q: %w", size, key, err)
	}
	if r.Start < 0 || r.End-r.Start != size {
		return store.Range{}, fmt.Errorf("httpstore: reserve %d of %q: %s: %w: the server answered %v, want %d values from a start ≥ 0",
			size, key, s.base, wire.ErrRemote, store.Range(r), size)
	}
	return store.Range(r), nil
}

// Seal implements store.RangeStore.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("httpstore: %w", err)
	}
	if err := s.call(ctx, wire.PathSeal, wire.SealRequest{Key: key}, nil); err != nil {
		return fmt.Errorf("httpstore: seal %q: %w", key, err)
	}
	return nil
}

// Acquire implements store.SlotLeaseStore.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: acquire: %w", err)
	}
	var l wire.Lease
	if err := s.call(ctx, wire.PathAcquire, wire.FromLeaseRequest(req), &l); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: acquire a slot of %q for %q: %w", req.Namespace, req.OwnerKey, err)
	}
	if l.Slot < 0 || l.Slot >= req.Limit || l.Namespace != req.Namespace || l.OwnerKey != req.OwnerKey || l.Incarnation == "" || l.Fence < 1 {
		return store.Lease{}, fmt.Errorf("httpstore: acquire a slot of %q for %q: %s: %w: the server answered slot %d (fence %d, incarnation %q) of %q for %q, want a slot in [0, %d) of the namespace and owner asked for",
			req.Namespace, req.OwnerKey, s.base, wire.ErrRemote, l.Slot, l.Fence, l.Incarnation, l.Namespace, l.OwnerKey, req.Limit)
	}
	return l.Store(), nil
}

// Renew implements store.SlotLeaseStore.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := storekit.CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: renew: %w", err)
	}
	var out wire.Lease
	if err := s.call(ctx, wire.PathRenew, wire.RenewRequest{Lease: wire.FromLease(l), TTL: ttl.String()}, &out); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: renew slot %d of %q: %w", l.Slot, l.Namespace, err)
	}
	if got := out.Store(); got.Slot != l.Slot || got.Fence != l.Fence || got.Incarnation != l.Incarnation || got.OwnerKey != l.OwnerKey || got.Namespace != l.Namespace {
		return store.Lease{}, fmt.Errorf("httpstore: renew slot %d of %q: %s: %w: the server answered slot %d (fence %d) of %q for %q, want the lease renewed",
			l.Slot, l.Namespace, s.base, wire.ErrRemote, got.Slot, got.Fence, got.Namespace, got.OwnerKey)
	}
	return out.Store(), nil
}

// Release implements store.SlotLeaseStore.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := storekit.CheckLease(l); err != nil {
		return fmt.Errorf("httpstore: release: %w", err)
	}
	if err := s.call(ctx, wire.PathRelease, wire.ReleaseRequest{Lease: wire.FromLease(l), LastUsedMs: lastUsedMs}, nil); err != nil {
		return fmt.Errorf("httpstore: release slot %d of %q: %w", l.Slot, l.Namespace, err)
	}
	return nil
}

// call posts in to path and decodes the answer into out (nil: ignore it). A call that
// could not connect is tried once more.
func (s *Store) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		err = s.post(ctx, path, body, out)
		if attempt > 0 || !refused(err) || ctx.Err() != nil {
			return err
		}
	}
}

func (s *Store) post(ctx context.Context, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return s.do(req, path, out)
}

// do sends req, with the token, and decodes its answer into out (nil: ignore it).
func (s *Store) do(req *http.Request, path string, out any) error {
	req.Header.Set("Accept", "application/json")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", s.base, err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return fmt.Errorf("%s: %w: %d, a redirect to %q, which httpstore does not follow (its token would go along): set the server's URL itself",
			s.base, wire.ErrRemote, resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		var e wire.Error
		json.Unmarshal(data, &e) // a body that is not an error leaves e empty, which AsError reports
		return fmt.Errorf("%s: %w", s.base, wire.AsError(resp.StatusCode, e))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: %w: the answer is not the JSON of %s: %v", s.base, wire.ErrRemote, path, err)
	}
	return nil
}

// refused reports whether err means the connection could not be made, so that the
// server cannot have seen the call.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
