package servicesim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
)

// token is every simulated server's bearer token, of every role.
const token = "s1m-t0ken"

// Result is what one schedule did and found.
type Result struct {
	Scenario string
	Seed     uint64
	Steps    int
	IDs      int64 // values handed out and checked
	Calls    int64 // client calls made
	Errors   int64 // client calls that failed (no server of the store answered, a stream cut…)
	Faults   int64 // servers taken down, hung, restarted; clients restarted; keys evicted
	// Failure is the first broken promise, "" for none: a value of a generator (or
	// key) handed out twice, or a call that failed although a server of its store
	// was answering through the whole call.
	Failure string
	Log     []string // the last actions before the end
}

func (r Result) String() string {
	return fmt.Sprintf("%s seed %d: %d steps, %d calls (%d failed), %d faults, %d ids checked",
		r.Scenario, r.Seed, r.Steps, r.Calls, r.Errors, r.Faults, r.IDs)
}

// world is what every scenario plays on: the network, the servers, the checker and
// the schedule's random source.
type world struct {
	rng   *rand.Rand
	net   *network
	check *checker
	res   *Result

	mu   sync.Mutex
	log  []string
	stop []func() // run at the end, last first
}

func newWorld(scenario string, seed uint64, res *Result) *world {
	res.Scenario, res.Seed = scenario, seed
	return &world{rng: rand.New(rand.NewPCG(seed, 0x5e41ce)), net: newNetwork(), check: newChecker(), res: res}
}

func (w *world) note(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log = append(w.log, time.Now().UTC().Format("15:04:05.000 ")+fmt.Sprintf(format, args...))
	if len(w.log) > 40 {
		w.log = w.log[len(w.log)-40:]
	}
}

func (w *world) atEnd(f func()) { w.stop = append(w.stop, f) }

// end stops everything the run started, so that the bubble's goroutines exit, and
// fills in the result.
func (w *world) end() {
	for i := len(w.stop) - 1; i >= 0; i-- {
		w.stop[i]()
	}
	if f := w.check.finish(); f != "" {
		w.check.fail("%s", f)
	}
	w.res.Failure = w.check.failure
	w.res.IDs = w.check.ids
	w.res.Log = w.log
}

func (w *world) count(n *int64) { atomic.AddInt64(n, 1) }

// client is the HTTP client of every simulated process: it dials the network.
func (w *world) client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: w.net.dial, MaxIdleConnsPerHost: 4}}
}

// h2cClient is client speaking HTTP/2 without TLS, as ReadRanges needs.
func (w *world) h2cClient() *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Client{Transport: &http.Transport{DialContext: w.net.dial, Protocols: p}}
}

// svc is a cosid serve on a host of the network.
type svc struct {
	name string
	host *host
	url  string

	rt  *cosid.Runtime
	hs  *http.Server
	srv *server.Server
}

// serve starts a cosid serve named name with runtime rt, and opts beside the token.
func (w *world) serve(name string, rt *cosid.Runtime, opts ...server.Option) *svc {
	// h2c beside HTTP/1.1: ReadRanges streams both ways, which needs HTTP/2.
	srv, err := server.New(rt, append([]server.Option{server.WithLogger(nil), server.WithToken(token), server.WithH2C(true)}, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("servicesim: server %s: %v", name, err))
	}
	s := &svc{name: name, host: w.net.listen(name), url: "http://" + name + ":80", rt: rt, srv: srv}
	s.hs = srv.HTTPServer(name + ":80")
	ln := listener{h: s.host, n: w.net}
	go s.hs.Serve(ln)
	w.atEnd(func() { s.hs.Close(); ln.Close() })
	return s
}

// runtime opens a runtime of cfg whose every store is st.
func (w *world) runtime(cfg cosid.Config, st store.RangeStore) *cosid.Runtime {
	rt, err := cosid.Open(context.Background(), cfg, cosid.WithLogger(nil),
		cosid.WithStoreWrapper(func(_, _ string, _ store.RangeStore) store.RangeStore { return shared{st.(sharedStore)} }))
	if err != nil {
		panic(fmt.Sprintf("servicesim: runtime: %v", err))
	}
	return rt
}

// sharedStore is what the simulation's stores do: memstore's ranges, and give-backs.
type sharedStore interface {
	store.RangeStore
	store.GiveBacker
}

// shared is a store that several runtimes use, which a runtime's Close leaves open.
type shared struct{ sharedStore }

func (shared) Close() error { return nil }

// fault toggles the state of s: up, down or hung, drawn.
func (w *world) fault(s *svc) string {
	w.count(&w.res.Faults)
	w.net.mu.Lock()
	down, hung := s.host.down, s.host.hung != nil
	w.net.mu.Unlock()
	switch {
	case down || hung:
		w.net.setHung(s.host, false)
		w.net.setDown(s.host, false)
		return "up"
	case w.rng.IntN(2) == 0:
		w.net.setDown(s.host, true)
		return "down"
	default:
		w.net.setHung(s.host, true)
		return "hung"
	}
}

// healthy reports whether s answers: up and not hung.
func (w *world) healthy(s *svc) bool {
	w.net.mu.Lock()
	defer w.net.mu.Unlock()
	return !s.host.down && s.host.hung == nil
}

func (w *world) states(svcs ...*svc) string {
	var b strings.Builder
	for _, s := range svcs {
		w.net.mu.Lock()
		state := "up"
		switch {
		case s.host.down:
			state = "down"
		case s.host.hung != nil:
			state = "hung"
		}
		w.net.mu.Unlock()
		fmt.Fprintf(&b, "%s:%s ", s.name, state)
	}
	return strings.TrimSpace(b.String())
}
