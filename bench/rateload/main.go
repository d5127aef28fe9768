// Command rateload sends GET requests to a URL at a fixed rate whatever the answers'
// latency (an open loop, which wrk is not), with vegeta's attacker
// (github.com/tsenart/vegeta/v12), and prints the rate reached and the latency
// quantiles twice: as vegeta measures them, from when each request was sent, and
// corrected for coordinated omission, from when each request was due (the i-th
// request is due i/rate after the first), so that a stall of the server or of the
// load generator itself shows in the figures instead of slowing the load down.
//
//	rateload -url http://127.0.0.1:8686/v1/generators/order/next -rate 25000 -duration 10s
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

func main() {
	url := flag.String("url", "", "the URL to GET")
	rate := flag.Int("rate", 1000, "requests per second")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	workers := flag.Uint64("workers", 64, "requests in flight at first; more are started when they are all busy")
	maxWorkers := flag.Uint64("max-workers", 1024, "requests in flight at most")
	token := flag.String("token", "", "a bearer token to send")
	flag.Parse()
	if *url == "" || *rate < 1 || *workers < 1 || *maxWorkers < *workers || *duration <= 0 {
		fmt.Fprintln(os.Stderr, "rateload: -url, a -rate ≥ 1, a -duration > 0 and 1 ≤ -workers ≤ -max-workers are required")
		os.Exit(2)
	}
	target := vegeta.Target{Method: http.MethodGet, URL: *url, Header: http.Header{}}
	if *token != "" {
		target.Header.Set("Authorization", "Bearer "+*token)
	}
	attacker := vegeta.NewAttacker(vegeta.Workers(*workers), vegeta.MaxWorkers(*maxWorkers),
		vegeta.KeepAlive(true), vegeta.Connections(int(*maxWorkers)), vegeta.Timeout(10*time.Second))
	pace := vegeta.Rate{Freq: *rate, Per: time.Second}
	interval := time.Second / time.Duration(*rate)

	var m vegeta.Metrics
	type answer struct {
		seq       uint64
		sent, end time.Time
	}
	var answers []answer
	var first time.Time // when request 0, the first the pacer let go, was sent
	for res := range attacker.Attack(vegeta.NewStaticTargeter(target), pace, *duration, "rateload") {
		m.Add(res)
		if res.Seq == 0 {
			first = res.Timestamp
		}
		if res.Error == "" && res.Code == http.StatusOK {
			answers = append(answers, answer{res.Seq, res.Timestamp, res.Timestamp.Add(res.Latency)})
		}
	}
	m.Close()
	if len(answers) == 0 || first.IsZero() {
		fmt.Printf("rate %d/s: no request succeeded (%d sent, errors %v)\n", *rate, m.Requests, m.Errors)
		os.Exit(1)
	}
	// Seq numbers the requests in the order they were started: the i-th was due i
	// intervals after the first, and its latency runs from then.
	due := make([]time.Duration, len(answers))
	for i, a := range answers {
		from := first.Add(time.Duration(a.seq) * interval)
		if a.sent.Before(from) {
			from = a.sent // sent early: vegeta's pacer is ahead of the schedule
		}
		due[i] = a.end.Sub(from)
	}
	slices.Sort(due)
	q := func(p float64) time.Duration {
		return due[min(len(due)-1, int(p*float64(len(due))))].Round(time.Microsecond)
	}
	r := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	fmt.Printf("asked %d req/s  sent %.0f req/s  ok %.0f req/s  success %.4f\n", *rate, m.Rate, m.Throughput, m.Success)
	fmt.Printf("  vegeta latencies  [min, mean, 50, 90, 95, 99, max]  %v, %v, %v, %v, %v, %v, %v\n",
		r(m.Latencies.Min), r(m.Latencies.Mean), r(m.Latencies.P50), r(m.Latencies.P90), r(m.Latencies.P95), r(m.Latencies.P99), r(m.Latencies.Max))
	fmt.Printf("  from when due     [50, 90, 99, 99.9, max]            %v, %v, %v, %v, %v\n",
		q(0.50), q(0.90), q(0.99), q(0.999), r(due[len(due)-1]))
}
