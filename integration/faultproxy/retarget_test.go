package faultproxy_test

import (
	"io"
	"net"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
)

// named starts a server that writes name and a newline to every connection.
func named(t *testing.T, name string) string {
	return serveConns(t, func(c net.Conn) {
		io.WriteString(c, name+"\n")
		io.Copy(io.Discard, c)
	})
}

// TestProxy_RetargetResetsOpenConnectionsAndSendsNewOnesToTheNewTarget moves the
// proxy as a failover moves a floating address: the connection open at the move
// ends, and the next one reaches the new target.
func TestProxy_RetargetResetsOpenConnectionsAndSendsNewOnesToTheNewTarget(t *testing.T) {
	p, err := faultproxy.New(named(t, "old"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c, r := dial(t, p)
	if line, err := r.ReadString('\n'); err != nil || line != "old\n" {
		t.Fatalf("before the move: %q, %v", line, err)
	}
	p.Retarget(named(t, "new"))
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("the connection open at the move still reads %q", line)
	}
	c.Close()
	_, r2 := dial(t, p)
	if line, err := r2.ReadString('\n'); err != nil || line != "new\n" {
		t.Fatalf("after the move: %q, %v; want the new target", line, err)
	}
}
