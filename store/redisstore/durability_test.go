package redisstore_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestNew_Durability checks what New says of each kind of server: it accepts one
// with appendonly yes and appendfsync always; it refuses one that can lose writes,
// or whose CONFIG it may not read, with an error that names the settings, unless
// WithVolatileServer accepts the risk, which it then logs as a warning. The refusal
// is a setup error (store.ErrNotSetUp), not an outage.
func TestNew_Durability(t *testing.T) {
	durableAddr := durable(t)
	volatileAddr := testenv.Server(t, testenv.Redis)
	everysec := startServer(t, "--appendfsync", "everysec")
	noConfig := aclUserWithoutConfig(t, durableAddr)
	tests := []struct {
		name     string
		client   redis.UniversalClient
		volatile bool
		want     error    // nil: New succeeds
		mention  []string // in the error, or in the warning when volatile
	}{
		{"Durable", newClient(t, durableAddr), false, nil, nil},
		{"NoAOF", newClient(t, volatileAddr), false, redisstore.ErrVolatileServer, []string{"appendonly", `"no"`, "WithVolatileServer()"}},
		{"FsyncEverySecond", newClient(t, everysec.addr), false, redisstore.ErrVolatileServer, []string{"appendfsync", `"everysec"`, "always"}},
		{"ConfigRefused", noConfig, false, redisstore.ErrDurabilityUnknown, []string{"CONFIG", "NOPERM", "WithVolatileServer"}},
		{"RingWithAVolatileShard", newRing(t, durableAddr, volatileAddr), false, redisstore.ErrVolatileServer, []string{volatileAddr, "appendonly"}},
		{"NoAOFAccepted", newClient(t, volatileAddr), true, nil, []string{"appendonly", "forget"}},
		{"ConfigRefusedAccepted", noConfig, true, nil, []string{"CONFIG", "forget"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			opts := []redisstore.Option{redisstore.WithTimeout(testTimeout), redisstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))}
			if tc.volatile {
				opts = append(opts, redisstore.WithVolatileServer())
			}
			st, err := redisstore.New(tc.client, opts...)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("New = %v; want an error wrapping %v", err, tc.want)
				}
				// A refusal of the server's settings is for an operator to fix, not
				// an outage that waiting ends.
				if !errors.Is(err, store.ErrNotSetUp) || errors.Is(err, store.ErrUnavailable) {
					t.Errorf("New = %v; want store.ErrNotSetUp, not store.ErrUnavailable", err)
				}
				mentions(t, err.Error(), tc.mention)
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			defer st.Close()
			if !tc.volatile {
				if log.Len() > 0 {
					t.Errorf("New on a durable server logged %q", log.String())
				}
				return
			}
			if !strings.Contains(log.String(), "level=WARN") {
				t.Errorf("New with WithVolatileServer logged %q, want a warning", log.String())
			}
			mentions(t, log.String(), tc.mention)
		})
	}
}

func mentions(t *testing.T, text string, words []string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("%q does not mention %q", text, w)
		}
	}
}

// aclUserWithoutConfig creates on addr an ACL user that may run every command but
// CONFIG, as on a managed Redis, and returns a client logged in as it.
func aclUserWithoutConfig(t *testing.T, addr string) *redis.Client {
	t.Helper()
	admin := newClient(t, addr)
	user, password := "cosidtest-"+rand.Text()[:8], rand.Text()
	if err := admin.Do(t.Context(), "ACL", "SETUSER", user, "on", ">"+password, "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Do(t.Context(), "ACL", "DELUSER", user) })
	return newClient(t, addr, func(o *redis.Options) { o.Username, o.Password = user, password })
}

// TestNew_WarnsOfClientWithoutDeadlines checks that New warns when the client ignores
// context deadlines, which the store's timeout relies on.
func TestNew_WarnsOfClientWithoutDeadlines(t *testing.T) {
	addr := durable(t)
	for _, enabled := range []bool{false, true} {
		var log bytes.Buffer
		c := newClient(t, addr, func(o *redis.Options) { o.ContextTimeoutEnabled = enabled })
		st, err := redisstore.New(c, redisstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		if warned := strings.Contains(log.String(), "ContextTimeoutEnabled"); warned == enabled {
			t.Errorf("with ContextTimeoutEnabled %v, New logged %q", enabled, log.String())
		}
	}
}

// newRing returns a Ring client over the servers at addrs that t closes.
func newRing(t *testing.T, addrs ...string) *redis.Ring {
	t.Helper()
	shards := map[string]string{}
	for i, a := range addrs {
		shards[fmt.Sprint("shard", i)] = a
	}
	r := redis.NewRing(&redis.RingOptions{Addrs: shards})
	t.Cleanup(func() { r.Close() })
	return r
}
