package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
)

// Children runs n copies of the test binary at once, each running only the test
// named helper with the environment variable env set to value, and returns the
// lines they printed that begin with prefix. It fails t for a copy that fails.
// The helper test skips itself when env is unset, so that it does nothing in the
// ordinary run.
func Children(t *testing.T, n int, helper, env, value, prefix string) [][]string {
	t.Helper()
	out := make([][]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), env+"="+value)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			b, err := cmd.Output()
			if err != nil {
				t.Errorf("child %d of %s: %v\n%s%s", i, helper, err, b, stderr.Bytes())
				return
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), prefix) {
					out[i] = append(out[i], sc.Text())
				}
			}
		})
	}
	wg.Wait()
	return out
}

// ChildSpec returns the n fields of env in a child of Children, which the parent
// joined with Fields. In the ordinary run, where env is unset, it skips t: a helper
// test does its work only as a child.
func ChildSpec(t *testing.T, env string, n int) []string {
	t.Helper()
	v, ok := os.LookupEnv(env)
	fields := strings.Split(v, "\x1f")
	if !ok || len(fields) != n {
		t.Skipf("runs only as a child process of its test, with %d fields in %s", n, env)
	}
	return fields
}

// Fields joins fields into the value of a child's environment variable.
func Fields(fields ...string) string { return strings.Join(fields, "\x1f") }

// Reserve is the work of a child of ChildRanges: it reserves n ranges of 3 values
// of key from st and prints each as a line "range <start> <end>".
func Reserve(t *testing.T, st store.RangeStore, key string, n int) {
	t.Helper()
	for range n {
		r, err := st.Reserve(t.Context(), key, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("range %d %d\n", r.Start, r.End)
	}
}

// ChildRanges runs two children at once (Children) whose helper test calls Reserve,
// and returns the ranges they printed, failing t for a child that printed other than
// want of them. Two processes reserving one key stand for two instances of a
// service: storetest.CheckProcessRanges checks what they got.
func ChildRanges(t *testing.T, helper, env, value string, want int) []store.Range {
	t.Helper()
	var all []store.Range
	for i, lines := range Children(t, 2, helper, env, value, "range ") {
		if len(lines) != want {
			t.Errorf("child %d printed %d ranges, want %d", i, len(lines), want)
		}
		for _, line := range lines {
			var r store.Range
			if _, err := fmt.Sscanf(line, "range %d %d", &r.Start, &r.End); err != nil {
				t.Errorf("child %d printed %q: %v", i, line, err)
			}
			all = append(all, r)
		}
	}
	return all
}
