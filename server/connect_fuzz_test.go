package server

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// connectUnary is every unary procedure of the Connect API, by the fuzz input's
// first byte.
var connectUnary = []string{
	cosidv1connect.IdServiceNextProcedure, cosidv1connect.IdServiceNextRangeProcedure,
	cosidv1connect.IdServiceDecodeProcedure, cosidv1connect.IdServiceListGeneratorsProcedure,
	cosidv1connect.StoreServiceReserveProcedure, cosidv1connect.StoreServiceSealProcedure,
	cosidv1connect.StoreServiceAcquireProcedure, cosidv1connect.StoreServiceRenewProcedure,
	cosidv1connect.StoreServiceReleaseProcedure,
}

// FuzzConnect_Request posts any message, in binary or JSON, to every unary procedure
// of the Connect API: the answer is 200 or a Connect error of a 4xx status, never a
// 5xx or a panic.
func FuzzConnect_Request(f *testing.F) {
	f.Add(uint8(0), false, []byte("\n\x05order\x18\x03"))
	f.Add(uint8(0), true, []byte(`{"name":"order","count":"3"}`))
	f.Add(uint8(1), true, []byte(`{"name":"event","key":"k"}`))
	f.Add(uint8(2), true, []byte(`{"name":"code","text":"C-000001"}`))
	f.Add(uint8(4), true, []byte(`{"key":"a","size":"9223372036854775807","initialOffset":"9223372036854775807"}`))
	f.Add(uint8(6), true, []byte(`{"namespace":"n","ownerKey":"o","limit":2,"ttl":"1s","preferred":1}`))
	f.Add(uint8(7), true, []byte(`{"lease":{"namespace":"n","expiresAt":"10000-01-01T00:00:00Z"},"ttl":"-1s"}`))
	f.Add(uint8(8), false, []byte("\n\x00\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	s := newServer(f, nil)
	f.Fuzz(func(t *testing.T, proc uint8, asJSON bool, body []byte) {
		path := connectUnary[int(proc)%len(connectUnary)]
		ct := "application/proto"
		if asJSON {
			ct = "application/json"
		}
		status, _, got := do(t, s, "POST", path, string(body), "Content-Type", ct)
		if status == http.StatusOK {
			return
		}
		var e struct{ Code, Message string }
		if err := json.Unmarshal([]byte(got), &e); err != nil || e.Code == "" || status >= 500 {
			t.Errorf("POST %s %q: %d %q", path, body, status, got)
		}
	})
}
