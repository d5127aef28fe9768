package memstore_test

import (
	"testing"

	"github.com/cosid-go/cosid/store/memstore"
)

// BenchmarkReserve is one Reserve of an existing key: the map lookup and the range
// rules (storekit.NextRange) under the store's lock.
func BenchmarkReserve(b *testing.B) {
	st := memstore.New()
	ctx := b.Context()
	if _, err := st.Reserve(ctx, "k", 1, 0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Reserve(ctx, "k", 1, 0); err != nil {
			b.Fatal(err)
		}
	}
}
