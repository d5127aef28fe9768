package servicesim

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid"
	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/store"
)

// replicas are cosid serves of one configuration on one store, as the replicas of
// a Deployment are: each restart closes the old runtime, which gives back what its
// generators reserved and did not hand out (S7), and opens a new one.
type replicas struct {
	w     *world
	cfg   cosid.Config
	st    store.RangeStore
	names []string // of the replicas, which restarts keep

	mu   sync.Mutex
	svcs []*svc
}

func (w *world) replicas(n int, cfg cosid.Config, st store.RangeStore) *replicas {
	r := &replicas{w: w, cfg: cfg, st: st}
	for i := range n {
		r.names = append(r.names, fmt.Sprintf("r%d", i))
		r.svcs = append(r.svcs, r.start(r.names[i]))
	}
	return r
}

func (r *replicas) start(name string) *svc {
	rt := r.w.runtime(r.cfg, r.st)
	s := r.w.serve(name, rt)
	r.w.atEnd(func() { rt.Close() })
	return s
}

// restart stops replica i, gracefully (as on SIGTERM: the server drains, then the
// runtime closes) or not (a crash: nothing is given back), and starts it again.
func (r *replicas) restart(i int, graceful bool) {
	r.mu.Lock()
	old := r.svcs[i]
	r.mu.Unlock()
	if graceful {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		old.hs.Shutdown(ctx)
		cancel()
		old.rt.Close()
	} else {
		r.w.net.setDown(old.host, true)
		old.hs.Close()
	}
	listener{h: old.host, n: r.w.net}.Close()
	s := r.start(old.name)
	r.mu.Lock()
	r.svcs[i] = s
	r.mu.Unlock()
}

// pick returns a random replica's IdService client.
func (r *replicas) pick() (cosidv1connect.IdServiceClient, string) {
	name := r.names[r.w.rng.IntN(len(r.names))]
	return cosidv1connect.NewIdServiceClient(r.w.authClient(), "http://"+name+":80"), name
}

// pickH2C is pick over HTTP/2 (h2c), for the calls that stream both ways.
func (r *replicas) pickH2C() (cosidv1connect.IdServiceClient, string) {
	name := r.names[r.w.rng.IntN(len(r.names))]
	c := r.w.h2cClient()
	c.Transport = bearer{c.Transport}
	return cosidv1connect.NewIdServiceClient(c, "http://"+name+":80"), name
}

// authClient is a client of the network that sends the servers' token.
func (w *world) authClient() *http.Client {
	c := w.client()
	c.Transport = bearer{c.Transport}
	return c
}

type bearer struct{ next http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+token)
	return b.next.RoundTrip(r)
}

// next takes count ids of name (and key) from c and records them.
func (w *world) next(c cosidv1connect.IdServiceClient, by, name, key string, count int64) {
	w.count(&w.res.Calls)
	resp, err := c.Next(context.Background(), connect.NewRequest(&cosidv1.NextRequest{Name: name, Key: key, Count: count}))
	if err != nil {
		w.count(&w.res.Errors)
		return
	}
	for _, text := range resp.Msg.GetIds() {
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			w.check.fail("%s: id %q of %s/%s is not a decimal: %v", by, text, name, key, err)
			return
		}
		w.check.took(name+"/"+key, v, v+1, by)
	}
}

// nextRange takes a range of count ids of name (and key) from c and records it.
func (w *world) nextRange(c cosidv1connect.IdServiceClient, by, name, key string, count int64) {
	w.count(&w.res.Calls)
	resp, err := c.NextRange(context.Background(), connect.NewRequest(&cosidv1.NextRangeRequest{Name: name, Key: key, Count: count}))
	if err != nil {
		w.count(&w.res.Errors)
		return
	}
	if got := resp.Msg.GetEnd() - resp.Msg.GetStart(); got != count {
		w.check.fail("%s: NextRange of %d ids of %s/%s answered [%d, %d)", by, count, name, key, resp.Msg.GetStart(), resp.Msg.GetEnd())
	}
	w.check.took(name+"/"+key, resp.Msg.GetStart(), resp.Msg.GetEnd(), by)
}
