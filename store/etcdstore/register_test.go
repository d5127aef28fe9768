package etcdstore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

// openConfig opens, through the root package, a configuration whose one store, kv,
// has the settings text, with two generators on it: order, a segment, and event, a
// snowflake generator.
func openConfig(t *testing.T, settings string) (*cosid.Runtime, error) {
	t.Helper()
	var b strings.Builder
	b.WriteString("cosid:\n  stores:\n    kv:\n      type: etcd\n")
	for line := range strings.Lines(settings) {
		b.WriteString("      " + line)
	}
	b.WriteString("\n  generators:\n    order: { strategy: segment, store: kv, step: 10 }\n    event: { strategy: snowflake, store: kv, slots: 4 }\n")
	cfg, err := cosid.ParseConfig([]byte(b.String()))
	if err != nil {
		return nil, err
	}
	return cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
}

// TestConfig_OpensEtcdStore opens a configuration with a store of type etcd and takes
// ids of its generators: the range and the slot lie under the configured prefix.
func TestConfig_OpensEtcdStore(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	rt, err := openConfig(t, "endpoints: ["+ep+"]\ntimeout: 3s\noptions: { prefix: "+prefix+" }")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if id, err := rt.Next(t.Context(), "order"); err != nil || id != "1" {
		t.Fatalf("Next = %q, %v; want 1", id, err)
	}
	resp, err := newClient(t, ep).Get(t.Context(), prefix+"cosid/order/next") // the default namespace, then the name
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the generator's key under the configured prefix: %v, %v", resp, err)
	}
	if id, err := rt.Next(t.Context(), "event"); err != nil || id == "" {
		t.Errorf("Next of the snowflake generator = %q, %v", id, err)
	}
	if resp, err := newClient(t, ep).Get(t.Context(), prefix+"cosid/event/held/0"); err != nil || len(resp.Kvs) != 1 {
		t.Errorf("the held key of the snowflake generator's slot: %v, %v", resp, err)
	}
	if typ, ok := store.Lookup("etcd"); !ok || typ.Check == nil || typ.Open == nil {
		t.Error(`store type "etcd" is not registered`)
	}
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails with an error that
// names its path, the field and what it allows.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("no certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "endpoints: [a:1]\ntimout: 2s", []string{"cosid.stores.kv", "timout", "timeout"}},
		{"NoEndpoints", "timeout: 2s", []string{"cosid.stores.kv.endpoints", "127.0.0.1:2379"}},
		{"EmptyEndpoint", "endpoints: ['']", []string{"cosid.stores.kv.endpoints[0]", "host:port"}},
		{"UserWithoutPassword", "endpoints: [a:1]\nusername: u", []string{"cosid.stores.kv.password-file"}},
		{"PasswordWithoutUser", "endpoints: [a:1]\npassword-file: p", []string{"cosid.stores.kv.username"}},
		{"MissingPasswordFile", "endpoints: [a:1]\nusername: u\npassword-file: " + filepath.Join(dir, "none"), []string{"cosid.stores.kv.password-file", "no such file"}},
		{"NegativeTimeout", "endpoints: [a:1]\ntimeout: -1s", []string{"cosid.stores.kv.timeout", "positive"}},
		{"BadTimeout", "endpoints: [a:1]\ntimeout: soon", []string{"cosid.stores.kv", "soon"}},
		{"BadPrefix", "endpoints: [a:1]\noptions: { prefix: \"a\\0b\" }", []string{"cosid.stores.kv.options.prefix", "NUL"}},
		{"UnknownOption", "endpoints: [a:1]\noptions: { prefx: /x/ }", []string{"cosid.stores.kv", "prefx"}},
		{"CANotPEM", "endpoints: [a:1]\ntls: { ca-file: " + notPEM + " }", []string{"cosid.stores.kv.tls.ca-file", "no PEM"}},
		{"CertWithoutKey", "endpoints: [a:1]\ntls: { cert-file: c.pem }", []string{"cosid.stores.kv.tls.key-file"}},
		{"UnknownTLSKey", "endpoints: [a:1]\ntls: { ca: x }", []string{"cosid.stores.kv.tls", "ca"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := openConfig(t, tc.yaml)
			if err == nil {
				rt.Close()
				t.Fatal("opened, want an error")
			}
			if !errors.Is(err, cosid.ErrConfig) {
				t.Errorf("error does not wrap ErrConfig: %v", err)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error does not say %q: %v", m, err)
				}
			}
		})
	}
}

// TestConfig_PasswordFile opens a store with a user and the file of its password.
// The test server has no users: it takes any sign-in.
func TestConfig_PasswordFile(t *testing.T) {
	ep := endpoint(t)
	path := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(path, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt, err := openConfig(t, "endpoints: ["+ep+"]\nusername: cosid\npassword-file: "+path+"\noptions: { prefix: "+newPrefix()+" }")
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.Next(t.Context(), "order"); err != nil {
		t.Fatal(err)
	}
}

// TestConfig_OfflineCheckReadsNoFile checks an offline Check (cosid config check
// without --open): it leaves password-file and the TLS files for open, saying so,
// where an online one reads them and refuses missing ones.
func TestConfig_OfflineCheckReadsNoFile(t *testing.T) {
	typ, _ := store.Lookup("etcd")
	s := testenv.Spec("kv", "endpoints: [a:1]\nusername: u\npassword-file: /run/secrets/etcd/pw\ntls: { ca-file: /run/secrets/etcd/ca.pem }", nil)
	s.Offline = true
	facts, err := typ.Check(s)
	checks := strings.Join(facts.Checks, "\n")
	if err != nil || !strings.Contains(checks, s.Unread("password-file", "/run/secrets/etcd/pw")) || !strings.Contains(checks, s.Unread("tls.ca-file", "/run/secrets/etcd/ca.pem")) {
		t.Errorf("offline Check = %q, %v; want no error and a line for each file", facts.Checks, err)
	}
	s.Offline = false
	if _, err := typ.Check(s); err == nil || !strings.Contains(err.Error(), "cosid.stores.kv.password-file") {
		t.Errorf("Check = %v, want the missing password file refused", err)
	}
}
