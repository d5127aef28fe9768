package cosid_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestRuntime_ByNameFindsEachGeneratorAmongFewOrMany takes ids by name from
// runtimes of a few generators (found by a scan) and of many (found in a map):
// each name reaches its own sequence, a keyed one wants a key, and an unknown
// one is ErrUnknownGenerator.
func TestRuntime_ByNameFindsEachGeneratorAmongFewOrMany(t *testing.T) {
	for _, n := range []int{2, 12} {
		t.Run(strconv.Itoa(n)+" generators", func(t *testing.T) {
			var yaml strings.Builder
			yaml.WriteString("cosid:\n  stores: { mem: { type: memory } }\n  generators:\n    keyed: { strategy: segment, store: mem, keyed: true }\n")
			for i := range n {
				fmt.Fprintf(&yaml, "    g%d: { strategy: segment, store: mem, initial-offset: %d }\n", i, 1000*i+1)
			}
			rt := mustOpen(t, yaml.String())
			for i := range n {
				name := "g" + strconv.Itoa(i)
				if v, err := rt.NextInt(t.Context(), name); v != int64(1000*i+1) || err != nil {
					t.Errorf("NextInt(%q) = %d, %v; want %d", name, v, err, 1000*i+1)
				}
				if text, err := rt.Next(t.Context(), name); text != strconv.Itoa(1000*i+2) || err != nil {
					t.Errorf("Next(%q) = %q, %v; want %d", name, text, err, 1000*i+2)
				}
			}
			if _, err := rt.NextInt(t.Context(), "keyed"); !errors.Is(err, cosid.ErrKeyRequired) {
				t.Errorf("NextInt of the keyed template: %v; want ErrKeyRequired", err)
			}
			if _, err := rt.Next(t.Context(), "keyed"); !errors.Is(err, cosid.ErrKeyRequired) {
				t.Errorf("Next of the keyed template: %v; want ErrKeyRequired", err)
			}
			if _, err := rt.NextInt(t.Context(), "nope"); !errors.Is(err, cosid.ErrUnknownGenerator) {
				t.Errorf("NextInt of an unknown name: %v; want ErrUnknownGenerator", err)
			}
		})
	}
}
