package extstore_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/examples/extstore"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
)

// opener returns the open func of the kits: a new Store on one file in top's
// directory, as a second process on the same file would open it, closed when the
// test that opened it ends.
func opener(top *testing.T, opts ...extstore.Option) func(t *testing.T) *extstore.Store {
	path := filepath.Join(top.TempDir(), "ids.json")
	return func(t *testing.T) *extstore.Store {
		s, err := extstore.Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
}

func TestExtstore_RangeStoreContract(t *testing.T) {
	open := opener(t)
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return open(t) })
}

func TestExtstore_SlotLeaseStoreContract(t *testing.T) {
	clock := storetest.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	open := opener(t, extstore.WithClock(clock.Now))
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return storetest.Clocked(open(t), clock) },
		listedSlots(open(t)))
}

// listedSlots counts the slots of a namespace that the store lists (its Slots), for
// the lease kit (storetest.WithSlotRows): the store keeps a row in its file only for
// a slot it leased or whose floor it raised, the slots it lists.
func listedSlots(st *extstore.Store) storetest.LeaseOption {
	return storetest.WithSlotRows(func(ctx context.Context, namespace string) (int, error) {
		info, err := st.Slots(ctx, namespace)
		if errors.Is(err, store.ErrNotFound) {
			return 0, nil
		}
		return len(info.Slots), err
	})
}

func TestExtstore_AdminContract(t *testing.T) {
	open := opener(t)
	storetest.RunAdmin(t, func(t *testing.T) store.Admin { return open(t) })
}

// TestExtstore_ImportsOnlyPublicPackages checks that the store is one that could be
// written outside the repository: no package it depends on, its test's included,
// lies under an internal/ directory.
func TestExtstore_ImportsOnlyPublicPackages(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the package's dependencies: %v", err)
	}
	// The standard library's own internal packages are no concern: -f lists the
	// others only.
	out, err := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}",
		"github.com/cosid-go/cosid/examples/extstore").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Split(strings.TrimSpace(string(out)), "\n")
	if !slices.Contains(deps, "github.com/cosid-go/cosid/store/storekit") {
		t.Fatalf("go list -deps did not list store/storekit, which extstore imports:\n%s", out)
	}
	for _, dep := range deps {
		if strings.Contains(dep, "/internal/") {
			t.Errorf("extstore depends on %s, a package under internal/", dep)
		}
	}
}
