package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestConfigCheckOpen_ClosedPortFails points a store of each type at a closed port:
// config check --open contacts it for real, even the stores that open lazily (etcd,
// ZooKeeper, MongoDB, http), and exits 1 naming the store.
func TestConfigCheckOpen_ClosedPortFails(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, settings string }{
		{"sql", `driver: pgx, dsn: "postgres://cosid@ADDR/app"`},
		{"sql", `driver: mysql, dsn: "root@tcp(ADDR)/app"`},
		{"redis", `addr: ADDR`},
		{"etcd", `endpoints: [ADDR]`},
		{"zookeeper", `servers: [ADDR]`},
		{"mongodb", `uri: "mongodb://ADDR/", database: app`},
		{"http", `url: "http://ADDR"`},
	}
	for _, tc := range tests {
		t.Run(tc.typ+" "+tc.settings[:10], func(t *testing.T) {
			t.Parallel()
			settings := strings.ReplaceAll(tc.settings, "ADDR", testenv.ClosedAddr(t))
			dir := writeConfig(t, fmt.Sprintf("cosid:\n  stores:\n    down: { type: %s, %s, timeout: 1s }\n", tc.typ, settings))
			out, errOut, code := runCLI(t, dir, "config", "check", "--open")
			if code != 1 || !strings.Contains(errOut, fmt.Sprintf("store %q (type %s)", "down", tc.typ)) || !strings.Contains(out, "FAILED") {
				t.Errorf("config check --open of a %s store on a closed port: exit %d, stdout %q, stderr %q; want exit 1 naming store \"down\"",
					tc.typ, code, out, errOut)
			}
		})
	}
}

// TestConfigCheckOpen_NamesAFailedStoreOnce: the line of a failed store names
// it and its type once, with one "cosid: ", where it read
// `cosid: store "cache" (type redis): cosid: store "cache" unavailable: …`; a
// Redis that can lose writes is refused as a setting to change, not as an outage.
func TestConfigCheckOpen_NamesAFailedStoreOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ settings, says string }{
		{"type: redis, addr: '" + testenv.Server(t, testenv.Redis) + "'", "appendfsync always"},
		{"type: sql, driver: pgx, dsn: 'postgres://cosid@" + testenv.ClosedAddr(t) + "/app'", "unavailable"},
	} {
		dir := writeConfig(t, "cosid:\n  stores:\n    cache: { "+tc.settings+", timeout: 1s }\n")
		_, errOut, code := runCLI(t, dir, "config", "check", "--open")
		if code != 1 || strings.Count(errOut, `store "cache"`) != 1 || strings.Count(errOut, "cosid: ") != 1 || !strings.Contains(errOut, tc.says) {
			t.Errorf("config check --open of %s: exit %d, stderr %q; want exit 1, one `store \"cache\"`, one \"cosid: \", and %q", tc.settings, code, errOut, tc.says)
		}
		if strings.Contains(tc.settings, "redis") && strings.Contains(errOut, "unavailable") {
			t.Errorf("config check --open of a volatile Redis: stderr %q; want no \"unavailable\": it is no outage", errOut)
		}
	}
}

// TestConfigCheckOpen_HTTPStoreToken checks an http store against a real server
// that wants a token: the right token passes, a wrong one fails the check.
func TestConfigCheckOpen_HTTPStoreToken(t *testing.T) {
	t.Parallel()
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	srv, err := server.New(rt, server.WithStore(memstore.New()), server.WithToken("s3cret"), server.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	for _, tc := range []struct {
		token string
		code  int
	}{{"s3cret", 0}, {"wrong", 1}} {
		dir := writeConfig(t, fmt.Sprintf("cosid:\n  stores:\n    proxy: { type: http, url: %q, token-file: token, timeout: 2s }\n", hs.URL))
		if err := os.WriteFile(filepath.Join(dir, "token"), []byte(tc.token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runCLI(t, dir, "config", "check", "--open")
		if code != tc.code {
			t.Errorf("token %q: exit %d, stdout %q, stderr %q; want exit %d", tc.token, code, out, errOut, tc.code)
		}
		if tc.code == 0 && !strings.Contains(out, "proxy  http  ok, leases slots") {
			t.Errorf("token %q: stdout %q, want the store ok", tc.token, out)
		}
		if tc.code == 1 && !strings.Contains(errOut, `store "proxy" (type http)`) {
			t.Errorf("token %q: stderr %q, want it to name the store", tc.token, errOut)
		}
	}
}

// TestNext_MemoryStoreRefuses: a memory store forgets its keys and leases when the
// process ends, so cosid next, a process per run, refuses it rather than print the
// same ids on every run.
func TestNext_MemoryStoreRefuses(t *testing.T) {
	t.Parallel()
	dir := writeConfig(t, `cosid:
  stores:
    mem: { type: memory }
  generators:
    code: { strategy: segment, store: mem }
    ev: { strategy: snowflake, store: mem }
    fixed: { strategy: snowflake, machine-id: 1 }
`)
	for name, says := range map[string]string{"code": "its ids die with the process", "ev": "its slot leases die with the process"} {
		out, errOut, code := runCLI(t, dir, "next", name)
		if code != 1 || out != "" || !strings.Contains(errOut, says) || !strings.Contains(errOut, `store "mem" of type memory`) {
			t.Errorf("next %s on a memory store: exit %d, stdout %q, stderr %q; want exit 1 saying %q", name, code, out, errOut, says)
		}
	}
	if out, errOut, code := runCLI(t, dir, "next", "fixed"); code != 0 || out == "" {
		t.Errorf("next fixed (no store) = %q, exit %d, stderr %q; want an id", out, code, errOut)
	}
}

// TestConfigCheckOpen_PrintsStoreID checks that config check --open prints a
// store's identity: the same on every run on one database, another on another.
func TestConfigCheckOpen_PrintsStoreID(t *testing.T) {
	t.Parallel()
	idRE := regexp.MustCompile(`db\s+sql\s+ok, leases slots, store-id ([0-9a-f]{16})\n`)
	check := func(dir string) string {
		out, errOut, code := runCLI(t, dir, "config", "check", "--open")
		m := idRE.FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("config check --open: exit %d, stdout %q, stderr %q; want the store ok with its store-id", code, out, errOut)
		}
		return m[1]
	}
	const yaml = "cosid:\n  stores:\n    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }\n"
	a, b := writeConfig(t, yaml), writeConfig(t, yaml)
	if first, again, other := check(a), check(a), check(b); first != again || first == other {
		t.Errorf("store-ids of a database, of it again, of another: %s, %s, %s; want the first two alike, the third another", first, again, other)
	}
}

// TestConfigCheck_OfflineReadsNoSecretNorHostName checks config check as a CI job
// runs it, off the cluster a configuration describes: without --open it reads no
// secret file and does not resolve from-hostname, and says each is checked at
// --open or start; --open reads and resolves them, as start does.
func TestConfigCheck_OfflineReadsNoSecretNorHostName(t *testing.T) {
	t.Setenv("HOSTNAME", "vm") // no ordinal: from-hostname fails where it is resolved
	dir := writeConfig(t, `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: pgx, dsn-file: /run/secrets/cosid/dsn }
  generators:
    order: { strategy: segment, store: db }
    event: { strategy: snowflake, machine-id: from-hostname }
`)
	out, errOut, code := runCLI(t, dir, "config", "check")
	if code != 0 || !strings.Contains(out, "(machine-id from-hostname: resolved at --open or start)") ||
		!strings.Contains(out, "  - dsn-file: reads /run/secrets/cosid/dsn when the store opens (at start, or config check --open); an offline check reads no file\n") {
		t.Errorf("config check = exit %d, stdout:\n%s\nstderr %q; want ok, saying what it left for --open or start", code, out, errOut)
	}
	_, errOut, code = runCLI(t, dir, "config", "check", "--open")
	if code != 1 || !strings.Contains(errOut, "cosid.yaml:4: cosid.stores.db.dsn-file: open /run/secrets/cosid/dsn: no such file or directory") {
		t.Errorf("config check --open = exit %d, stderr %q; want the dsn-file read and refused", code, errOut)
	}
}

// TestConfigCheckOpen_HTTPStoreOfTwoStoresFails checks that config check --open
// fails when the servers of an http store's urls serve two stores, naming both.
func TestConfigCheckOpen_HTTPStoreOfTwoStoresFails(t *testing.T) {
	t.Parallel()
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var urls, ids []string
	for range 2 {
		st := memstore.New()
		id, err := st.StoreID(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		srv, err := server.New(rt, server.WithStore(st), server.WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		defer hs.Close()
		urls, ids = append(urls, hs.URL), append(ids, id)
	}
	dir := writeConfig(t, fmt.Sprintf("cosid:\n  stores:\n    fleet: { type: http, urls: [%q, %q], store-id: %s, timeout: 2s }\n", urls[0], urls[1], ids[0]))
	out, errOut, code := runCLI(t, dir, "config", "check", "--open")
	if code != 1 || !strings.Contains(errOut, urls[1]) || !strings.Contains(errOut, ids[1]) || !strings.Contains(errOut, "store-id "+ids[0]) {
		t.Errorf("config check --open of urls on two stores: exit %d, stdout %q, stderr %q; want exit 1 naming %s, its store %s and store-id %s",
			code, out, errOut, urls[1], ids[1], ids[0])
	}
}
