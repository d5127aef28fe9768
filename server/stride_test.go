package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// stridedConfig is a region's: stride 3, residue 2.
const stridedConfig = `
cosid:
  namespace: test
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem, step: 10, stride: 3, residue: 2 }
    biz: { strategy: segment, store: mem, keyed: true, step: 10, stride: 3, residue: 2 }
`

// TestStride_RoutesHandOutTheClassAndRefuseRanges: /next of a strided generator
// answers its ids, v·3 + 2; /range answers 400 naming the stride, since its ids are
// not consecutive; tinyid's route, whose delta and remainder a stride is, answers
// them one by one.
func TestStride_RoutesHandOutTheClassAndRefuseRanges(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(stridedConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.(store.Admin).RaiseTo(t.Context(), "test/biz/test", 2); err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, rt, WithTinyid("biz"), WithLogger(nil))

	status, _, body := do(t, s, "GET", "/v1/generators/order/next?count=4", "")
	if want := []string{"5", "8", "11", "14"}; status != http.StatusOK || !slices.Equal(strings.Fields(body), want) {
		t.Errorf("/next?count=4 = %d %q; want 200 %q", status, body, want)
	}
	status, _, body = do(t, s, "GET", "/v1/generators/order/range?count=4", "")
	if status != http.StatusBadRequest || !strings.Contains(body, "stride 3") {
		t.Errorf("/range = %d %s; want 400 naming stride 3", status, body)
	}
	_, _, body = do(t, s, "GET", "/tinyid/id/nextId?bizType=test&batchSize=3", "")
	if want := `{"data":[8,11,14],"code":200,"message":""}`; body != want {
		t.Errorf("tinyid nextId = %s; want %s", body, want)
	}
}
