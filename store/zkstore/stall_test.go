package zkstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/zkstore"
)

// stallProxy forwards TCP connections to a server and can stop passing bytes, as a
// server that hangs or a network that drops everything would.
type stallProxy struct {
	ln   net.Listener
	gate sync.RWMutex // held for writing while stalled
}

func newStallProxy(t *testing.T, upstream string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			go p.pipe(c, u)
			go p.pipe(u, c)
		}
	}()
	return p
}

// pipe copies from src to dst, a chunk at a time, each through the gate.
func (p *stallProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.gate.RLock()
			_, werr := dst.Write(buf[:n])
			p.gate.RUnlock()
			if werr != nil {
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				src.Close()
			}
			return
		}
	}
}

func (p *stallProxy) stall()  { p.gate.Lock() }
func (p *stallProxy) resume() { p.gate.Unlock() }

// TestStalledServer_CallsEndAtTheirDeadline checks that a call ends when its context
// does, though the ZooKeeper client takes no context and the server answers nothing,
// and that a reservation abandoned that way never overlaps a later one (S4).
func TestStalledServer_CallsEndAtTheirDeadline(t *testing.T) {
	addr := server(t)
	root := testRoot(t, addr)
	proxy := newStallProxy(t, addr)
	conn, _, err := zk.Connect([]string{proxy.ln.Addr().String()}, 30*time.Second, zk.WithLogger(quiet{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	st, err := zkstore.New(conn, zkstore.WithRoot(root), zkstore.WithTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	first, err := st.Reserve(t.Context(), "k", 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	proxy.stall()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if r, err := st.Reserve(ctx, "k", 10, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Reserve on a stalled server = %v, %v; want an error wrapping context.DeadlineExceeded", r, err)
	}
	req := store.LeaseRequest{Namespace: "n", OwnerKey: "o", Limit: 1, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	if l, err := st.Acquire(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Acquire on a stalled server = slot %d, %v; want an error wrapping context.DeadlineExceeded", l.Slot, err)
	}
	proxy.resume()
	next, err := st.Reserve(t.Context(), "k", 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if next.Start < first.End+10 {
		t.Errorf("after an abandoned reservation, Reserve = %v; want it above %v and the abandoned [%d, %d), which ZooKeeper applies first, in its session order", next, first, first.End, first.End+10)
	}
}
