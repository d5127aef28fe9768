package redisstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// spec returns the Spec of a store entry whose settings are text, decoded as the
// root package decodes them.
func spec(text string) store.Spec { return testenv.Spec("cache", text, nil) }

func TestConfig_OpensRedisStore(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	st := testenv.Opened(t, "redis", "cache", "addr: "+addr+"\ntimeout: 3s\noptions: { prefix: \""+prefix+"\" }\n", 3*time.Second)
	if got := st.(*redisstore.Store).Prefix(); got != prefix {
		t.Errorf("prefix = %q, want %q", got, prefix)
	}
	if _, ok := st.(store.SlotLeaseStore); !ok {
		t.Error("the configured store is not a SlotLeaseStore")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(context.Background(), "k", 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Reserve after Close: %v, want store.ErrClosed", err)
	}
}

// TestConfig_Volatile checks that a configured store refuses a server that can lose
// writes, naming the entry and the option that accepts it, and that the option does.
func TestConfig_Volatile(t *testing.T) {
	addr := testenv.Server(t, testenv.Redis)
	typ, _ := store.Lookup("redis")
	open := typ.Open
	_, err := open(t.Context(), spec("addr: "+addr))
	if !errors.Is(err, redisstore.ErrVolatileServer) {
		t.Fatalf("open on a volatile server: %v, want ErrVolatileServer", err)
	}
	mentions(t, err.Error(), []string{"cosid.stores.cache", "options: { allowVolatile: true } in cosid.stores.cache"})
	if strings.Contains(err.Error(), "WithVolatileServer") {
		t.Errorf("the error of a configured store names the Go option: %v", err)
	}
	st, err := open(t.Context(), store.Spec{Name: "cache", Path: "cosid.stores.cache", Decode: spec("addr: " + addr + "\noptions: { allowVolatile: true }").Decode, Logger: discard()})
	if err != nil {
		t.Fatalf("open with allowVolatile: %v", err)
	}
	st.Close()
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails before any I/O
// with an error that names its path, the field and what it allows.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "addr: 127.0.0.1:1\ntimout: 2s", []string{"cosid.stores.cache", "timout"}},
		{"NoAddr", "timeout: 2s", []string{"cosid.stores.cache.addr", "missing", "host:port"}},
		{"AddrAndAddrs", "addr: a:1\naddrs: [b:1]", []string{"cosid.stores.cache.addr", "addrs"}},
		{"AddrWithoutPort", "addr: localhost", []string{"cosid.stores.cache.addr", "host:port"}},
		{"AddrsWithoutPort", "addrs: [a:1, b]", []string{"cosid.stores.cache.addrs[1]", "host:port"}},
		{"DBNegative", "addr: a:1\ndb: -1", []string{"cosid.stores.cache.db", "≥ 0"}},
		{"DBOnCluster", "addrs: [a:1]\ndb: 2", []string{"cosid.stores.cache.db", "Cluster"}},
		{"TimeoutNegative", "addr: a:1\ntimeout: -1s", []string{"cosid.stores.cache.timeout", "positive"}},
		{"PrefixWithBrace", "addr: a:1\noptions: { prefix: \"a{b\" }", []string{"cosid.stores.cache.options.prefix", "brace"}},
		{"PasswordFileMissing", "addr: a:1\npassword-file: " + missing, []string{"cosid.stores.cache.password-file", "missing"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Refused(t, "redis", "cache", tc.yaml, tc.mention...)
		})
	}
}

// TestConfig_PasswordFile checks that the password comes from the file, without its
// final newline: a wrong one fails at open, naming the entry.
func TestConfig_PasswordFile(t *testing.T) {
	addr := durable(t)
	file := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(file, []byte("not-the-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	typ, _ := store.Lookup("redis")
	open := typ.Open
	_, err := open(t.Context(), spec("addr: "+addr+"\nusername: cosid-nobody\npassword-file: "+file))
	if err == nil || !strings.Contains(err.Error(), "cosid.stores.cache") {
		t.Fatalf("open with a wrong password: %v, want an error naming the entry", err)
	}
}

// TestConfig_OfflineCheckReadsNoPasswordFile checks an offline Check (cosid config
// check without --open): it leaves password-file for open, saying so, where an
// online one reads it and refuses a missing one.
func TestConfig_OfflineCheckReadsNoPasswordFile(t *testing.T) {
	typ, _ := store.Lookup("redis")
	s := spec("addr: a:1\npassword-file: /run/secrets/cosid/redis")
	s.Offline = true
	facts, err := typ.Check(s)
	if want := s.Unread("password-file", "/run/secrets/cosid/redis"); err != nil || !strings.Contains(strings.Join(facts.Checks, "\n"), want) {
		t.Errorf("offline Check = %q, %v; want no error and the line %q", facts.Checks, err, want)
	}
	s.Offline = false
	if _, err := typ.Check(s); err == nil || !strings.Contains(err.Error(), "cosid.stores.cache.password-file") {
		t.Errorf("Check = %v, want the missing password file refused", err)
	}
}
