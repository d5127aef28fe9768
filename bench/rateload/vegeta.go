package main

import (
	"net/http"
	"strconv"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// attackVegeta sends the requests with vegeta's attacker. Its pacer numbers them in
// the order they were started: the i-th was due i intervals after the first, and
// its latency from when due runs from then.
func attackVegeta(url, token string, rate int, duration time.Duration, workers, maxWorkers uint64) result {
	target := vegeta.Target{Method: http.MethodGet, URL: url, Header: http.Header{}}
	if token != "" {
		target.Header.Set("Authorization", "Bearer "+token)
	}
	attacker := vegeta.NewAttacker(vegeta.Workers(workers), vegeta.MaxWorkers(maxWorkers),
		vegeta.KeepAlive(true), vegeta.Connections(int(maxWorkers)), vegeta.Timeout(10*time.Second))
	interval := time.Second / time.Duration(rate)
	res := result{errors: map[string]int{}}
	var answered []vegeta.Result
	var first, last time.Time // when request 0, the first the pacer let go, was sent; the last answer
	for r := range attacker.Attack(vegeta.NewStaticTargeter(target), vegeta.Rate{Freq: rate, Per: time.Second}, duration, "rateload") {
		res.sent++
		if r.Seq == 0 {
			first = r.Timestamp
		}
		if r.End().After(last) {
			last = r.End()
		}
		switch {
		case r.Error != "":
			res.errors[r.Error]++
		case r.Code != http.StatusOK:
			res.errors[strconv.Itoa(int(r.Code))]++
		default:
			answered = append(answered, *r)
		}
	}
	// Results come in the order they end, so request 0's time is known only now.
	for _, r := range answered {
		from := first.Add(time.Duration(r.Seq) * interval)
		if r.Timestamp.Before(from) {
			from = r.Timestamp // sent early: the pacer is ahead of the schedule
		}
		res.samples = append(res.samples, sample{fromSent: r.Latency, fromDue: r.End().Sub(from)})
	}
	res.elapsed = last.Sub(first)
	return res
}
