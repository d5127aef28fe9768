package mongostore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/mongostore"
)

// TestPing answers nil on the test server and fails, within the store's timeout, on
// a closed port, where New (which does no I/O) succeeded.
func TestPing(t *testing.T) {
	uri := server(t)
	if err := openStore(t, uri, testDatabase(t, uri)).Ping(t.Context()); err != nil {
		t.Errorf("Ping of the test server: %v", err)
	}
	st, err := mongostore.New(connect(t, "mongodb://"+testenv.ClosedAddr(t)+"/").Database("x"), mongostore.WithTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping of a closed port = nil, want an error")
	}
}
