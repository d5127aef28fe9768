// Package faultproxy is a TCP proxy on loopback for tests: it stands between a
// store and its server and, on command, delays the bytes, holds them (half-open
// connections: the peer sees no close and no data, as behind a dead switch), or
// resets every connection and refuses new ones.
//
// The package's tests hold the fault harness too: segment, periodic and Snowflake
// generators in OS processes on PostgreSQL, MariaDB, Redis and etcd through the
// proxy, SIGKILL loops, SIGSTOP past a Snowflake lease, and servers of the test's
// own restarted under load (see docs/uniqueness.md).
package faultproxy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// Mode is what the proxy does to the traffic.
type Mode int

// The modes.
const (
	Pass  Mode = iota // forward bytes as they come
	Delay             // forward each chunk after the proxy's delay
	Hold              // forward nothing and close nothing, until the mode changes
	Reset             // reset every connection, and each new one at once
)

func (m Mode) String() string {
	switch m {
	case Pass:
		return "pass"
	case Delay:
		return "delay"
	case Hold:
		return "hold"
	case Reset:
		return "reset"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Proxy forwards the connections it accepts to a target address.
type Proxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	mode    Mode
	delay   time.Duration
	changed chan struct{} // closed and replaced at every change of mode
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// New starts a proxy on a free loopback port in front of target (host:port).
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{ln: ln, target: target, changed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's address, host:port, to dial instead of the target.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Set switches the proxy to mode; delay matters in Delay only. Reset resets the
// connections open now.
func (p *Proxy) Set(mode Mode, delay time.Duration) {
	p.mu.Lock()
	p.mode, p.delay = mode, delay
	close(p.changed)
	p.changed = make(chan struct{})
	var reset []net.Conn
	if mode == Reset {
		for c := range p.conns {
			reset = append(reset, c)
		}
	}
	p.mu.Unlock()
	for _, c := range reset {
		abort(c)
	}
}

// Retarget sends the connections the proxy accepts from now on to target
// (host:port) and resets the ones open now, as a floating address or a load
// balancer moved to a promoted replica does.
func (p *Proxy) Retarget(target string) {
	p.mu.Lock()
	p.target = target
	var reset []net.Conn
	for c := range p.conns {
		reset = append(reset, c)
	}
	p.mu.Unlock()
	for _, c := range reset {
		abort(c)
	}
}

// Close stops the proxy and closes every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	err := p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// abort closes c with a TCP reset rather than a FIN.
func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed || p.mode == Reset {
			p.mu.Unlock()
			abort(c)
			continue
		}
		p.conns[c] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(c)
	}
}

// serve dials the target for client connection c and pumps bytes both ways.
func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	up, err := net.Dial("tcp", target)
	if err != nil {
		abort(c)
		p.forget(c)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		up.Close()
		c.Close()
		p.forget(c)
		return
	}
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	wg.Go(func() { p.pump(up, c) })
	wg.Go(func() { p.pump(c, up) })
	wg.Wait()
	p.forget(c)
	p.forget(up)
}

func (p *Proxy) forget(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// pump copies from src to dst under the proxy's mode until either side fails;
// then it closes both.
func (p *Proxy) pump(dst, src net.Conn) {
	defer func() {
		dst.Close()
		src.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.forward(dst, buf[:n]) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				abort(dst)
			}
			return
		}
	}
}

// forward writes b to dst as the mode says, waiting while it holds; false when the
// connection is to end.
func (p *Proxy) forward(dst net.Conn, b []byte) bool {
	for {
		p.mu.Lock()
		mode, delay, changed, closed := p.mode, p.delay, p.changed, p.closed
		p.mu.Unlock()
		switch {
		case closed || mode == Reset:
			return false
		case mode == Hold:
			<-changed
			continue
		case mode == Delay:
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-changed:
				t.Stop()
				continue
			}
		}
		_, err := dst.Write(b)
		return err == nil
	}
}
