package faultproxy_test

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
)

// echo starts a server that writes back every line it reads.
func echo(t *testing.T) string {
	return serveConns(t, func(c net.Conn) { io.Copy(c, c) })
}

// serveConns starts a loopback server that runs handle on every connection it
// accepts, in a goroutine of its own, and closes the connection after it.
func serveConns(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return ln.Addr().String()
}

func dial(t *testing.T, p *faultproxy.Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func roundTrip(c net.Conn, r *bufio.Reader, msg string) (string, error) {
	if _, err := io.WriteString(c, msg+"\n"); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	return line, err
}

func newProxy(t *testing.T) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestProxy_PassAndDelayForward(t *testing.T) {
	for _, tc := range []struct {
		mode  faultproxy.Mode
		delay time.Duration
	}{{faultproxy.Pass, 0}, {faultproxy.Delay, time.Millisecond}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			p := newProxy(t)
			p.Set(tc.mode, tc.delay)
			c, r := dial(t, p)
			if got, err := roundTrip(c, r, "hello"); err != nil || got != "hello\n" {
				t.Fatalf("round trip = %q, %v", got, err)
			}
		})
	}
}

// TestProxy_HoldKeepsConnectionsOpenAndSilent holds the traffic: a read sees
// neither data nor a close until the hold ends, and then the bytes arrive.
func TestProxy_HoldKeepsConnectionsOpenAndSilent(t *testing.T) {
	p := newProxy(t)
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, "before"); err != nil {
		t.Fatal(err)
	}
	p.Set(faultproxy.Hold, 0)
	if _, err := io.WriteString(c, "held\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if line, err := r.ReadString('\n'); !isTimeout(err) {
		t.Fatalf("read during a hold = %q, %v; want a timeout", line, err)
	}
	c.SetReadDeadline(time.Time{})
	p.Set(faultproxy.Pass, 0)
	if line, err := r.ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("after the hold: %q, %v", line, err)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestProxy_ResetEndsConnectionsAndRefusesNewOnes resets: an open connection fails,
// a new one fails, and after Pass a new one works.
func TestProxy_ResetEndsConnectionsAndRefusesNewOnes(t *testing.T) {
	p := newProxy(t)
	c, r := dial(t, p)
	if _, err := roundTrip(c, r, "before"); err != nil {
		t.Fatal(err)
	}
	p.Set(faultproxy.Reset, 0)
	if _, err := roundTrip(c, r, "after"); err == nil {
		t.Fatal("a connection open at the reset still works")
	}
	// A connection made during the reset fails: at once, when the reset beats the
	// handshake, or at its first round trip.
	if c2, err := net.Dial("tcp", p.Addr()); err == nil {
		defer c2.Close()
		if _, err := roundTrip(c2, bufio.NewReader(c2), "new"); err == nil {
			t.Fatal("a connection made during the reset works")
		}
	}
	p.Set(faultproxy.Pass, 0)
	c3, r3 := dial(t, p)
	if got, err := roundTrip(c3, r3, "again"); err != nil || got != "again\n" {
		t.Fatalf("after the reset: %q, %v", got, err)
	}
}
