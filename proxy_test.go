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
	"github.com/cosid-go/cosid/internal/testenv"
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
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithClock(clock.Now))
	if err != nil {
		t.Fatalf("Open while the database is down: %v", err)
	}
	defer rt.Close()
	for _, name := range []string{"order", "event"} {
		if _, err := rt.Next(name); !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("Next(%s) while down: %v; want ErrUnavailable, not ErrConfig", name, err)
		}
	}
	proxy.set(true)
	clock.Add(time.Minute)
	if text, err := rt.Next("order"); err != nil || text != "1" {
		t.Fatalf("Next(order) once the database is back = %q, %v", text, err)
	}
	if _, err := rt.Next("event"); err != nil {
		t.Fatalf("Next(event) once the database is back: %v", err)
	}
}
