package etcdstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/store"
)

// spec returns the Spec of a store entry whose settings are text, decoded as the
// root package decodes them.
func spec(text string) store.Spec {
	return store.Spec{Name: "kv", Path: "cosid.stores.kv", Decode: func(v any) error {
		node, err := strictyaml.Parse([]byte(text))
		if err != nil {
			return err
		}
		return strictyaml.Decode(node, "cosid.stores.kv", v)
	}}
}

func TestConfig_OpensEtcdStore(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	open, ok := store.Lookup("etcd")
	if !ok {
		t.Fatal(`store type "etcd" is not registered`)
	}
	st, err := open(context.Background(), spec("endpoints: ["+ep+"]\ntimeout: 3s\noptions: { prefix: "+prefix+" }"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.(store.Timeouter).Timeout().String(); got != "3s" {
		t.Errorf("timeout = %s, want 3s", got)
	}
	if r, err := st.Reserve(t.Context(), "k", 2, 5); err != nil || r != (store.Range{Start: 5, End: 7}) {
		t.Errorf("Reserve = %v, %v; want [5, 7)", r, err)
	}
	c := newClient(t, ep)
	if resp, err := c.Get(t.Context(), prefix+"k/next"); err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "7" {
		t.Errorf("the key under the configured prefix: %v, %v; want 7", resp, err)
	}
	if _, ok := st.(store.SlotLeaseStore); !ok {
		t.Error("the store leases no slots")
	}
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails with an error that
// names its path, the field and what it allows.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	open, _ := store.Lookup("etcd")
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
			st, err := open(context.Background(), spec(tc.yaml))
			if err == nil {
				st.Close()
				t.Fatal("opened, want an error")
			}
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Errorf("error does not wrap ErrInvalidArgument: %v", err)
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
	open, _ := store.Lookup("etcd")
	path := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(path, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := open(context.Background(), spec("endpoints: ["+ep+"]\nusername: cosid\npassword-file: "+path+"\noptions: { prefix: "+newPrefix()+" }"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Reserve(t.Context(), "k", 1, 0); err != nil {
		t.Fatal(err)
	}
}
