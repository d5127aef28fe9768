package zkstore_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestPing answers nil on the test ensemble and fails, within the store's timeout,
// on a closed port, where New (which does no I/O) succeeded.
func TestPing(t *testing.T) {
	addr := server(t)
	if err := openStore(t, addr, zkstore.WithRoot(testRoot(t, addr))).Ping(t.Context()); err != nil {
		t.Errorf("Ping of the test ensemble: %v", err)
	}
	conn, _, err := zk.Connect([]string{testenv.ClosedAddr(t)}, 10*time.Second, zk.WithLogger(quiet{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st, err := zkstore.New(conn, zkstore.WithTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping of a closed port = nil, want an error")
	}
}
