package etcdstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/etcdstore"
)

// TestPing answers nil on the test server and fails, within the store's timeout, on
// a closed port, where New (which does no I/O) succeeded.
func TestPing(t *testing.T) {
	if err := openStore(t, endpoint(t), newPrefix()).Ping(t.Context()); err != nil {
		t.Errorf("Ping of the test server: %v", err)
	}
	st, err := etcdstore.New(newClient(t, testenv.ClosedAddr(t)), etcdstore.WithTimeout(500*time.Millisecond), etcdstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping of a closed port = nil, want an error")
	}
}
