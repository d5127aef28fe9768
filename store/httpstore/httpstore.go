// Package httpstore is the store type http ("proxy" in CosId 4.x): a RangeStore and
// SlotLeaseStore whose backend is a cosid serve, reached over its store API
// (/v1/store/…). Many processes share the server's store through any number of
// servers; the servers keep no state, so it does not matter which one a call reaches.
//
// A Store may know several servers (NewServers, urls: in the configuration). A call
// goes to the server that last answered, and on to the next only when it did not
// reach a server: no connection could be made to it (the dial failed: refused, timed
// out, no such host), or the transport reports that it failed while getting a
// connection, before any of the request was written (a TLS handshake). A call that
// reached a server may have taken effect, so whatever the server answered, or if the
// connection broke after the request went out (the outcome is unknown), the call is
// not sent again to this or any other server: nothing is reserved twice, and the
// generators above a store retry with backoff anyway. With one server, a call that
// did not reach it is tried once more.
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
//	  fleet: { type: http, urls: ["https://ids-a.internal:8686", "https://ids-b.internal:8686"], token-file: /run/secrets/cosid }
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
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
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
	bases   []string     // the servers' URLs, without a trailing slash
	pref    atomic.Int32 // the index in bases of the server that last answered
	token   string
	timeout time.Duration
	tls     *tls.Config
	client  *http.Client
	owned   *http.Transport // closed by Close; nil with WithHTTPClient
	closed  atomic.Bool
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
	return NewServers([]string{baseURL}, opts...)
}

// NewServers returns the Store of the cosid serves at urls, which share one store: a
// call that cannot reach one goes on to the next, from the one that last answered.
// Each URL is http:// or https:// with a host, and none is given twice. It makes no
// call.
func NewServers(urls []string, opts ...Option) (*Store, error) {
	bases, err := checkURLs(urls)
	if err != nil {
		return nil, err
	}
	s := &Store{bases: bases, timeout: DefaultTimeout}
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
		if len(bases) > 1 {
			// A server that does not answer the dial (a host gone, packets dropped)
			// must leave time in the call for the next one.
			dialer := &net.Dialer{Timeout: s.timeout / time.Duration(len(bases)), KeepAlive: 30 * time.Second}
			s.owned.DialContext = dialer.DialContext
		}
		s.client = &http.Client{Transport: s.owned}
	}
	c := *s.client
	c.CheckRedirect = noRedirect
	c.Transport = wrapTransport(c.Transport) // SetTransportWrapper
	s.client = &c
	return s, nil
}

// checkURLs returns urls without their trailing slashes, or an error wrapping
// store.ErrInvalidArgument that names the first one that is no server's URL or
// repeats another.
func checkURLs(urls []string) ([]string, error) {
	if len(urls) == 0 {
		return nil, fmt.Errorf("httpstore: %w: no url: want the URL of at least one cosid serve, such as http://127.0.0.1:8686", store.ErrInvalidArgument)
	}
	bases := make([]string, 0, len(urls))
	seen := make(map[string]int, len(urls))
	for i, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
			return nil, fmt.Errorf("httpstore: %w: url %q: want http://host:port or https://host:port", store.ErrInvalidArgument, redact(raw, u))
		}
		if u.User != nil {
			return nil, fmt.Errorf("httpstore: %w: url %q holds user info, which would show in every error: give the token with token-file (WithToken) instead",
				store.ErrInvalidArgument, redact(raw, u))
		}
		base := strings.TrimRight(raw, "/")
		// Scheme and host are case-insensitive: the same server spelled twice would be
		// tried twice when it is down.
		same := strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.EscapedPath(), "/")
		if j, dup := seen[same]; dup {
			return nil, fmt.Errorf("httpstore: %w: urls[%d] %q is urls[%d] again: give each server once", store.ErrInvalidArgument, i, raw, j)
		}
		seen[same] = i
		bases = append(bases, base)
	}
	return bases, nil
}

// server is the URL of the server that last answered, for the errors about its
// answers.
func (s *Store) server() string { return s.bases[s.pref.Load()] }

// redact returns raw with its user info (a user name may be a token too) replaced,
// also when it does not parse (u nil).
func redact(raw string, u *url.URL) string {
	if u != nil {
		if u.User == nil {
			return raw
		}
		shown := *u
		shown.User = url.User("xxxxx")
		return shown.String()
	}
	i, at := strings.Index(raw, "://"), strings.LastIndex(raw, "@")
	if i < 0 || at < i+3 {
		return raw
	}
	return raw[:i+3] + "xxxxx" + raw[at:]
}

// URLs reports the servers' URLs, in the order they were given.
func (s *Store) URLs() []string { return append([]string(nil), s.bases...) }

// Timeout reports the bound of every call.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Close makes later calls fail with store.ErrClosed, and closes the idle
// connections of the Store's own client.
func (s *Store) Close() error {
	if !s.closed.Swap(true) && s.owned != nil {
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
			size, key, s.server(), wire.ErrRemote, store.Range(r), size)
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
			req.Namespace, req.OwnerKey, s.server(), wire.ErrRemote, l.Slot, l.Fence, l.Incarnation, l.Namespace, l.OwnerKey, req.Limit)
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
			l.Slot, l.Namespace, s.server(), wire.ErrRemote, got.Slot, got.Fence, got.Namespace, got.OwnerKey)
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

// call posts in to path and decodes the answer into out (nil: ignore it), on the
// first server that the call reaches (try).
func (s *Store) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.try(ctx, func(ctx context.Context, base string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		return s.do(req, base, path, out)
	})
}

// try runs send on the servers in turn, from the one that last answered, until one
// is reached (see the package's doc): each server once, or one server twice. It
// returns the error of the server reached, or the errors of all, joined.
func (s *Store) try(ctx context.Context, send func(ctx context.Context, base string) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	n := len(s.bases)
	first := int(s.pref.Load())
	var errs []error
	for attempt := range max(n, 2) {
		i := (first + attempt) % n
		var w watch
		err := send(httptrace.WithClientTrace(ctx, w.trace()), s.bases[i])
		if err == nil || !w.unreached(err) {
			if i != first {
				s.pref.CompareAndSwap(int32(first), int32(i))
			}
			return err
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// watch follows one request through the transport, to tell a call that never had a
// connection from one whose request may have gone out.
type watch struct {
	getting atomic.Bool // the transport asked for a connection
	got     atomic.Bool // and got one: from here on, the request may reach the server
}

func (w *watch) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(string) { w.getting.Store(true) },
		GotConn: func(httptrace.GotConnInfo) { w.got.Store(true) },
	}
}

// unreached reports whether the failed call err cannot have reached its server: its
// connection could not be dialed, or the transport, which reported asking for one,
// never got one. A transport that reports nothing (WithHTTPClient) is judged by the
// dial error alone.
func (w *watch) unreached(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return w.getting.Load() && !w.got.Load()
}

// do sends req, with the token, and decodes its answer into out (nil: ignore it).
func (s *Store) do(req *http.Request, base, path string, out any) error {
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
		return fmt.Errorf("%s: reading the answer: %w", base, err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return fmt.Errorf("%s: %w: %d, a redirect to %q, which httpstore does not follow (its token would go along): set the server's URL itself",
			base, wire.ErrRemote, resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		var e wire.Error
		json.Unmarshal(data, &e) // a body that is not an error leaves e empty, which AsError reports
		return fmt.Errorf("%s: %w", base, wire.AsError(resp.StatusCode, e))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: %w: the answer is not the JSON of %s: %v", base, wire.ErrRemote, path, err)
	}
	return nil
}
