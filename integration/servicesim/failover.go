package servicesim

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/memstore"
)

// clientTimeout bounds each call of a simulated client's httpstore, its retry on the
// next server included.
const clientTimeout = time.Second

// Failover plays the review's N1 and N6 on the store API: servers A and B serve one
// store, C serves another (a copy-pasted configuration), and the clients' urls list
// all three with the identity of A's and B's store pinned. Servers go down, hang
// with their connections accepted, and come back, any number at a time; clients
// take ids through segment generators, restart (so that no in-memory check is
// left to refuse a lower range), and probe with a reservation of their own.
//
// It checks that no value is handed out twice, and that a probe fails only when
// neither A nor B answered through it: a server that hangs must not stall calls
// that another server of the store can answer.
func Failover(seed uint64, steps int) (res Result) {
	w := newWorld("failover", seed, &res)
	defer w.end()
	ctx := context.Background()

	one, other := memstore.New(), memstore.New()
	pinned, err := one.StoreID(ctx)
	if err != nil {
		panic(err)
	}
	cfg := cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}
	a := w.serve("a", w.runtime(cfg, one), serverStore(one))
	b := w.serve("b", w.runtime(cfg, one), serverStore(one))
	c := w.serve("c", w.runtime(cfg, other), serverStore(other))
	servers := []*svc{a, b, c}

	clients := make([]*storeClient, 3)
	for i := range clients {
		clients[i] = &storeClient{w: w, name: fmt.Sprintf("client%d", i), urls: []string{a.url, b.url, c.url}, pinned: pinned}
		clients[i].start()
	}
	w.atEnd(func() {
		for _, cl := range clients {
			cl.close()
		}
	})

	for step := range steps {
		res.Steps = step + 1
		switch r := w.rng.IntN(100); {
		case r < 30:
			s := servers[w.rng.IntN(len(servers))]
			w.note("%s %s", s.name, w.fault(s))
		case r < 45:
			cl := clients[w.rng.IntN(len(clients))]
			w.count(&res.Faults)
			w.note("%s restarts", cl.name)
			cl.close()
			cl.start()
		default:
			states := w.states(servers...)
			live := w.healthy(a) || w.healthy(b)
			var wg sync.WaitGroup
			for _, cl := range clients {
				n := 1 + w.rng.IntN(300)
				wg.Go(func() { cl.burst(n, live, states) })
			}
			wg.Wait()
		}
		time.Sleep(time.Duration(w.rng.Int64N(int64(3 * time.Second))))
	}
	return res
}

// storeClient is a process that takes ids of key "order" from the servers' store
// API through httpstore: a generator, and probes beside it.
type storeClient struct {
	w      *world
	name   string
	urls   []string
	pinned string

	life int // incarnation
	st   *httpstore.Store
	gen  *segment.Generator
}

func (c *storeClient) start() {
	c.life++
	st, err := httpstore.NewServers(c.urls, httpstore.WithHTTPClient(c.w.client()), httpstore.WithToken(token),
		httpstore.WithStoreID(c.pinned), httpstore.WithTimeout(clientTimeout))
	if err != nil {
		panic(err)
	}
	p := segment.DefaultBatchPolicy()
	p.Step, p.Lookahead = 50, 2*time.Second
	gen, err := segment.New(st, "order", p, segment.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	c.st, c.gen = st, gen
}

func (c *storeClient) close() {
	c.gen.Close()
	c.st.Close()
}

func (c *storeClient) by() string { return fmt.Sprintf("%s#%d", c.name, c.life) }

// burst takes n ids, then probes: a reservation that must succeed when live (a
// server of the pinned store answered through the step, states).
func (c *storeClient) burst(n int, live bool, states string) {
	w := c.w
	for range n {
		w.count(&w.res.Calls)
		v, err := c.gen.Next()
		if err != nil {
			w.count(&w.res.Errors)
			break
		}
		w.check.took("order", v, v+1, c.by())
	}
	w.count(&w.res.Calls)
	ctx, cancel := context.WithTimeout(context.Background(), 2*clientTimeout)
	defer cancel()
	start := time.Now()
	r, err := c.st.Reserve(ctx, "order", 1, 1)
	if err != nil {
		w.count(&w.res.Errors)
		if live {
			w.check.fail("unavailable with a server of the store answering (%s): %s's reserve failed after %v: %v",
				states, c.by(), time.Since(start), err)
		}
		return
	}
	w.check.took("order", r.Start, r.End, c.by()+" (probe)")
}
