package zkstore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestNew_BadOptions checks that New refuses what it cannot work with, naming it.
func TestNew_BadOptions(t *testing.T) {
	if _, err := zkstore.New(nil); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "nil *zk.Conn") {
		t.Errorf("New(nil): %v, want ErrInvalidArgument naming the nil connection", err)
	}
	conn := &zk.Conn{} // never used: New does no I/O
	tests := []struct {
		name    string
		opt     zkstore.Option
		mention string
	}{
		{"EmptyRoot", zkstore.WithRoot(""), "root"},
		{"Slash", zkstore.WithRoot("/"), `"/"`},
		{"EmptyElement", zkstore.WithRoot("/a//b"), `"/a//b"`},
		{"ControlChar", zkstore.WithRoot("/a\x01"), "control"},
		{"Long", zkstore.WithRoot("/" + strings.Repeat("a", 128)), "128"},
		{"Reserved", zkstore.WithRoot("/zookeeper"), "/zookeeper"},
		{"ZeroTimeout", zkstore.WithTimeout(0), "timeout 0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := zkstore.New(conn, tt.opt)
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("New: %v, want ErrInvalidArgument mentioning %q", err, tt.mention)
			}
		})
	}
}

// TestCorruptZnode_Refused checks that a znode holding data the store never writes
// fails the calls that read it with ErrCorrupt, naming the znode, and is left as it
// was.
func TestCorruptZnode_Refused(t *testing.T) {
	addr := server(t)
	root := testRoot(t, addr)
	st := openStore(t, addr, zkstore.WithRoot(root))
	conn := connect(t, addr)
	put := func(path, data string) {
		t.Helper()
		if _, err := conn.Create(path, []byte(data), 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("create %s: %v", path, err)
		}
	}
	put(root, "")
	put(root+"/ranges", "")
	put(root+"/slots", "")
	put(root+"/ranges/bad", "12")
	put(root+"/slots/badns", `{"limit":2,"toleranceMs":1000}`)
	put(root+"/slots/badns/1", `{"fence":0}`)
	put(root+"/slots/badmeta", `{"limit":-2}`)
	req := store.LeaseRequest{OwnerKey: "o", Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	tests := []struct {
		name, znode string
		call        func() error
	}{
		{"Reserve", "/ranges/bad", func() error { _, err := st.Reserve(t.Context(), "bad", 1, 0); return err }},
		{"Seal", "/ranges/bad", func() error { return st.Seal(t.Context(), "bad") }},
		{"AcquireRow", "/slots/badns/1", func() error { r := req; r.Namespace = "badns"; _, err := st.Acquire(t.Context(), r); return err }},
		{"AcquireMeta", "/slots/badmeta", func() error { r := req; r.Namespace = "badmeta"; _, err := st.Acquire(t.Context(), r); return err }},
		{"Renew", "/slots/badns/1", func() error {
			_, err := st.Renew(t.Context(), store.Lease{Namespace: "badns", OwnerKey: "o", Incarnation: "i", Slot: 1}, time.Minute)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, zkstore.ErrCorrupt) || !strings.Contains(err.Error(), root+tt.znode) {
				t.Errorf("%v, want ErrCorrupt naming %s", err, root+tt.znode)
			}
		})
	}
	if data, _, err := conn.Get(root + "/ranges/bad"); err != nil || string(data) != "12" {
		t.Errorf("the corrupt range znode holds %q, %v; want it left as it was", data, err)
	}
}

// TestEndedCalls checks that a call on a canceled context fails with its error, and
// that a closed store refuses every call with store.ErrClosed, admin calls included.
func TestEndedCalls(t *testing.T) {
	addr := server(t)
	testenv.EndedCalls(t, openStore(t, addr, zkstore.WithRoot(testRoot(t, addr))))
}
