package cosid_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestSource_TakeReservesExactly checks that Take reserves exactly the ids it
// returns, for segment and periodic segment alike, so that the next Take continues.
func TestSource_TakeReservesExactly(t *testing.T) {
	rt := mustOpen(t, memConfig)
	tests := []struct {
		name  string
		first []string
		then  *regexp.Regexp
	}{
		{"order", []string{"1", "2", "3"}, regexp.MustCompile(`^4$`)},
		{"code", []string{"C-0000G8", "C-0000G9", "C-0000GA"}, regexp.MustCompile(`^C-0000GB$`)},
		{"bill", nil, regexp.MustCompile(`^\d{8}-000004$`)},
		{"event", nil, regexp.MustCompile(`^\d{17}-[0-3]-\d+$`)},
	}
	for _, tc := range tests {
		src := source(t, rt, tc.name, "")
		got, err := src.Take(t.Context(), 3)
		if err != nil || len(got) != 3 || (tc.first != nil && !slices.Equal(got, tc.first)) {
			t.Errorf("Take(%s, 3) = %q, %v; want %q", tc.name, got, err, tc.first)
		}
		next, err := src.Take(t.Context(), 1)
		if err != nil || len(next) != 1 || !tc.then.MatchString(next[0]) {
			t.Errorf("then Take(%s, 1) = %q, %v; want %v", tc.name, next, err, tc.then)
		}
	}
	for _, n := range []int64{0, -1, cosid.MaxTake + 1} {
		if _, err := source(t, rt, "order", "").Take(t.Context(), n); err == nil || !strings.Contains(err.Error(), "want 1–10000") {
			t.Errorf("Take(order, %d) = %v; want an error giving the limits", n, err)
		}
	}
}
