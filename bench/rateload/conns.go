package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// timeout bounds each request, from when it is sent.
const timeout = 10 * time.Second

// getRequest returns the bytes of a GET of u over HTTP/1.1, with keep-alive.
func getRequest(u *url.URL, token string) []byte {
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: rateload\r\n"
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	return []byte(req + "\r\n")
}

// openLoop sends req at rate for duration over conns connections that dial opens,
// connection c's k-th request due at (k·conns + c)/rate after the start. A
// connection sends its next request when it is due, or at once when it is late.
//
// The latency from when due of a request that was due while its connection still
// waited for the previous answer runs from when it was due: a server that stalls a
// connection shows in every request the connection had due meanwhile (coordinated
// omission, corrected). A request due on a free connection counts from when it was
// sent: Go's timers wake up to a millisecond late here (the runtime polls the
// network with a timeout in milliseconds), which is the load generator's doing, not
// the server's. That lateness is reported apart, and it makes the load burstier
// than the schedule, which only makes the server's figures worse.
//
// closed makes it a closed loop instead, as wrk is: each connection sends its next
// request as soon as its answer comes, until duration has passed, and rate does
// not count. It measures the most a server answers, which an open loop at a rate
// above that cannot: it would send every request due, late, long after duration.
func openLoop(ctx context.Context, dial func(context.Context) (net.Conn, error), req []byte, rate, conns int, duration time.Duration, closed bool) result {
	start := time.Now()
	end := start.Add(duration)
	var mu sync.Mutex
	res := result{errors: map[string]int{}}
	var last time.Time
	var wg sync.WaitGroup
	for c := range conns {
		wg.Go(func() {
			var mine []sample
			var lateness []time.Duration
			var prevDone time.Time
			sent := 0
			errs := map[string]int{}
			var conn net.Conn
			var br *bufio.Reader
			timer := time.NewTimer(0)
			<-timer.C
			for k := int64(0); ; k++ {
				due := start.Add(time.Duration((k*int64(conns) + int64(c)) * int64(time.Second) / int64(rate)))
				if closed {
					due = time.Now()
				}
				if !due.Before(end) || ctx.Err() != nil {
					break
				}
				busy := prevDone.After(due)
				if d := time.Until(due); d > 0 {
					timer.Reset(d)
					<-timer.C
				}
				sent++
				if conn == nil {
					var err error
					if conn, err = dial(ctx); err != nil {
						errs["dial: "+err.Error()]++
						conn = nil
						continue
					}
					br = bufio.NewReader(conn)
				}
				at := time.Now()
				// The wait of a request due while its connection was busy is the
				// server's doing and counts; the lateness of a timer is the load
				// generator's and does not, but is reported.
				from := due
				if !busy && !closed {
					from = at
					lateness = append(lateness, at.Sub(due))
				}
				code, closing, err := roundTrip(conn, br, req, at.Add(timeout))
				done := time.Now()
				switch {
				case err != nil:
					errs[err.Error()]++
				case code != http.StatusOK:
					errs[strconv.Itoa(code)]++
				default:
					mine = append(mine, sample{fromSent: done.Sub(at), fromDue: done.Sub(from)})
				}
				prevDone = done
				if err != nil || closing {
					conn.Close()
					conn = nil
				}
			}
			if conn != nil {
				conn.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			res.samples = append(res.samples, mine...)
			res.lateness = append(res.lateness, lateness...)
			res.sent += sent
			for e, n := range errs {
				res.errors[e] += n
			}
			if now := time.Now(); now.After(last) {
				last = now
			}
		})
	}
	wg.Wait()
	res.elapsed = last.Sub(start)
	return res
}

// roundTrip writes req on conn and reads its answer, by deadline. It reports the
// status and whether the server closes the connection after it.
func roundTrip(conn net.Conn, br *bufio.Reader, req []byte, deadline time.Time) (code int, closing bool, err error) {
	if err := conn.SetDeadline(deadline); err != nil {
		return 0, true, err
	}
	if _, err := conn.Write(req); err != nil {
		return 0, true, fmt.Errorf("write: %w", err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return 0, true, fmt.Errorf("read: %w", err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, true, fmt.Errorf("read body: %w", err)
	}
	return resp.StatusCode, resp.Close, nil
}
