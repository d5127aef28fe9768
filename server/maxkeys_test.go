package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/cosid-go/cosid"
	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// n3Config is the review's N3 set-up made small: a keyed template that any holder
// of the ids token may give new keys, with max-keys 5.
const n3Config = `
cosid:
  namespace: n3
  stores:
    mem: { type: memory }
  generators:
    bigk: { strategy: segment, store: mem, keyed: true, step: 10, max-keys: 5 }
`

// n3Token is the only token of the N3 servers: the ids role's.
const n3Token = "ids-tok-1234567890"

// n3Setting is what a refusal of max-keys names.
const n3Setting = "cosid.generators.bigk.max-keys"

// sharedStore is a memory store that outlives the runtimes on it, as a database
// outlives the processes that use it: closing a runtime leaves it open.
type sharedStore struct{ *memstore.Store }

func (sharedStore) Close() error { return nil }

// n3Server serves n3Config on st, with only the ids role's token, and opts.
func n3Server(t *testing.T, st store.RangeStore, opts ...Option) *Server {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(n3Config))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
		cosid.WithStoreWrapper(func(_, _ string, _ store.RangeStore) store.RangeStore { return st }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return mustNew(t, rt, append([]Option{WithLogger(nil), WithRoleToken(RoleIDs, n3Token)}, opts...)...)
}

// n3Keys is the number of keys of bigk that st holds.
func n3Keys(t *testing.T, st *memstore.Store) int {
	t.Helper()
	n := 0
	for k, err := range store.AllKeys(t.Context(), st, "n3/bigk/", 100) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(k.Key, "/.cosid/") {
			n++
		}
	}
	return n
}

// n3HTTP takes an id of key over /v1 with the ids token.
func n3HTTP(t *testing.T, s *Server, key string) (int, string) {
	status, _, body := do(t, s, "GET", "/v1/generators/bigk/next?key="+key, "", "Authorization", "Bearer "+n3Token)
	return status, body
}

// TestN3_IDsRoleKeyFlood_Stopped reproduces the review's N3 (a holder of the ids
// token alone made 30,019 store rows in 38 s) and checks that a flood of new keys
// is stopped: by max-keys, counted in the store, with 409 naming the setting (on
// /v1 and on Connect, failed_precondition), and by new-keys-per-second with 429.
// The store never holds more keys than let through.
func TestN3_IDsRoleKeyFlood_Stopped(t *testing.T) {
	tests := []struct {
		name       string
		rate       RateLimit
		take       func(t *testing.T, s *Server) func(key string) (int, string)
		made       int    // keys let through
		wantStatus int    // of the rest
		wantText   string // in the refusal
	}{
		{"max-keys on /v1", RateLimit{}, func(t *testing.T, s *Server) func(string) (int, string) {
			return func(key string) (int, string) { return n3HTTP(t, s, key) }
		}, 5, http.StatusConflict, `"code":"max_keys"`},
		{"max-keys on Connect", RateLimit{}, func(t *testing.T, s *Server) func(string) (int, string) {
			c := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
			return func(key string) (int, string) {
				req := connect.NewRequest(&cosidv1.NextRequest{Name: "bigk", Key: key})
				req.Header().Set("Authorization", "Bearer "+n3Token)
				_, err := c.Next(t.Context(), req)
				if err != nil && connect.CodeOf(err) != connect.CodeFailedPrecondition {
					return http.StatusInternalServerError, err.Error()
				}
				return connectStatus(err)
			}
		}, 5, http.StatusConflict, n3Setting},
		{"new-keys-per-second on /v1", RateLimit{NewKeysPerSecond: 2}, func(t *testing.T, s *Server) func(string) (int, string) {
			return func(key string) (int, string) { return n3HTTP(t, s, key) }
		}, 2, http.StatusTooManyRequests, settingNewKeysRate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := memstore.New()
			s := n3Server(t, sharedStore{mem}, WithH2C(true), WithRateLimit(tc.rate))
			if tc.rate.NewKeysPerSecond > 0 {
				newRateClock().limit(s) // a clock that stands still: the flood is in one instant
			}
			take := tc.take(t, s)
			for i := range 40 {
				key := fmt.Sprintf("K%03d", i)
				status, msg := take(key)
				if i < tc.made {
					if status != http.StatusOK {
						t.Fatalf("new key %d of %d allowed = %d %s, want 200", i+1, tc.made, status, msg)
					}
					continue
				}
				if status != tc.wantStatus || !strings.Contains(msg, tc.wantText) {
					t.Fatalf("new key %d, past %d = %d %s; want %d naming %s", i+1, tc.made, status, msg, tc.wantStatus, tc.wantText)
				}
				if tc.wantStatus == http.StatusConflict && !strings.Contains(msg, n3Setting) {
					t.Fatalf("new key %d: %s; want the setting %s named", i+1, msg, n3Setting)
				}
			}
			if n := n3Keys(t, mem); n != tc.made {
				t.Fatalf("the store holds %d keys of bigk after a flood of 40; want the %d let through", n, tc.made)
			}
			for i := range tc.made {
				if status, msg := take(fmt.Sprintf("K%03d", i)); status != http.StatusOK {
					t.Fatalf("key K%03d, made = %d %s; want 200: a limit stops new keys only", i, status, msg)
				}
			}
		})
	}
}

// TestN3_MaxKeys_KeptAcrossRestart checks that max-keys counts in the store: a
// server started again on the same store (a new Runtime) refuses a new key past
// the count made before, with 409 naming the setting, and serves the keys made.
func TestN3_MaxKeys_KeptAcrossRestart(t *testing.T) {
	mem := memstore.New()
	first := n3Server(t, sharedStore{mem})
	for i := range 5 {
		if status, body := n3HTTP(t, first, fmt.Sprintf("K%03d", i)); status != http.StatusOK {
			t.Fatalf("key %d = %d %s", i, status, body)
		}
	}
	if err := first.rt.Close(); err != nil {
		t.Fatal(err)
	}
	again := n3Server(t, sharedStore{mem})
	if status, body := n3HTTP(t, again, "K100"); status != http.StatusConflict || !strings.Contains(body, n3Setting) {
		t.Fatalf("a new key after the restart = %d %s; want 409 naming %s", status, body, n3Setting)
	}
	if status, body := n3HTTP(t, again, "K000"); status != http.StatusOK {
		t.Fatalf("a key made before the restart = %d %s; want 200", status, body)
	}
	if n := n3Keys(t, mem); n != 5 {
		t.Fatalf("the store holds %d keys of bigk; want 5", n)
	}
}
