package redisstore_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/redisstore"
)

// testTimeout is the timeout of the tests' stores: generous, because no test of the
// kit checks it, and every write on the durable server waits for an fsync.
const testTimeout = 20 * time.Second

// durable returns the address of the test Redis that keeps every write.
func durable(t testing.TB) string { return testenv.Server(t, testenv.RedisDurable) }

// newClient returns a client of addr that t closes.
func newClient(t testing.TB, addr string, opts ...func(*redis.Options)) *redis.Client {
	t.Helper()
	o := &redis.Options{Addr: addr, ContextTimeoutEnabled: true}
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

// testPrefix returns a key prefix unique to this run, and deletes its keys on addr
// when t ends.
func testPrefix(t testing.TB, addr string) string {
	t.Helper()
	prefix := "cosidtest:" + rand.Text()[:10] + ":"
	t.Cleanup(func() {
		c := redis.NewClient(&redis.Options{Addr: addr})
		defer c.Close()
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
	})
	return prefix
}

// openStore opens a store on a client of its own on addr, closed when t ends.
func openStore(t testing.TB, addr string, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	st, err := redisstore.New(newClient(t, addr), append([]redisstore.Option{redisstore.WithTimeout(testTimeout), redisstore.WithLogger(nil)}, opts...)...)
	if err != nil {
		t.Fatalf("New(%s): %v", addr, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// server is a redis-server the test started, on a loopback port and a directory of
// its own, for the tests that stop it or pause its clients.
type server struct {
	t    testing.TB
	dir  string
	args []string
	addr string
	cmd  *exec.Cmd
}

// startServer starts a redis-server that keeps every write (appendonly yes,
// appendfsync always) in a new temporary directory, with args added; t stops it. It
// skips t when redis-server is not installed, unless servers are required.
func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(testenv.Require) == "1" {
			t.Fatalf("redis-server is not installed: %v", err)
		}
		t.Skipf("redis-server is not installed: %v", err)
	}
	s := &server{t: t, dir: t.TempDir(), args: append([]string{bin}, args...)}
	s.start()
	t.Cleanup(func() {
		if s.cmd != nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	return s
}

// start starts the server on its directory, on the port it had before, or a free one.
func (s *server) start() {
	s.t.Helper()
	if s.addr == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.t.Fatal(err)
		}
		s.addr = l.Addr().String()
		l.Close()
	}
	_, port, _ := net.SplitHostPort(s.addr)
	args := append([]string{"--bind", "127.0.0.1", "--port", port, "--dir", s.dir, "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--logfile", filepath.Join(s.dir, "redis.log")}, s.args[1:]...)
	s.cmd = exec.Command(s.args[0], args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server on %s did not answer within 30s: %v\n%s", s.addr, err, log)
		}
		<-time.After(20 * time.Millisecond)
	}
}

// shutdown stops the server with SHUTDOWN, as an operator would, and waits for it to
// exit.
func (s *server) shutdown() {
	s.t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	if err := c.Shutdown(context.Background()).Err(); err != nil && !errors.Is(err, redis.ErrClosed) && !strings.Contains(err.Error(), "EOF") {
		s.t.Logf("SHUTDOWN: %v", err)
	}
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("redis-server on %s: %v", s.addr, err)
	}
	s.cmd = nil
}

func (s *server) String() string { return fmt.Sprintf("redis-server %s in %s", s.addr, s.dir) }

// discard returns a logger that logs nothing.
func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
