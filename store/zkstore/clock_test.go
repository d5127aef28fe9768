package zkstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestStoreClock_L6_WriteMtime checks where the store clock comes from: every
// Acquire and Renew writes the clock znode, and answers with the mtime ZooKeeper
// gave that write (moved by the test offset), not with the time of an older write.
// (Both ends run on one host here, so the test cannot tell ZooKeeper's clock from
// the client's: the doc says why the store never reads the client's.)
func TestStoreClock_L6_WriteMtime(t *testing.T) {
	addr := server(t)
	root := testRoot(t, addr)
	offset := new(zkstore.ClockOffset)
	st := openStore(t, addr, zkstore.WithRoot(root), zkstore.WithClockOffset(offset))
	conn := connect(t, addr)
	var version int32 = -1
	mtime := func() int64 {
		t.Helper()
		_, stat, err := conn.Get(root + "/clock")
		if err != nil {
			t.Fatalf("reading the clock znode: %v", err)
		}
		if version >= 0 && stat.Version != version+1 {
			t.Errorf("the clock znode went from version %d to %d in one call, want one write per call", version, stat.Version)
		}
		version = stat.Version
		return stat.Mtime
	}
	req := store.LeaseRequest{Namespace: "clock", OwnerKey: "a", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	for _, move := range []time.Duration{0, 0, 0, time.Hour, -3 * time.Hour} {
		offset.Move(move)
		want := func() int64 { return mtime() + offset.Ms() }
		l, err := st.Acquire(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := l.StoreNow.UnixMilli(), want(); got != want {
			t.Errorf("Acquire: StoreNow %d, want the clock znode's mtime plus the offset, %d", got, want)
		}
		if got, want := l.ExpiresAt.UnixMilli(), l.StoreNow.UnixMilli()+time.Minute.Milliseconds(); got != want {
			t.Errorf("Acquire: ExpiresAt %d, want StoreNow plus the TTL, %d", got, want)
		}
		r, err := st.Renew(t.Context(), l, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := r.StoreNow.UnixMilli(), want(); got != want {
			t.Errorf("Renew: StoreNow %d, want the clock znode's mtime plus the offset, %d", got, want)
		}
		if err := st.Release(t.Context(), r, r.Floor); err != nil {
			t.Fatal(err)
		}
	}
}
