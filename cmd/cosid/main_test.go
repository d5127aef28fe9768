package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mainEnv = "COSID_CLI_RUN_MAIN"

// TestMain makes the test binary the cosid command when mainEnv is set, so that
// tests run the real CLI in a process of its own.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cosid runs the CLI with args in dir and returns its stdout, stderr and exit code.
func cosid(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// TestNext_ContinuesAcrossRuns runs cosid next twice on the default store, cosid.db in
// the working directory: the second run goes on where the first stopped, nothing
// burned.
func TestNext_ContinuesAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	for _, want := range []string{"1\n2\n3\n", "4\n5\n6\n"} {
		out, errOut, code := cosid(t, dir, "next", "order", "-n", "3")
		if code != 0 || out != want {
			t.Fatalf("cosid next order -n 3 = %q (exit %d, stderr %q), want %q", out, code, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cosid.db")); err != nil {
		t.Errorf("the default store cosid.db: %v", err)
	}
	// Another namespace is another key; --store names the same file.
	out, _, code := cosid(t, t.TempDir(), "next", "order", "--namespace", "shop", "--store", "sqlite:"+filepath.Join(dir, "cosid.db"))
	if code != 0 || out != "1\n" {
		t.Errorf("next in namespace shop = %q (exit %d), want 1", out, code)
	}
}

func TestNext_BadInputExits1(t *testing.T) {
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"next"}, "accepts 1 arg"},
		{[]string{"next", "order", "-n", "0"}, "--count 0"},
		{[]string{"next", "order", "--store", "redis:x"}, "sqlite:PATH"},
		{[]string{"next", "order", "--store", "sqlite:a.db", "--dsn", "postgres://x"}, "give one"},
		{[]string{"next", "order", "--driver", "pgx"}, "--driver needs --dsn"},
		{[]string{"next", "order", "--dsn", "some-dsn"}, "set --driver"},
		{[]string{"next", "order", "--dsn", "postgres://postgres@127.0.0.1:1/x", "--timeout", "1s"}, "cannot reach"},
		{[]string{"next", strings.Repeat("x", 250)}, "over the limit"},
		{[]string{"nope"}, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " ")[:min(40, len(strings.Join(tc.args, " ")))], func(t *testing.T) {
			out, errOut, code := cosid(t, t.TempDir(), tc.args...)
			if code != 1 || out != "" {
				t.Errorf("exit %d, stdout %q; want exit 1 and no output", code, out)
			}
			if !strings.Contains(errOut, tc.mention) {
				t.Errorf("stderr %q does not say %q", errOut, tc.mention)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out, _, code := cosid(t, t.TempDir(), "version")
	if code != 0 || !strings.HasPrefix(out, "cosid ") {
		t.Errorf("cosid version = %q (exit %d)", out, code)
	}
}

func TestInferDriver(t *testing.T) {
	tests := []struct{ dsn, driver string }{
		{"postgres://u@h:5432/db", "pgx"},
		{"postgresql://u@h/db", "pgx"},
		{"sqlserver://sa@h?database=db", "sqlserver"},
		{"root@tcp(127.0.0.1:3306)/test", "mysql"},
		{"u:p@unix(/run/mysqld.sock)/db", "mysql"},
		{"file:ids.db", "sqlite"},
		{"ids.db", ""},
	}
	for _, tc := range tests {
		got, err := inferDriver(tc.dsn)
		if got != tc.driver || (err != nil) != (tc.driver == "") {
			t.Errorf("inferDriver(%q) = %q, %v; want %q", tc.dsn, got, err, tc.driver)
		}
	}
}
