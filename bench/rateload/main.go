// Command rateload sends GET requests to a URL at a fixed rate whatever the answers'
// latency (an open loop, which wrk is not), and prints the rate reached and the
// latency quantiles twice: from when each request was sent, and corrected for
// coordinated omission, from when each request was due, so that a stall of the
// server or of the load generator itself shows in the figures instead of slowing
// the load down.
//
// It has two engines. The default, conns, keeps -conns connections of its own, each
// with a schedule of its own as wrk2 does: connection c's k-th request is due at
// (k·conns + c)/rate after the start, and a connection that falls behind sends at
// once and counts the wait. It writes the request's bytes itself and reads answers
// with net/http's parser, a few microseconds a request, so that on a small machine
// the load generator leaves the server its CPU. The engine vegeta uses vegeta's
// attacker (github.com/tsenart/vegeta/v12), a cross-check at the rates it can send
// (it costs tens of microseconds a request).
//
//	rateload -url http://127.0.0.1:8686/v1/generators/order/next -rate 25000 -duration 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"time"
)

func main() {
	target := flag.String("url", "", "the URL to GET (http only)")
	rate := flag.Int("rate", 1000, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	engine := flag.String("engine", "conns", "conns (connections of its own) or vegeta")
	conns := flag.Int("conns", 64, "conns: connections, each sending rate/conns requests a second")
	workers := flag.Uint64("workers", 64, "vegeta: requests in flight at first; more are started when they are all busy")
	maxWorkers := flag.Uint64("max-workers", 1024, "vegeta: requests in flight at most")
	token := flag.String("token", "", "a bearer token to send")
	closed := flag.Bool("closed", false, "conns: a closed loop, as wrk: each connection sends its next request when its answer comes, for -duration; -rate does not count")
	flag.Parse()
	u, err := url.Parse(*target)
	switch {
	case *target == "" || err != nil || u.Scheme != "http" || u.Host == "":
		fail("-url must be an http:// URL, got %q", *target)
	case *rate < 1 || *duration <= 0:
		fail("-rate must be ≥ 1 and -duration > 0")
	case *engine == "conns" && (*conns < 1 || !*closed && *conns > *rate):
		fail("-conns must be 1 to -rate (%d), got %d", *rate, *conns)
	case *engine == "vegeta" && (*workers < 1 || *maxWorkers < *workers):
		fail("-workers must be 1 to -max-workers")
	case *closed && *engine != "conns":
		fail("-closed is of the engine conns")
	case *engine != "conns" && *engine != "vegeta":
		fail("-engine must be conns or vegeta, got %q", *engine)
	}

	var res result
	if *engine == "vegeta" {
		res = attackVegeta(*target, *token, *rate, *duration, *workers, *maxWorkers)
	} else {
		var d net.Dialer
		dial := func(ctx context.Context) (net.Conn, error) { return d.DialContext(ctx, "tcp", u.Host) }
		res = openLoop(context.Background(), dial, getRequest(u, *token), *rate, *conns, *duration, *closed)
	}
	if len(res.samples) == 0 {
		fmt.Printf("rate %d/s: no request succeeded (%d sent, errors %v)\n", *rate, res.sent, res.errors)
		os.Exit(1)
	}
	asked := *rate
	if *closed {
		asked = 0
	}
	res.print(os.Stdout, asked)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "rateload: "+format+"\n", args...)
	os.Exit(2)
}

// sample is the latency of one answered request, from when it was sent and from
// when it was due.
type sample struct{ fromSent, fromDue time.Duration }

// result is what a run measured.
type result struct {
	samples  []sample        // of the requests answered 200
	lateness []time.Duration // conns: how late the timer sent requests due on a free connection
	sent     int
	elapsed  time.Duration  // from the first request due to the last answer
	errors   map[string]int // by status or error, of the requests that failed
}

// print writes r for a reader: rate is the rate asked, 0 for a closed loop.
func (r *result) print(w *os.File, rate int) {
	sent, due := make([]time.Duration, len(r.samples)), make([]time.Duration, len(r.samples))
	for i, s := range r.samples {
		sent[i], due[i] = s.fromSent, s.fromDue
	}
	secs := r.elapsed.Seconds()
	asked := fmt.Sprintf("asked %d req/s", rate)
	if rate == 0 {
		asked = "closed loop"
	}
	fmt.Fprintf(w, "%s  sent %.0f req/s  ok %.0f req/s  success %.4f", asked,
		float64(r.sent)/secs, float64(len(r.samples))/secs, float64(len(r.samples))/float64(max(r.sent, 1)))
	if len(r.errors) > 0 {
		fmt.Fprintf(w, "  errors %v", r.errors)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  from when sent  [50, 90, 99, 99.9, max]  %s\n", quantiles(sent))
	fmt.Fprintf(w, "  from when due   [50, 90, 99, 99.9, max]  %s\n", quantiles(due))
	if len(r.lateness) > 0 {
		fmt.Fprintf(w, "  sent late by    [50, 90, 99, 99.9, max]  %s (the load generator's timers)\n", quantiles(r.lateness))
	}
}

// quantiles sorts ds and returns its 50th, 90th, 99th, 99.9th percentiles and max.
func quantiles(ds []time.Duration) string {
	slices.Sort(ds)
	q := func(p float64) time.Duration {
		return ds[min(len(ds)-1, int(p*float64(len(ds))))].Round(time.Microsecond)
	}
	return fmt.Sprintf("%v, %v, %v, %v, %v", q(0.50), q(0.90), q(0.99), q(0.999), ds[len(ds)-1].Round(time.Microsecond))
}
