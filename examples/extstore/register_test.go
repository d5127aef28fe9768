package extstore_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// entry is the Spec of the store entry ids, read from a configuration file in dir,
// whose settings are the JSON object settings (the root package decodes YAML; the
// fields match alike).
func entry(dir, settings string) store.Spec {
	return store.Spec{Name: "ids", Path: "cosid.stores.ids", Dir: dir, Decode: func(v any) error {
		return json.Unmarshal([]byte(settings), v)
	}}
}

// TestRegister_OpensFileBesideConfig opens the configuration type jsonfile: its facts
// come from Check, and the store it opens keeps its ranges in path, read from the
// configuration file's directory.
func TestRegister_OpensFileBesideConfig(t *testing.T) {
	typ, ok := store.Lookup("jsonfile")
	if !ok {
		t.Fatal(`store type "jsonfile" is not registered`)
	}
	dir := t.TempDir()
	spec := entry(dir, `{"path": "ids.json"}`)
	facts, err := typ.Check(spec)
	if err != nil || facts.Timeout != 2*time.Second || facts.TimeoutSet || !facts.Leases {
		t.Errorf("Check = %+v, %v; want the default timeout of 2s and slots leased", facts, err)
	}
	st, err := typ.Open(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.Reserve(t.Context(), "order", 10, 1); err != nil || r != (store.Range{Start: 1, End: 11}) {
		t.Fatalf("Reserve = %v, %v; want [1, 11)", r, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ids.json")); err != nil {
		t.Errorf("the data file beside the configuration: %v", err)
	}
}

// TestRegister_Errors checks that bad settings fail Check and Open alike, naming the
// setting, and that a file that cannot be opened fails Open, naming the entry.
func TestRegister_Errors(t *testing.T) {
	typ, _ := store.Lookup("jsonfile")
	dir := t.TempDir()
	for _, tc := range []struct{ settings, mention string }{
		{`{}`, "cosid.stores.ids.path: missing"},
		{`{"path": "ids.json", "timeout": -1}`, "cosid.stores.ids.timeout: "},
	} {
		spec := entry(dir, tc.settings)
		if _, err := typ.Check(spec); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Check(%s): %v, want an invalid argument naming %s", tc.settings, err, tc.mention)
		}
		if _, err := typ.Open(t.Context(), spec); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Open(%s): %v, want an invalid argument naming %s", tc.settings, err, tc.mention)
		}
	}
	spec := entry(dir, `{"path": "no/such/dir/ids.json"}`)
	if _, err := typ.Check(spec); err != nil {
		t.Errorf("Check of a path it does not open: %v", err)
	}
	if _, err := typ.Open(t.Context(), spec); err == nil || !strings.HasPrefix(err.Error(), "cosid.stores.ids: extstore: ") {
		t.Errorf("Open of a file in no directory: %v, want an error naming the entry", err)
	}
}
