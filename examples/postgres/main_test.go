package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
)

// TestRun runs the example on the test PostgreSQL; it skips without one.
func TestRun(t *testing.T) {
	dsn := testenv.Server(t, testenv.Postgres)
	var out bytes.Buffer
	if err := run(t.Context(), &out, dsn, 2); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^order \d+\norder \d+\nbill \d{8}-\d{6}\nbill \d{8}-\d{6}\n$`)
	if !want.MatchString(out.String()) {
		t.Errorf("output %q, want %v", out.String(), want)
	}
}

func TestRun_NeedsADatabase(t *testing.T) {
	if err := run(t.Context(), &bytes.Buffer{}, "", 1); err == nil {
		t.Error("run without a DSN succeeded")
	}
}
