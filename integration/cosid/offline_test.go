package cosid_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	_ "github.com/cosid-go/cosid/store/httpstore"
	_ "modernc.org/sqlite"
)

// TestConfig_OfflineReadsNoFileNorHostName checks a configuration off the machine
// it describes: Offline's Validate and CheckStore read no file that a store names
// (dsn-file, password-file, token-file) and take machine-id: from-hostname as
// written, saying which files they left for open; Validate and Open read and
// resolve them all.
func TestConfig_OfflineReadsNoFileNorHostName(t *testing.T) {
	t.Setenv("HOSTNAME", "vm") // no ordinal: from-hostname fails where it is resolved
	dir := t.TempDir()
	text := `cosid:
  stores:
    db: { type: sql, driver: sqlite, dsn-file: /run/secrets/cosid/dsn, password-file: pw }
    ids: { type: http, url: "http://ids:8686", token-file: /run/secrets/cosid/ids }
  generators:
    order: { strategy: segment, store: db }
    event: { strategy: snowflake, machine-id: from-hostname }
`
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = dir
	if err := cfg.Offline().Validate(); err != nil {
		t.Errorf("Offline().Validate() = %v, want nil: it reads no file and no host name", err)
	}
	facts, err := cfg.Offline().CheckStore("db")
	if err != nil || !strings.Contains(strings.Join(facts.Checks, "\n"), "dsn-file: reads /run/secrets/cosid/dsn when the store opens") ||
		!strings.Contains(strings.Join(facts.Checks, "\n"), "password-file: reads "+filepath.Join(dir, "pw")+" when the store opens") {
		t.Errorf("Offline().CheckStore(db) = %q, %v; want lines for the files it left for open", facts.Checks, err)
	}
	facts, err = cfg.Offline().CheckStore("ids")
	if err != nil || !strings.Contains(strings.Join(facts.Checks, "\n"), "token-file: reads /run/secrets/cosid/ids when the store opens") {
		t.Errorf("Offline().CheckStore(ids) = %q, %v; want a line for the token file", facts.Checks, err)
	}
	for what, err := range map[string]error{
		"Validate":            cfg.Validate(),
		"Open of Offline()":   openErr(t, cfg.Offline()),
		"CheckStore(db)":      checkStoreErr(cfg, "db"),
		"CheckStore(ids)":     checkStoreErr(cfg, "ids"),
		"Validate, no stores": noStores(cfg).Validate(),
	} {
		if !errors.Is(err, cosid.ErrConfig) {
			t.Errorf("%s = %v, want a configuration error: a file or the host name read and refused", what, err)
		}
	}
	if err := noStores(cfg).Validate(); err == nil || !strings.Contains(err.Error(), `cosid.generators.event.machine-id: from-hostname: host name "vm" has no ordinal`) {
		t.Errorf("Validate without stores = %v, want from-hostname resolved", err)
	}
}

func openErr(t *testing.T, cfg cosid.Config) error {
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err == nil {
		rt.Close()
	}
	return err
}

func checkStoreErr(cfg cosid.Config, name string) error {
	_, err := cfg.CheckStore(name)
	return err
}

// noStores is cfg with its snowflake generator alone, whose only check that needs
// the machine is from-hostname.
func noStores(cfg cosid.Config) cosid.Config {
	cfg.Stores = nil
	cfg.Generators = map[string]cosid.GeneratorConfig{"event": cfg.Generators["event"]}
	return cfg
}
