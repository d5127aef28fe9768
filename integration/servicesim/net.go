package servicesim

import (
	"context"
	"fmt"
	"net"
	"sync"
	"syscall"
)

// network is an in-memory network of named hosts, each a listener that accepts
// net.Pipe connections. A pipe's reads and writes block durably, so that a synctest
// bubble sees a call waiting on a hung host as idle and moves its clock on.
type network struct {
	mu    sync.Mutex
	hosts map[string]*host
}

func newNetwork() *network { return &network{hosts: map[string]*host{}} }

// host is one listening address of the network.
type host struct {
	name   string
	accept chan net.Conn
	done   chan struct{}
	closed bool

	down  bool          // dials are refused, as by a host without a listener
	hung  chan struct{} // non-nil while hung: its connections neither read nor write
	conns []*hostConn
}

func (n *network) listen(name string) *host {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := &host{name: name, accept: make(chan net.Conn), done: make(chan struct{})}
	n.hosts[name] = h
	return h
}

// dial connects to the host named by addr ("name:port").
func (n *network) dial(ctx context.Context, _, addr string) (net.Conn, error) {
	name, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	h := n.hosts[name]
	refused := h == nil || h.down || h.closed
	n.mu.Unlock()
	if refused {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	client, server := net.Pipe()
	hc := &hostConn{Conn: server, h: h, n: n}
	select {
	case h.accept <- hc:
	case <-h.done:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	n.mu.Lock()
	h.conns = append(h.conns, hc)
	n.mu.Unlock()
	return client, nil
}

// setDown refuses new connections to h and breaks the ones it has, as a killed
// process does; setDown(h, false) starts it again.
func (n *network) setDown(h *host, down bool) {
	n.mu.Lock()
	h.down = down
	conns := h.conns
	if down {
		h.conns = nil
	}
	n.mu.Unlock()
	if down {
		for _, c := range conns {
			c.Close()
		}
	}
}

// setHung stops h's connections, the open ones and those accepted while it is
// hung, from reading and writing, as a process stopped with SIGSTOP whose kernel
// still accepts connections; setHung(h, false) lets them go on.
func (n *network) setHung(h *host, hung bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case hung && h.hung == nil:
		h.hung = make(chan struct{})
	case !hung && h.hung != nil:
		close(h.hung)
		h.hung = nil
	}
}

// hostConn is the host's end of a connection.
type hostConn struct {
	net.Conn
	h *host
	n *network
}

// wait blocks while the host is hung.
func (c *hostConn) wait() {
	c.n.mu.Lock()
	hung := c.h.hung
	c.n.mu.Unlock()
	if hung != nil {
		<-hung
	}
}

func (c *hostConn) Read(p []byte) (int, error)  { c.wait(); return c.Conn.Read(p) }
func (c *hostConn) Write(p []byte) (int, error) { c.wait(); return c.Conn.Write(p) }

// listener is host's net.Listener.
type listener struct {
	h *host
	n *network
}

func (l listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.h.accept:
		return c, nil
	case <-l.h.done:
		return nil, net.ErrClosed
	}
}

func (l listener) Close() error {
	l.n.mu.Lock()
	defer l.n.mu.Unlock()
	if !l.h.closed {
		l.h.closed = true
		close(l.h.done)
		if l.h.hung != nil {
			close(l.h.hung)
			l.h.hung = nil
		}
	}
	return nil
}

func (l listener) Addr() net.Addr { return addr(l.h.name) }

type addr string

func (a addr) Network() string { return "mem" }
func (a addr) String() string  { return fmt.Sprintf("%s:80", string(a)) }
