// Package testenv finds the servers that tests run against. Each server's address
// comes from an environment variable; without it a test skips, unless
// COSID_TEST_REQUIRE=1 (as in CI), where a missing server fails the run.
package testenv

import (
	"os"
	"testing"
)

// The environment variables that name the test servers.
const (
	Postgres = "COSID_TEST_POSTGRES" // a pgx URL: postgres://postgres@127.0.0.1:5432/test?sslmode=disable
	MySQL    = "COSID_TEST_MYSQL"    // a go-sql-driver DSN: root@tcp(127.0.0.1:3306)/test
	Redis    = "COSID_TEST_REDIS"    // host:port of a Redis that may lose writes (the machine's)
	// RedisDurable names a Redis that keeps every acknowledged write (appendonly yes,
	// appendfsync always), for the Redis store's kit: host:port.
	RedisDurable = "COSID_TEST_REDIS_DURABLE"
	Etcd         = "COSID_TEST_ETCD"    // host:port of an etcd v3 client endpoint
	Require      = "COSID_TEST_REQUIRE" // "1": a missing server is a failure, not a skip
)

// The servers of the ZooKeeper and MongoDB stores.
const (
	ZooKeeper = "COSID_TEST_ZOOKEEPER" // host:port of a ZooKeeper server: 127.0.0.1:2182
	MongoDB   = "COSID_TEST_MONGODB"   // a MongoDB URI: mongodb://127.0.0.1:27018/
)

// Server returns the address in the environment variable name, skipping t when it is
// unset, or failing it when servers are required.
func Server(t testing.TB, name string) string {
	t.Helper()
	addr := os.Getenv(name)
	if addr != "" {
		return addr
	}
	if os.Getenv(Require) == "1" {
		t.Fatalf("%s is unset and %s=1: this test needs its server", name, Require)
	}
	t.Skipf("%s is unset: set it to run this test against a real server", name)
	return ""
}
