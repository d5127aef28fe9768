package sqldb_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

const (
	leaseHelperEnv = "COSID_SQLSTORE_LEASE_HELPER" // driver, dsn, namespace, owner key and id file of a helper process
	idsPerChild    = 100_000
	helperSlots    = 2
	helperSays     = "lease-helper: " // the start of the lines a helper reports on
)

// TestLeaseHelperProcess is the body of the child processes of
// TestProcesses_NoDuplicateSnowflakeIDs: it starts a snowflake generator on a slot of
// the namespace, writes idsPerChild ids to its file and reports its slot; then, once
// its standard input ends, it closes the generator, which releases the slot. A child
// that finds no free slot reports that and ends.
func TestLeaseHelperProcess(t *testing.T) {
	spec := os.Getenv(leaseHelperEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestProcesses_NoDuplicateSnowflakeIDs")
	}
	var driver, dsn, ns, owner, path string
	if _, err := fmt.Sscanf(spec, "%q %q %q %q %q", &driver, &dsn, &ns, &owner, &path); err != nil {
		t.Fatalf("%s=%s: %v", leaseHelperEnv, spec, err)
	}
	st := openStore(t, backend{name: driver, driver: driver}, dsn)
	g, err := snowflake.New(t.Context(), st, snowflake.DefaultLayout(), snowflake.WithNamespace(ns),
		snowflake.WithOwnerKey(owner), snowflake.WithLimit(helperSlots), snowflake.WithLogger(nil))
	if errors.Is(err, store.ErrNoFreeSlot) {
		fmt.Printf("%sno free slot: %v\n", helperSays, err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]byte, 0, 8*idsPerChild)
	for range idsPerChild {
		id, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		ids = binary.LittleEndian.AppendUint64(ids, uint64(id))
	}
	if err := os.WriteFile(path, ids, 0o644); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%sgenerated on slot %d\n", helperSays, g.Machine())
	io.Copy(io.Discard, os.Stdin)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestProcesses_NoDuplicateSnowflakeIDs runs snowflake generators in real processes
// on one database, in a namespace of two slots: two processes take both slots and
// generate ids while a third finds no free slot (store.ErrNoFreeSlot); then they
// release their slots to two new processes with other owner keys, which generate
// more. No id of the four generators repeats.
func TestProcesses_NoDuplicateSnowflakeIDs(t *testing.T) {
	for _, b := range []backend{backends[0], backends[2]} { // PostgreSQL, and one SQLite file
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			openStore(t, b, dsn) // creates the tables before the children race
			ns := "procs/" + rand.Text()
			dir := t.TempDir()
			start := func(owner string) *helper { return startHelper(t, b.driver, dsn, ns, owner, filepath.Join(dir, owner)) }

			first := []*helper{start("first-a"), start("first-b")}
			slots := map[string]bool{}
			for _, h := range first {
				slots[h.await(t, "generated on slot ")] = true
			}
			if len(slots) != helperSlots {
				t.Errorf("the two processes reported slots %v, want both of the namespace's %d", slots, helperSlots)
			}
			third := start("third")
			third.await(t, "no free slot")
			third.wait(t)
			for _, h := range first {
				h.wait(t) // closes its input: it releases its slot
			}

			second := []*helper{start("second-a"), start("second-b")}
			for _, h := range second {
				h.await(t, "generated on slot ")
				h.wait(t)
			}

			var all []int64
			for _, h := range append(first, second...) {
				all = append(all, h.ids(t)...)
			}
			slices.Sort(all)
			dups := 0
			for i := 1; i < len(all); i++ {
				if all[i] == all[i-1] {
					if dups++; dups <= 5 {
						t.Errorf("id %d was generated twice (%+v)", all[i], snowflake.DefaultLayout().Parse(all[i]))
					}
				}
			}
			if want := 4 * idsPerChild; len(all) != want || dups > 0 {
				t.Errorf("%d ids with %d duplicates, want %d distinct", len(all), dups, want)
			}
		})
	}
}

// helper is a child process running TestLeaseHelperProcess.
type helper struct {
	owner, path string
	cmd         *exec.Cmd
	stdin       io.WriteCloser
	lines       chan string  // what it reports, closed when its output ends
	output      bytes.Buffer // the rest of its output, to read once lines is closed
}

func startHelper(t *testing.T, driver, dsn, ns, owner, path string) *helper {
	t.Helper()
	h := &helper{owner: owner, path: path, lines: make(chan string, 16)}
	h.cmd = exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestLeaseHelperProcess$", "-test.count=1")
	h.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%q %q %q %q %q", leaseHelperEnv, driver, dsn, ns, owner, path))
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	h.cmd.Stderr = h.cmd.Stdout
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), helperSays); ok {
				h.lines <- line
			} else {
				fmt.Fprintln(&h.output, sc.Text())
			}
		}
	}()
	t.Cleanup(func() { h.cmd.Process.Kill(); h.cmd.Wait() })
	return h
}

// await returns the rest of the helper's next report, which must start with prefix.
func (h *helper) await(t *testing.T, prefix string) string {
	t.Helper()
	line, ok := <-h.lines
	rest, found := strings.CutPrefix(line, prefix)
	if !ok || !found {
		h.stdin.Close()
		for range h.lines {
		}
		h.cmd.Wait()
		t.Fatalf("process %q reported %q, want %q…; its output:\n%s", h.owner, line, prefix, h.output.Bytes())
	}
	return rest
}

// wait ends the helper's input and waits for it to exit.
func (h *helper) wait(t *testing.T) {
	t.Helper()
	h.stdin.Close()
	for range h.lines {
	}
	if err := h.cmd.Wait(); err != nil {
		t.Errorf("process %q: %v\n%s", h.owner, err, h.output.Bytes())
	}
}

// ids returns the ids the helper wrote.
func (h *helper) ids(t *testing.T) []int64 {
	t.Helper()
	b, err := os.ReadFile(h.path)
	if err != nil {
		t.Fatalf("process %q: %v", h.owner, err)
	}
	if len(b) != 8*idsPerChild {
		t.Fatalf("process %q wrote %d bytes, want %d ids", h.owner, len(b), idsPerChild)
	}
	ids := make([]int64, idsPerChild)
	for i := range ids {
		ids[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return ids
}
