package zkstore_test

import (
	"crypto/rand"
	"errors"
	"log"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/zkstore"
)

// testTimeout is the timeout of the tests' stores: generous, because no test of the
// kit checks it and the machine is shared.
const testTimeout = 20 * time.Second

// server returns the address of the test ZooKeeper.
func server(t testing.TB) string { return testenv.Server(t, testenv.ZooKeeper) }

// quiet drops the ZooKeeper client's log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}

// connect returns a connection of its own to addr that t closes.
func connect(t testing.TB, addr string) *zk.Conn {
	t.Helper()
	conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatalf("zk.Connect(%s): %v", addr, err)
	}
	t.Cleanup(conn.Close)
	return conn
}

// testRoot returns a root unique to this run, and deletes its znodes on addr when t
// ends.
func testRoot(t testing.TB, addr string) string {
	t.Helper()
	root := "/cosidtest-" + rand.Text()[:10]
	t.Cleanup(func() {
		conn, _, err := zk.Connect([]string{addr}, 10*time.Second, zk.WithLogger(quiet{}), zk.WithLogInfo(false))
		if err != nil {
			return
		}
		defer conn.Close()
		deleteTree(conn, root)
	})
	return root
}

func deleteTree(conn *zk.Conn, path string) {
	children, _, err := conn.Children(path)
	if err != nil {
		return
	}
	for _, c := range children {
		deleteTree(conn, path+"/"+c)
	}
	if err := conn.Delete(path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		log.Printf("deleting %s: %v", path, err)
	}
}

// openStore opens a store on a connection of its own to addr, closed when t ends.
func openStore(t testing.TB, addr string, opts ...zkstore.Option) *zkstore.Store {
	t.Helper()
	st, err := zkstore.New(connect(t, addr), append([]zkstore.Option{zkstore.WithTimeout(testTimeout)}, opts...)...)
	if err != nil {
		t.Fatalf("New(%s): %v", addr, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
