package httpstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/memstore"
)

// downStore is a memstore whose Ping fails, as a served store that is down.
type downStore struct{ *memstore.Store }

func (downStore) Ping(context.Context) error { return errors.New("the database is down") }

var _ store.Pinger = downStore{}

// TestPing reaches the server with the store's token: nil with the right token, an
// error with a wrong one, on a closed port, and when the served store's own Ping
// fails.
func TestPing(t *testing.T) {
	url := serve(t, memstore.New(), server.WithToken("s3cret"))
	down := serve(t, downStore{memstore.New()})
	tests := []struct {
		name    string
		url     string
		token   string
		mention string // "" for success
	}{
		{"right token", url, "s3cret", ""},
		{"wrong token", url, "wrong", "401"},
		{"no token", url, "", "401"},
		{"closed port", "http://" + testenv.ClosedAddr(t), "", "refused"},
		{"served store down", down, "", "the served store is unavailable"}, // the cause stays in the server's log (L4)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t, tc.url, httpstore.WithToken(tc.token), httpstore.WithTimeout(2*time.Second))
			err := st.Ping(t.Context())
			if tc.mention == "" {
				if err != nil {
					t.Errorf("Ping = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("Ping = %v, want an error saying %q", err, tc.mention)
			}
		})
	}
}
