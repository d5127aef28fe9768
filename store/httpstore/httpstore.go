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
)

// maxAnswer is the largest answer body a Store reads.
const maxAnswer = 1 << 20

// Store is a RangeStore and SlotLeaseStore served by a cosid serve. It is safe for
// concurrent use.
type Store struct {
	bases   []string     // the servers' URLs, without a trailing slash
	pref    atomic.Int32 // the index in bases of the server that last answered
	token   string
	storeID string // WithStoreID: the identity every answer must name
	timeout time.Duration
	tls     *tls.Config
	client  *http.Client
	owned   *http.Transport // closed by Close; nil with WithHTTPClient
	closed  atomic.Bool
}

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
// Pin their store with WithStoreID: nothing else tells two stores apart, and a
// client that goes on to a server of another store repeats ids.
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

// call posts in to path and decodes the answer into out (nil: ignore it), on the
// first server that the call reaches (try).
func (s *Store) call(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// A reservation or acquisition whose outcome is unknown may be made again on
	// another server: whatever the first made is only a gap (S4), or a lease that
	// expires. A renewal or release may not: it would act on the lease twice.
	again := path == wire.PathReserve || path == wire.PathAcquire
	return s.try(ctx, again, func(ctx context.Context, base string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		return s.do(req, base, path, out)
	})
}

// try runs send on the servers in turn, from the one that last answered, until one
// is reached (see the package's doc): each server once, or one server twice. A
// call that reached a server but got no answer (a timeout, a broken connection)
// sends the next calls to the next server; with again, it also goes on to the
// servers it has not tried, and each server gets its share of what is left of ctx,
// so that a server that hangs leaves time for the next. It returns the
// error of the server reached, or the errors of all, joined.
func (s *Store) try(ctx context.Context, again bool, send func(ctx context.Context, base string) error) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	n := len(s.bases)
	first := int(s.pref.Load())
	var errs []error
	for attempt := range max(n, 2) {
		i := (first + attempt) % n
		actx, cancel := ctx, context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok && again && n > 1 && attempt < n-1 {
			actx, cancel = context.WithTimeout(ctx, time.Until(deadline)/time.Duration(n-attempt))
		}
		var w watch
		err := send(httptrace.WithClientTrace(actx, w.trace()), s.bases[i])
		cancel()
		if err != nil && n > 1 && noAnswer(err) && !w.unreached(err) && !plantStick {
			// The server may hang: the next calls start at the next one, and a call
			// that may be made again goes on to the servers it has not tried, each
			// once: two hung servers out of three still leave the third its share.
			s.pref.CompareAndSwap(int32(first), int32((i+1)%n))
			if again && attempt < n-1 && ctx.Err() == nil {
				errs = append(errs, err)
				continue
			}
			return joinErrs(append(errs, err))
		}
		if err == nil || !(w.unreached(err) || isWrongStore(err)) {
			if i != first {
				s.pref.CompareAndSwap(int32(first), int32(i))
			}
			if err == nil {
				return nil
			}
			return joinErrs(append(errs, err))
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return joinErrs(errs)
}

// joinErrs is errs joined, or the one error alone.
func joinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// unanswered is the error of a call that got no answer: the transport failed, or
// the answer broke off. Whether the call took effect is unknown.
type unanswered struct{ error }

func (e unanswered) Unwrap() error { return e.error }

// noAnswer reports whether err is a call's that got no answer.
func noAnswer(err error) bool {
	var u unanswered
	return errors.As(err, &u)
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
		return unanswered{err}
	}
	defer resp.Body.Close()
	if err := s.checkStore(base, resp.Header); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return unanswered{fmt.Errorf("%s: reading the answer: %w", base, err)}
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
