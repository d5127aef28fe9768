package main

import (
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestOpen_EveryStoreTypeDoesNoIO opens, with every store type the CLI links, a
// configuration whose stores all point at one loopback listener, and checks that
// nobody connected: Open checks settings without I/O, so that a service starts
// while its stores are down and a config check never reaches a server.
func TestOpen_EveryStoreTypeDoesNoIO(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var dials atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dials.Add(1)
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	text := strings.ReplaceAll(`cosid:
  stores:
    pg: { type: sql, driver: pgx, dsn: "postgres://cosid@ADDR/app", timeout: 2s }
    my: { type: sql, driver: mysql, dsn: "root@tcp(ADDR)/app", timeout: 2s }
    redis: { type: redis, addr: ADDR, timeout: 2s }
    etcd: { type: etcd, endpoints: [ADDR], timeout: 2s }
    http: { type: http, url: "http://ADDR", timeout: 2s }
    zk: { type: zookeeper, servers: [ADDR], timeout: 2s }
    mongo: { type: mongodb, uri: "mongodb://ADDR/", database: app, timeout: 2s }
  generators:
    order: { strategy: segment, store: pg }
    ev: { strategy: snowflake, store: etcd }
`, "ADDR", addr)
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ln.Close()
	if n := dials.Load(); n != 0 {
		t.Errorf("%d connections to the stores' address during Open and Close, want none", n)
	}
}
