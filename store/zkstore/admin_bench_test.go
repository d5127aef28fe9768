package zkstore_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/zkstore"
)

// fillRanges creates n range znodes of keys "k/000000"… under root's store with
// multi-requests of 1,000 creates, much faster than n reservations.
func fillRanges(b *testing.B, conn *zk.Conn, st *zkstore.Store, n int) {
	b.Helper()
	if _, err := st.Reserve(b.Context(), "first", 1, 0); err != nil {
		b.Fatal(err)
	}
	for lo := 0; lo < n; lo += 1000 {
		var ops []any
		for i := lo; i < min(lo+1000, n); i++ {
			path := st.Root() + "/ranges/" + zkstore.Escape(fmt.Sprintf("k/%06d", i))
			ops = append(ops, &zk.CreateRequest{Path: path, Data: []byte(`{"next":1}`), Acl: zk.WorldACL(zk.PermAll)})
		}
		if _, err := conn.Multi(ops...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeys_Page100 lists a page of 100 keys of 200 beside its baseline, the
// bare requests of the page: a Children of the range znodes and the 100 Gets, 8 at a
// time, as the store makes them. The store lists once and then reuses the listing,
// checked by an Exists of the parent, while no key is created or deleted.
func BenchmarkKeys_Page100(b *testing.B) {
	addr := server(b)
	conn := connect(b, addr)
	st := openStore(b, addr, zkstore.WithRoot(testRoot(b, addr)))
	fillRanges(b, conn, st, 200)
	b.Run("store=Keys", func(b *testing.B) {
		for b.Loop() {
			if keys, err := st.Keys(b.Context(), "k/", "", 100); err != nil || len(keys) != 100 {
				b.Fatal(len(keys), err)
			}
		}
	})
	b.Run("bare=Children+Gets", func(b *testing.B) {
		dir := st.Root() + "/ranges"
		for b.Loop() {
			names, _, err := conn.Children(dir)
			if err != nil || len(names) != 201 {
				b.Fatal(len(names), err)
			}
			bareGets(b, conn, dir, names[:100])
		}
	})
}

// bareGets reads the znodes names under dir, 64 at a time.
func bareGets(b *testing.B, conn *zk.Conn, dir string, names []string) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for _, name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, _, err := conn.Get(dir + "/" + name); err != nil {
				b.Error(err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkAllKeys_10000 streams 10,000 keys in pages of 1,000 beside the bare
// requests: a Children that lists them once, unsorted, and their 10,000 Gets.
func BenchmarkAllKeys_10000(b *testing.B) {
	const n = 10000
	addr := server(b)
	conn := connect(b, addr)
	st := openStore(b, addr, zkstore.WithRoot(testRoot(b, addr)))
	fillRanges(b, conn, st, n)
	b.Run("store=AllKeys", func(b *testing.B) {
		for b.Loop() {
			count := 0
			for _, err := range store.AllKeys(b.Context(), st, "k/", 1000) {
				if err != nil {
					b.Fatal(err)
				}
				count++
			}
			if count != n {
				b.Fatal(count)
			}
		}
	})
	b.Run("bare=Children+Gets", func(b *testing.B) {
		dir := st.Root() + "/ranges"
		for b.Loop() {
			names, _, err := conn.Children(dir)
			if err != nil || len(names) != n+1 {
				b.Fatal(len(names), err)
			}
			bareGets(b, conn, dir, names)
		}
	})
}
