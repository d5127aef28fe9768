package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestOpenLoop_CountsTheWaitOfRequestsDueDuringAStall runs the engine against a
// server on a pipe, in a bubble of fake time, that stalls the third answer for 50ms.
// At 100 req/s on one connection, the four requests due meanwhile wait for the
// connection: from when due they took 40, 30, 20 and 10ms though each took 0ms from
// when sent (coordinated omission, corrected), and the schedule goes on after.
func TestOpenLoop_CountsTheWaitOfRequestsDueDuringAStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const stall = 50 * time.Millisecond
		dial := func(context.Context) (net.Conn, error) {
			client, server := net.Pipe()
			go serve(server, 2, stall)
			return client, nil
		}
		u, _ := url.Parse("http://pipe/next")
		res := openLoop(t.Context(), dial, getRequest(u, ""), 100, 1, time.Second, false)

		if res.sent != 100 || len(res.samples) != 100 || len(res.errors) != 0 {
			t.Fatalf("sent %d, answered %d, errors %v; want 100, 100, none", res.sent, len(res.samples), res.errors)
		}
		var fromSent, fromDue []time.Duration
		for _, s := range res.samples {
			if s.fromSent > 0 {
				fromSent = append(fromSent, s.fromSent)
			}
			if s.fromDue > 0 {
				fromDue = append(fromDue, s.fromDue)
			}
		}
		if want := []time.Duration{stall}; !slices.Equal(fromSent, want) {
			t.Errorf("latencies from when sent over 0: %v; want %v", fromSent, want)
		}
		ms := time.Millisecond
		if want := []time.Duration{50 * ms, 40 * ms, 30 * ms, 20 * ms, 10 * ms}; !slices.Equal(fromDue, want) {
			t.Errorf("latencies from when due over 0: %v; want %v", fromDue, want)
		}
		for _, l := range res.lateness {
			if l != 0 {
				t.Errorf("sent %v late; fake timers are on time", l)
			}
		}
	})
}

// serve answers the HTTP/1.1 requests on conn with a constant, the one numbered
// slow after a wait of stall.
func serve(conn net.Conn, slow int, stall time.Duration) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := 0; ; i++ {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		if i == slow {
			time.Sleep(stall) // sleep-ok: the server's stall, in the bubble's fake time
		}
		if _, err := conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n42\n")); err != nil {
			return
		}
	}
}

func TestOpenLoop_CountsFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := func(context.Context) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				br := bufio.NewReader(server)
				for {
					if _, err := http.ReadRequest(br); err != nil {
						return
					}
					server.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"))
				}
			}()
			return client, nil
		}
		u, _ := url.Parse("http://pipe/next")
		res := openLoop(t.Context(), dial, getRequest(u, "t0ken"), 50, 2, time.Second, false)
		if res.sent != 50 || len(res.samples) != 0 || res.errors["503"] != 50 {
			t.Errorf("sent %d, answered %d, errors %v; want 50 sent, none answered, 50 of 503", res.sent, len(res.samples), res.errors)
		}
	})
}

func TestClosedLoop_SendsEachRequestWhenTheLastIsAnsweredUntilDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = 10 * time.Millisecond
		dial := func(context.Context) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				br := bufio.NewReader(server)
				for {
					if _, err := http.ReadRequest(br); err != nil {
						return
					}
					time.Sleep(every) // sleep-ok: the server's time to answer, in the bubble's fake time
					if _, err := server.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n42\n")); err != nil {
						return
					}
				}
			}()
			return client, nil
		}
		u, _ := url.Parse("http://pipe/next")
		// A rate of 1 a second, which a closed loop does not keep to.
		res := openLoop(t.Context(), dial, getRequest(u, ""), 1, 2, time.Second, true)
		if res.sent != 200 || len(res.samples) != 200 || len(res.errors) != 0 {
			t.Fatalf("sent %d, answered %d, errors %v; want 200 (2 connections, one answer each 10ms for 1s), 200, none", res.sent, len(res.samples), res.errors)
		}
		for _, s := range res.samples {
			if s.fromSent != every || s.fromDue != every {
				t.Fatalf("latency %v from when sent, %v from when due; want %v for both", s.fromSent, s.fromDue, every)
			}
		}
		if len(res.lateness) != 0 {
			t.Errorf("lateness %v; a closed loop has no schedule to be late for", res.lateness)
		}
	})
}
