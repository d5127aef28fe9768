package cosid_test

import (
	"testing"

	"github.com/cosid-go/cosid"
)

// openYAML parses and opens a configuration (as the root's tests do).
func openYAML(t *testing.T, text string) (*cosid.Runtime, error) {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		return nil, err
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err == nil {
		t.Cleanup(func() { rt.Close() })
	}
	return rt, err
}

func mustOpen(t *testing.T, text string) *cosid.Runtime {
	t.Helper()
	rt, err := openYAML(t, text)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return rt
}
