package storetest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/storekit"
	"github.com/cosid-go/cosid/store/storetest"
)

// flawedStore is a RangeStore with one deliberate flaw, to show that the kit notices
// it. Its instances share one backend: mu, next and seal.
type flawedStore struct {
	flaw   string
	mu     *sync.Mutex
	next   map[string]int64
	seal   map[string]bool
	closed atomic.Bool
}

func (s *flawedStore) Reserve(ctx context.Context, key string, size, offset int64) (store.Range, error) {
	if s.flaw != "no-validation" {
		if err := storekit.CheckReserve(key, size, offset); err != nil {
			return store.Range{}, err
		}
	}
	if err := s.check(ctx); err != nil {
		return store.Range{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seal[key] && s.flaw != "forgets-seal" {
		return store.Range{}, fmt.Errorf("%q: %w", key, store.ErrSealed)
	}
	next, ok := s.next[key]
	if !ok && s.flaw != "ignores-offset" {
		next = offset
	}
	if !storekit.Fits(next, size) && s.flaw != "wraps-around" {
		return store.Range{}, fmt.Errorf("%q: %w", key, store.ErrExhausted)
	}
	step := size
	if s.flaw == "overlaps" && size > 1 {
		step = size - 1
	}
	s.next[key] = next + step
	return store.Range{Start: next, End: next + size}, nil
}

func (s *flawedStore) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return err
	}
	if err := s.check(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seal[key] = true
	return nil
}

func (s *flawedStore) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, err
	}
	if err := s.check(ctx); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next, ok := s.next[key]
	switch {
	case s.flaw == "gives-back-creating" && !ok:
	case !ok, s.seal[key] && s.flaw != "gives-back-sealed":
		return false, nil
	case next != tail.End && s.flaw != "gives-back-without-compare":
		return false, nil
	}
	s.next[key] = tail.Start
	return true, nil
}

func (s *flawedStore) Close() error {
	s.closed.Store(s.flaw != "serves-after-close")
	return nil
}

func (s *flawedStore) check(ctx context.Context) error {
	if s.closed.Load() {
		return store.ErrClosed
	}
	return ctx.Err()
}

// TestFlawedStoreHelper runs the kit on the flawed store that COSID_TCK_FLAW names;
// it is the body of the child processes of TestKit_FindsFlaws.
func TestFlawedStoreHelper(t *testing.T) {
	flaw := os.Getenv("COSID_TCK_FLAW")
	if flaw == "" {
		t.Skip("runs only as a child of TestKit_FindsFlaws")
	}
	mu, next, seal := new(sync.Mutex), map[string]int64{}, map[string]bool{}
	storetest.RunRangeStore(t, func(*testing.T) store.RangeStore {
		return &flawedStore{flaw: flaw, mu: mu, next: next, seal: seal}
	})
}

// TestKit_FindsFlaws runs the kit on stores that each break one rule, in a child
// process so that their failures do not fail this test, and checks that the subtest
// named after the rule fails.
func TestKit_FindsFlaws(t *testing.T) {
	tests := []struct{ flaw, failing string }{
		{"none", ""}, // the store itself keeps the contract
		{"no-validation", "Arguments"},
		{"serves-after-close", "Closed"},
		{"overlaps", "S1_NoOverlapGrowing"},
		{"overlaps", "S3_ReturnedRangeIsTruth"},
		{"overlaps", "S4_NoDuplicates"},
		{"ignores-offset", "S2_FirstRangeAtOffset"},
		{"wraps-around", "S5_Exhausted"},
		{"forgets-seal", "S6_SealedNeverRecreated"},
		{"gives-back-without-compare", "S7_NotAfterAnotherReserve"},
		{"gives-back-without-compare", "S7_NeverBelow"},
		{"gives-back-without-compare", "S7_RacingReservesNoDuplicates"},
		{"gives-back-sealed", "S7_SealedKeyUnchanged"},
		{"gives-back-creating", "S7_MissingKeyUnchanged"},
	}
	for _, tc := range tests {
		t.Run(tc.flaw+"/"+tc.failing, func(t *testing.T) {
			t.Parallel()
			checkFails(t, "TestFlawedStoreHelper", tc.flaw, tc.failing)
		})
	}
}

// checkFails runs the test helper in a child process with COSID_TCK_FLAW=flaw and
// checks that its subtest failing fails, or with failing "" that it passes.
func checkFails(t *testing.T, helper, flaw, failing string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+helper+"$", "-test.v")
	cmd.Env = append(os.Environ(), "COSID_TCK_FLAW="+flaw)
	out, err := cmd.CombinedOutput()
	switch {
	case failing == "" && err != nil:
		t.Fatalf("the kit failed a store without flaws: %v\n%s", err, out)
	case failing == "":
		return
	case err == nil:
		t.Fatalf("the kit passed a store with the flaw %s:\n%s", flaw, out)
	}
	if want := "--- FAIL: " + helper + "/" + failing; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
