package cosid_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"

	_ "modernc.org/sqlite" // the driver of the SQLite stores below, which the root does not link
)

// writeFiles writes name → content under dir, making the directories.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// workingDirs are the directories a configuration is loaded from in the tests of
// issue 19: another directory than the file's, and /, where a service manager starts
// a service.
func workingDirs(t *testing.T) map[string]string {
	return map[string]string{"OtherDir": t.TempDir(), "Root": "/"}
}

// TestLoad_SQLitePathIsReadFromTheConfigDir checks issue 19's first duplicate: a
// relative SQLite dsn (a file name, a file: URI, or the content of a dsn-file) names
// the file next to the configuration, whatever the working directory, so that a
// second run goes on where the first stopped (at 2: the first gave the rest of its
// range back, S7) instead of starting a new file at 1; and no file appears in the
// working directory.
func TestLoad_SQLitePathIsReadFromTheConfigDir(t *testing.T) {
	for _, tt := range []struct {
		name  string
		store string
		files map[string]string
	}{
		{"FileName", "dsn: ids.db", nil},
		{"FileNameWithParameters", "dsn: 'ids.db?_pragma=busy_timeout(3000)'", nil},
		{"FileURI", "dsn: 'file:ids.db?mode=rwc'", nil},
		{"FileNameInSubdirectory", "dsn: data/ids.db", map[string]string{"data/.keep": ""}},
		{"DSNFile", "dsn-file: secret/dsn", map[string]string{"secret/dsn": "ids.db\n"}},
	} {
		for wdName, wd := range workingDirs(t) {
			t.Run(tt.name+"/"+wdName, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "svc")
				writeFiles(t, dir, tt.files)
				writeFiles(t, dir, map[string]string{"cosid.yaml": "cosid:\n  stores:\n    db: { type: sql, driver: sqlite, " +
					tt.store + ", timeout: 3s, options: { initSchema: true } }\n  generators:\n    order: { strategy: segment, store: db, step: 10 }\n"})
				t.Chdir(dir)
				first := nextOf(t, "cosid.yaml", "order")
				t.Chdir(wd)
				second := nextOf(t, filepath.Join(dir, "cosid.yaml"), "order")
				if first != "1" || second != "2" {
					t.Errorf("first run gave %s, the run from %s %s; want 1 then 2 (the file next to the configuration)", first, wd, second)
				}
				if wd != "/" {
					if entries, _ := os.ReadDir(wd); len(entries) > 0 {
						t.Errorf("the run from %s created %s there", wd, entries[0].Name())
					}
				}
			})
		}
	}
}

// TestConfigOpenStore_ReadsTheConfigDir checks that an operator's tool opening a store
// of a configuration (Config.OpenStore, as cosid keys and cosid seal do) from another
// directory reaches the same SQLite file as the service: the range it reserves lies
// above what the service handed out, not at a new file's 1.
func TestConfigOpenStore_ReadsTheConfigDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "svc")
	writeFiles(t, dir, map[string]string{"cosid.yaml": "cosid:\n  namespace: app\n  stores:\n    db: { type: sql, driver: sqlite, " +
		"dsn: ids.db, timeout: 3s, options: { initSchema: true } }\n  generators:\n    order: { strategy: segment, store: db, step: 10 }\n"})
	t.Chdir(dir)
	if first := nextOf(t, "cosid.yaml", "order"); first != "1" {
		t.Fatalf("the service's first id = %s; want 1", first)
	}
	t.Chdir(t.TempDir())
	cfg, err := cosid.ReadConfig(filepath.Join(dir, "cosid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := cfg.OpenStore(t.Context(), "db", cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Reserve(t.Context(), "app/order", 10, 1)
	if err != nil || r.Start != 2 {
		t.Errorf("Reserve(app/order) on OpenStore's store = %+v, %v; want [2, 12), above the service's one id (it gave the rest back, S7)", r, err)
	}
}

func nextOf(t *testing.T, path, name string) string {
	t.Helper()
	rt, err := cosid.Load(t.Context(), path, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	id, err := rt.Next(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLoad_FileSettingsAreReadFromTheConfigDir checks every file setting of the
// store types (password-file, token-file, the TLS files, dsn-file): a relative name
// is the file next to the configuration, whatever the working directory. Load reads
// these files at once (it checks the settings without I/O), so the file is found or
// refused there; the same setting with the file missing must be refused, naming the
// setting.
func TestLoad_FileSettingsAreReadFromTheConfigDir(t *testing.T) {
	ca, cert, key := testCertificate(t)
	for _, tt := range []struct {
		name, store, setting string
		files                map[string]string
	}{
		{"SQLPasswordFile", "{type: sql, driver: pgx, dsn: 'postgres://u@127.0.0.1:1/x', password-file: secret/pg.pass}", "password-file",
			map[string]string{"secret/pg.pass": "p@ss\n"}},
		{"SQLDSNFile", "{type: sql, driver: pgx, dsn-file: secret/pg.dsn}", "dsn-file",
			map[string]string{"secret/pg.dsn": "postgres://u@127.0.0.1:1/x\n"}},
		{"RedisPasswordFile", "{type: redis, addr: '127.0.0.1:1', password-file: secret/redis.pass}", "password-file",
			map[string]string{"secret/redis.pass": "pw\n"}},
		{"EtcdPasswordFile", "{type: etcd, endpoints: ['127.0.0.1:1'], username: u, password-file: secret/etcd.pass}", "password-file",
			map[string]string{"secret/etcd.pass": "pw\n"}},
		{"EtcdCAFile", "{type: etcd, endpoints: ['127.0.0.1:1'], tls: {ca-file: tls/ca.pem}}", "ca-file",
			map[string]string{"tls/ca.pem": ca}},
		{"EtcdCertAndKeyFiles", "{type: etcd, endpoints: ['127.0.0.1:1'], tls: {cert-file: tls/c.pem, key-file: tls/k.pem}}", "cert-file",
			map[string]string{"tls/c.pem": cert, "tls/k.pem": key}},
		{"MongoDBURITLSCAFile", "{type: mongodb, uri: 'mongodb://127.0.0.1:1/?tls=true&tlsCAFile=tls/ca.pem', database: d}", "uri",
			map[string]string{"tls/ca.pem": ca}},
		{"HTTPTokenFile", "{type: http, url: 'http://127.0.0.1:1', token-file: secret/token}", "token-file",
			map[string]string{"secret/token": "t0ken\n"}},
	} {
		for wdName, wd := range workingDirs(t) {
			t.Run(tt.name+"/"+wdName, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "svc")
				writeFiles(t, dir, map[string]string{"cosid.yaml": "cosid:\n  stores:\n    s: " + tt.store + "\n"})
				t.Chdir(wd)
				path := filepath.Join(dir, "cosid.yaml")
				_, err := cosid.Load(t.Context(), path, cosid.WithLogger(nil))
				if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), tt.setting) {
					t.Fatalf("Load without the files = %v, want a configuration error naming %s", err, tt.setting)
				}
				writeFiles(t, dir, tt.files)
				rt, err := cosid.Load(t.Context(), path, cosid.WithLogger(nil))
				if err != nil {
					t.Fatalf("Load from %s with the files next to the configuration: %v", wd, err)
				}
				rt.Close()
			})
		}
	}
}

// TestConfig_DirOfReadConfigIsTheFilesAbsoluteDir checks that ReadConfig records
// the file's directory absolute, so that a later change of the working directory
// does not move the files, and that the embedded default keeps the working
// directory.
func TestConfig_DirOfReadConfigIsTheFilesAbsoluteDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"sub/cosid.yaml": "cosid:\n  stores: {m: {type: memory}}\n"})
	t.Chdir(dir)
	cfg, err := cosid.ReadConfig("sub/cosid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "sub"); cfg.Dir != want {
		t.Errorf("ReadConfig(sub/cosid.yaml).Dir = %q, want %q", cfg.Dir, want)
	}
	if d := cosid.DefaultConfig().Dir; d != "" {
		t.Errorf("DefaultConfig().Dir = %q, want empty: the working directory", d)
	}
}

// testCertificate returns a self-signed certificate, as a CA file and as a client
// certificate, and its key, in PEM.
func testCertificate(t *testing.T) (ca, cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cosid-test"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	c := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	return c, c, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}))
}
