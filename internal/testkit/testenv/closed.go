package testenv

import (
	"net"
	"testing"
)

// ClosedAddr returns a loopback host:port that nothing listens on: the port of a
// listener it opens and closes at once, so that a connection to it is refused.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
