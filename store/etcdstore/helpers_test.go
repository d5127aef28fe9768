package etcdstore_test

import (
	"crypto/rand"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/etcdstore"
)

// testTimeout is the timeout of the tests' stores: generous, because no test but the
// timeout's own checks it and 32 goroutines share two busy cores.
const testTimeout = 20 * time.Second

// endpoint returns the test server's address, skipping t when it is unset.
func endpoint(t testing.TB) string {
	t.Helper()
	return testenv.Server(t, testenv.Etcd)
}

// newPrefix returns a key prefix unique to this run: other runs share the server.
func newPrefix() string { return "/cosid-test/" + rand.Text()[:12] + "/" }

// newClient returns a client of its own on ep, closed when t ends.
func newClient(t testing.TB, ep string) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// openStore returns a store under prefix on a client of its own, as another process
// would have; t closes both.
func openStore(t testing.TB, ep, prefix string, opts ...etcdstore.Option) *etcdstore.Store {
	t.Helper()
	st, err := etcdstore.New(newClient(t, ep), append([]etcdstore.Option{etcdstore.WithPrefix(prefix), etcdstore.WithTimeout(testTimeout), etcdstore.WithLogger(nil)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
