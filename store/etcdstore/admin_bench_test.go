package etcdstore

import (
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// BenchmarkKeys_Page100 lists a page of 100 keys (impl=store) beside its baseline,
// one bare etcd range read of 100 keys on the same client (impl=bare): the store adds
// its checks, the parse of every value, the sort, and, for keys whose prefixes sort
// after them in etcd (here "k" before "k 000"…), one transaction of lookups.
func BenchmarkKeys_Page100(b *testing.B) {
	st := benchStore(b)
	for _, shape := range []struct{ name, format string }{{"flat", "k%04d"}, {"nested", "k %04d"}} {
		prefix := shape.name + "/"
		for i := range 200 {
			if _, err := st.Reserve(b.Context(), fmt.Sprintf(prefix+shape.format, i), 1, 0); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := st.Reserve(b.Context(), prefix+"k", 1, 0); err != nil {
			b.Fatal(err)
		}
		b.Run(shape.name+"/impl=bare", func(b *testing.B) {
			from := st.prefix + prefix
			for b.Loop() {
				resp, err := st.client.Get(b.Context(), from, clientv3.WithRange(clientv3.GetPrefixRangeEnd(from)), clientv3.WithLimit(100))
				if err != nil || len(resp.Kvs) != 100 {
					b.Fatal(len(resp.Kvs), err)
				}
			}
		})
		b.Run(shape.name+"/impl=store", func(b *testing.B) {
			for b.Loop() {
				if keys, err := st.Keys(b.Context(), prefix, "", 100); err != nil || len(keys) != 100 {
					b.Fatal(len(keys), err)
				}
			}
		})
	}
}
