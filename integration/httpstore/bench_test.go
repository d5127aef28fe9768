package httpstore_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cosid-go/cosid/store/memstore"
)

// BenchmarkBareRoundTrip is the baseline of BenchmarkReserve: a POST of the same
// size to a handler that answers a constant range.
func BenchmarkBareRoundTrip(b *testing.B) {
	answer := []byte(`{"start":"1","end":"101"}`)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer hs.Close()
	body := []byte(`{"key":"bench/key","size":100,"initialOffset":1}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(hs.URL+"/v1/store/reserve", "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// BenchmarkReserve reserves through a server on a memory store.
func BenchmarkReserve(b *testing.B) {
	url := serve(b, memstore.New())
	st, err := newStoreB(b, url)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := st.Reserve(b.Context(), "bench/key", 100, 1); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
