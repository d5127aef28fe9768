package server

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// IsLoopback reports whether addr ("host:port", or a host) listens on a loopback
// address only: 127.0.0.0/8, ::1 or localhost. An empty host (":8686") is every
// address, not loopback.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	return loopbackHost(host)
}

// loopbackHost reports whether host names a loopback address.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// hostOf returns the host of a Host header, without its port; false when the port
// is not a number: net.SplitHostPort takes "127.0.0.1:8686.evil.example" for the
// host 127.0.0.1 and a port "8686.evil.example".
func hostOf(hostport string) (string, bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport, true // no port
	}
	if len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return "", false
	}
	return host, true
}

// hostGuard answers only requests whose Host header names a loopback address, or
// one of the server's allowed hosts: the handler of a server bound to loopback. A
// page of evil.example whose name resolves to 127.0.0.1 sends Host: evil.example.
type hostGuard struct {
	s *Server
	// ok is the last Host header answered: every request of a client names the same
	// one, and whether a Host is answered depends on nothing else, so a request
	// naming it again is answered without parsing it.
	ok atomic.Pointer[string]
}

func (g *hostGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if last := g.ok.Load(); last != nil && *last == r.Host {
		g.s.ServeHTTP(w, r)
		return
	}
	host, ok := hostOf(r.Host)
	if !ok || !loopbackHost(host) && !g.allowed(host) {
		w.Header()["Cache-Control"] = noStore
		writeError(w, http.StatusForbidden, wire.CodeForbidden, fmt.Sprintf(
			"this server listens on a loopback address and answers only a loopback Host, not %q; add it to serve.allowed-hosts to answer it", r.Host))
		return
	}
	answered := r.Host
	g.ok.Store(&answered)
	g.s.ServeHTTP(w, r)
}

func (g *hostGuard) allowed(host string) bool {
	for _, h := range g.s.hosts {
		if strings.EqualFold(h, host) || strings.EqualFold(h, strings.Trim(host, "[]")) {
			return true
		}
	}
	return false
}
