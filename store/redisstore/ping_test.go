package redisstore_test

import (
	"testing"
)

// TestPing answers nil on the test server and fails once the store is closed.
func TestPing(t *testing.T) {
	addr := durable(t)
	st := openStore(t, addr)
	if err := st.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	st.Close()
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping of a closed store = nil, want an error")
	}
}
