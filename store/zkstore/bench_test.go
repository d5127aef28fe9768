package zkstore_test

import (
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/zkstore"
)

// bareSet returns a function that does the bare operation a reservation stands
// beside: one unconditional Set of a znode to a value of a reservation's size.
func bareSet(b *testing.B, conn *zk.Conn, root string) func() error {
	path := root + "-bare"
	if _, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Delete(path, -1) })
	data := []byte(`{"next":1234567}`)
	return func() error {
		_, err := conn.Set(path, data, -1)
		return err
	}
}

// BenchmarkReserve compares a reservation, a versioned Set of the key's znode, with
// a bare unconditional Set in the same run, from one goroutine and from many.
func BenchmarkReserve(b *testing.B) {
	addr := server(b)
	root := testRoot(b, addr)
	conn := connect(b, addr)
	st := openStore(b, addr, zkstore.WithRoot(root))
	bare := bareSet(b, conn, root)
	ctx := b.Context()
	ops := []testenv.Op{
		{Name: "bare=Set", Run: bare},
		{Name: "store=Reserve", Run: func() error { _, err := st.Reserve(ctx, "bench", 100, 1); return err }},
	}
	testenv.Beside(b, ops, ops)
}

// BenchmarkLease measures an acquisition and a release of a slot beside the bare
// Set, on a namespace of 1,024 slots whose lower 100 are held: an Acquire writes
// the clock znode and reads the namespace and each of its slot znodes; a Release
// reads the row and the settings and writes the row.
func BenchmarkLease(b *testing.B) {
	addr := server(b)
	root := testRoot(b, addr)
	conn := connect(b, addr)
	st := openStore(b, addr, zkstore.WithRoot(root))
	bare := bareSet(b, conn, root)
	testenv.AcquireRelease(b, st, 100, "Set", bare)
}

// BenchmarkReserve_Interleaved times a reservation and the bare Set in turn, so that
// both meet the same load, and reports their medians and ratio.
func BenchmarkReserve_Interleaved(b *testing.B) {
	addr := server(b)
	root := testRoot(b, addr)
	st := openStore(b, addr, zkstore.WithRoot(root))
	bare := bareSet(b, connect(b, addr), root)
	testenv.Interleave(b, bare, func() error { _, err := st.Reserve(b.Context(), "bench", 100, 1); return err })
}
