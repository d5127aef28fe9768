package httpstore_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// counted starts a server that answers every call with status and body, and counts
// the calls that reach it.
func counted(t *testing.T, status int, body string) (string, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(hs.Close)
	return hs.URL, &n
}

// dials is a client whose transport counts the connections it dials, by address.
type dials struct {
	mu sync.Mutex
	n  map[string]int
}

func (d *dials) client() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	var dialer net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.mu.Lock()
		d.n[addr]++
		d.mu.Unlock()
		return dialer.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr}
}

func (d *dials) of(addr string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n[addr]
}

const oneRange = `{"start":"1","end":"2"}`

// TestFailover_RefusedGoesToNextAndIsRemembered: a call to a server that refuses
// the connection goes on to the next, and later calls start at the one that
// answered, without dialing the dead one again.
func TestFailover_RefusedGoesToNextAndIsRemembered(t *testing.T) {
	dead := testenv.ClosedAddr(t)
	live, calls := counted(t, 200, oneRange)
	d := &dials{n: map[string]int{}}
	st, err := httpstore.NewServers([]string{"http://" + dead, live}, httpstore.WithHTTPClient(d.client()))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil {
			t.Fatalf("reserve with the first server down: %v", err)
		}
	}
	if got := calls.Load(); got != 5 {
		t.Errorf("the live server got %d calls, want 5", got)
	}
	if got := d.of(dead); got != 1 {
		t.Errorf("the dead server was dialed %d times, want once: the live one is remembered", got)
	}
	if err := st.Ping(t.Context()); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// TestFailover_ReachedIsNotRetried: a call that reached a server and was answered
// with an error goes to no other server, and neither does a release (or renewal)
// whose connection broke after the request went out (the outcome is unknown).
func TestFailover_ReachedIsNotRetried(t *testing.T) {
	var broken atomic.Int32
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		broken.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(hangUp.Close)
	unavailable, first := counted(t, 503, `{"code":"unavailable","message":"store down"}`)
	sealed, _ := counted(t, 409, `{"code":"sealed","message":"sealed"}`)
	tests := []struct {
		name  string
		url   string
		calls *atomic.Int32
		want  func(error) bool
	}{
		{"Answered503", unavailable, first, func(err error) bool { return errors.Is(err, wire.ErrRemote) }},
		{"AnsweredSealed", sealed, nil, func(err error) bool { return errors.Is(err, store.ErrSealed) }},
		{"ReleaseHungUpAfterTheRequest", hangUp.URL, &broken, func(err error) bool { return err != nil && !errors.Is(err, wire.ErrRemote) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, nextCalls := counted(t, 200, oneRange)
			before := int32(0)
			if tt.calls != nil {
				before = tt.calls.Load()
			}
			st, err := httpstore.NewServers([]string{tt.url, next})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if strings.HasPrefix(tt.name, "Release") {
				err = st.Release(t.Context(), someLease, 0)
			} else {
				_, err = st.Reserve(t.Context(), "k", 1, 0)
			}
			if !tt.want(err) {
				t.Errorf("reserve: %v, want the first server's error", err)
			}
			if n := nextCalls.Load(); n != 0 {
				t.Errorf("the next server got %d calls, want none", n)
			}
			if tt.calls != nil && tt.calls.Load()-before != 1 {
				t.Errorf("the first server got %d calls, want 1", tt.calls.Load()-before)
			}
		})
	}
}

// TestFailover_HandshakeFailureGoesToNext: a server whose TLS certificate is not
// trusted fails the call before any of the request is written, so the call goes to
// the next server.
func TestFailover_HandshakeFailureGoesToNext(t *testing.T) {
	var seen atomic.Int32
	untrusted := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { seen.Add(1) }))
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake it fails
	untrusted.StartTLS()
	t.Cleanup(untrusted.Close)
	live, calls := counted(t, 200, oneRange)
	st, err := httpstore.NewServers([]string{untrusted.URL, live})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	if seen.Load() != 0 || calls.Load() != 1 {
		t.Errorf("calls: %d to the untrusted server, %d to the next; want 0 and 1", seen.Load(), calls.Load())
	}
}

// roundTripFunc is a transport that reports nothing of its connections.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestFailover_SilentTransportOnlyOnDialErrors: with a transport that reports no
// connection events, only a dial error counts as a call that reached no server; a
// reserve whose outcome is unknown is sent once more, to the next server.
func TestFailover_SilentTransportOnlyOnDialErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		err   error
		calls int
	}{
		{"Unknown", errors.New("connection reset"), 2}, // a reserve of unknown outcome is sent once more
		{"Dial", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("refused")}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var hosts []string
			c := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				hosts = append(hosts, r.URL.Host)
				return nil, tt.err
			})}
			st, err := httpstore.NewServers([]string{"http://a.test", "http://b.test"}, httpstore.WithHTTPClient(c))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Reserve(t.Context(), "k", 1, 0); err == nil {
				t.Fatal("reserve succeeded")
			}
			if len(hosts) != tt.calls {
				t.Errorf("calls to %v, want %d", hosts, tt.calls)
			}
		})
	}
}

// TestFailover_AllDownNamesEach: with every server refusing, the error names each.
func TestFailover_AllDownNamesEach(t *testing.T) {
	a, b := testenv.ClosedAddr(t), testenv.ClosedAddr(t)
	st, err := httpstore.NewServers([]string{"http://" + a, "http://" + b})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Reserve(t.Context(), "k", 1, 0)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("reserve with both down: %v, want the dial errors of %s and %s", err, a, b)
	}
}

func TestNewServers_BadURLs(t *testing.T) {
	tests := []struct {
		name string
		urls []string
		want string
	}{
		{"None", nil, "no url"},
		{"Empty", []string{""}, `url ""`},
		{"NoScheme", []string{"http://a", "127.0.0.1:8686"}, `url "127.0.0.1:8686"`},
		{"OtherScheme", []string{"ftp://h"}, "want http://host:port"},
		{"NoHost", []string{"http://"}, "want http://host:port"},
		{"OnlyPort", []string{"http://:8686"}, "want http://host:port"},
		{"Query", []string{"http://h/?a=1"}, "want http://host:port"},
		{"Twice", []string{"http://a:1", "http://b:1", "http://a:1/"}, `urls[2] "http://a:1/" is urls[0] again`},
		{"TwiceOtherCase", []string{"http://A:1", "HTTP://a:1"}, "is urls[0] again"},
		{"UserInfo", []string{"http://a", "http://u:HttpP4ssLEAK@b"}, "user info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := httpstore.NewServers(tt.urls)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "HttpP4ssLEAK") {
				t.Errorf("NewServers(%q) = %v, want an invalid argument saying %s", tt.urls, err, tt.want)
			}
		})
	}
	st, err := httpstore.NewServers([]string{"http://a:1/", "https://b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(st.URLs(), " "); got != "http://a:1 https://b" {
		t.Errorf("URLs() = %s", got)
	}
}
