package cosid_test

import (
	"crypto/rand"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// switchProxy forwards loopback connections to a server while it is up; while it is
// down it refuses them (accepts and closes at once), as a server that is down does.
type switchProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	up     bool
	conns  []net.Conn
}

func newSwitchProxy(t *testing.T, target string) *switchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &switchProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.set(false) })
	go p.serve()
	return p
}

func (p *switchProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		up := p.up
		if up {
			p.conns = append(p.conns, c)
		}
		p.mu.Unlock()
		if !up {
			c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *switchProxy) pipe(c net.Conn) {
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, s)
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

// set brings the proxy up or down; down also cuts the open connections.
func (p *switchProxy) set(up bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.up = up
	if !up {
		for _, c := range p.conns {
			c.Close()
		}
		p.conns = nil
	}
}

// TestRuntime_PostgresDownThenUp starts a runtime while its PostgreSQL is down (a
// proxy that refuses connections): Open succeeds, the generators answer
// ErrUnavailable with the server's refusal, and once the proxy forwards again they
// work without a restart.
func TestRuntime_PostgresDownThenUp(t *testing.T) {
	u, err := url.Parse(testenv.Server(t, testenv.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newSwitchProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	ns := "rt-down-" + rand.Text()[:10]
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: ` + ns + `
  stores:
    pg: { type: sql, driver: pgx, dsn: '` + u.String() + `', timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: pg, step: 10, lookahead: 0s }
    event: { strategy: snowflake, store: pg, owner-key: host-a, slots: 4 }
`))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC)}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithRetryClock(clock.Now))
	if err != nil {
		t.Fatalf("Open while the database is down: %v", err)
	}
	defer rt.Close()
	for _, name := range []string{"order", "event"} {
		if _, err := rt.Next(t.Context(), name); !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("Next(%s) while down: %v; want ErrUnavailable, not ErrConfig", name, err)
		}
	}
	proxy.set(true)
	clock.Add(time.Minute)
	if text, err := rt.Next(t.Context(), "order"); err != nil || text != "1" {
		t.Fatalf("Next(order) once the database is back = %q, %v", text, err)
	}
	if _, err := rt.Next(t.Context(), "event"); err != nil {
		t.Fatalf("Next(event) once the database is back: %v", err)
	}
}

// TestRuntime_TypedSegmentStoreDown_MatchesErrUnavailable checks issue 19's two
// ErrUnavailables: the README's typed path, rt.Segment then g.Next, with its
// PostgreSQL down (a proxy that refuses connections), fails with an error that
// matches cosid.ErrUnavailable (and segment.ErrUnavailable, as before), and works
// again once the database is back.
func TestRuntime_TypedSegmentStoreDown_MatchesErrUnavailable(t *testing.T) {
	u, err := url.Parse(testenv.Server(t, testenv.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newSwitchProxy(t, u.Host)
	proxy.set(true)
	u.Host = proxy.ln.Addr().String()
	ns := "rt-typed-" + rand.Text()[:10]
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: ` + ns + `
  stores:
    pg: { type: sql, driver: pgx, dsn: '` + u.String() + `', timeout: 1s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: pg, step: 5, lookahead: 0s, reserve-timeout: 2s }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	order, err := rt.Segment(t.Context(), "order")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := order.Next(); err != nil {
		t.Fatalf("Next while the database is up: %v", err)
	}
	proxy.set(false)
	var downErr error
	for range 20 { // the rest of the range, then the store's refusal
		if _, downErr = order.Next(); downErr != nil {
			break
		}
	}
	if !errors.Is(downErr, cosid.ErrUnavailable) || !errors.Is(downErr, segment.ErrUnavailable) || !errors.Is(downErr, store.ErrUnavailable) {
		t.Fatalf("order.Next() with the database down = %v; want an error matching cosid.ErrUnavailable, segment.ErrUnavailable and store.ErrUnavailable", downErr)
	}
	proxy.set(true)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := order.Next()
		if err == nil {
			break
		}
		if !errors.Is(err, cosid.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("order.Next() once the database is back: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // sleep-ok: paces retries against the real database coming back
	}
}
