package sqldb_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/snowflake"
)

const (
	skewHelperEnv = "COSID_SQLSTORE_SKEW_HELPER" // driver, dsn, namespace, owner key and clock skew of a helper process
	skewSlots     = 4
	skewSays      = "skew-helper: " // the start of the lines a helper reports on
)

// TestSkewHelperProcess is the body of the child processes of
// TestProcesses_SkewedOwnerDoesNotLockOutTheNamespace: it starts a snowflake
// generator whose clock is off by the given skew, makes a thousand ids, closes it,
// and reports the slot it ran on, or why it did not start.
func TestSkewHelperProcess(t *testing.T) {
	spec := os.Getenv(skewHelperEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestProcesses_SkewedOwnerDoesNotLockOutTheNamespace")
	}
	var driver, dsn, ns, owner string
	var skew time.Duration
	if _, err := fmt.Sscanf(spec, "%q %q %q %q %d", &driver, &dsn, &ns, &owner, &skew); err != nil {
		t.Fatalf("%s=%s: %v", skewHelperEnv, spec, err)
	}
	st := openStore(t, backend{name: driver, driver: driver}, dsn)
	g, err := snowflake.New(t.Context(), st, snowflake.DefaultLayout(), snowflake.WithNamespace(ns), snowflake.WithOwnerKey(owner),
		snowflake.WithLimit(skewSlots), snowflake.WithLogger(nil), snowflake.WithClock(func() time.Time { return time.Now().Add(skew) }))
	switch {
	case errors.Is(err, snowflake.ErrClockSkew):
		fmt.Printf("%srefused for clock skew: %v\n", skewSays, err)
		return
	case err != nil:
		fmt.Printf("%sfailed: %v\n", skewSays, err)
		return
	}
	for range 1000 {
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%sran on slot %d\n", skewSays, g.Machine())
}

// TestProcesses_SkewedOwnerDoesNotLockOutTheNamespace is issue 8's lock-out with
// real processes on PostgreSQL: a process whose clock runs 5s ahead of the
// database's must not leave its slot with a floor that the processes after it, with
// correct clocks, refuse one after the other.
func TestProcesses_SkewedOwnerDoesNotLockOutTheNamespace(t *testing.T) {
	b := backends[0]
	dsn := b.dsn(t)
	openStore(t, b, dsn) // creates the tables before the children
	ns := "skew/" + rand.Text()
	if got := runSkewHelper(t, b.driver, dsn, ns, "ahead", 5*time.Second); !strings.HasPrefix(got, "refused for clock skew") {
		t.Errorf("the process 5s ahead reported %q, want it refused for clock skew", got)
	}
	for i := range 3 {
		owner := fmt.Sprint("correct-", i)
		if got := runSkewHelper(t, b.driver, dsn, ns, owner, 0); !strings.HasPrefix(got, "ran on slot ") {
			t.Errorf("process %q with a correct clock reported %q, want it to run", owner, got)
		}
	}
}

// runSkewHelper runs TestSkewHelperProcess to its end and returns its report.
func runSkewHelper(t *testing.T, driver, dsn, ns, owner string, skew time.Duration) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSkewHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%q %q %q %q %d", skewHelperEnv, driver, dsn, ns, owner, skew))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("process %q: %v\n%s", owner, err, out)
	}
	for line := range strings.Lines(string(out)) {
		if report, ok := strings.CutPrefix(strings.TrimSpace(line), skewSays); ok {
			return report
		}
	}
	t.Fatalf("process %q reported nothing:\n%s", owner, out)
	return ""
}
