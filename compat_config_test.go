package cosid_test

import (
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestConfig_LeafAndTinyidNameTheirGenerators checks that cosid.serve.leaf and
// cosid.serve.tinyid name generators of the kind their routes serve, each refusal
// with its YAML path.
func TestConfig_LeafAndTinyidNameTheirGenerators(t *testing.T) {
	const gens = `
cosid:
  stores: { mem: { type: memory } }
  generators:
    plain: { strategy: segment, store: mem }
    biz: { strategy: segment, store: mem, keyed: true }
    event: { strategy: snowflake, machine-id: 1 }
  serve: `
	tests := []struct{ serve, want string }{
		{"{ leaf: { segment: biz, snowflake: event }, tinyid: { template: biz } }", ""},
		{"{ leaf: { segment: plain } }", `cosid.serve.leaf.segment: generator "plain" is not a keyed segment generator`},
		{"{ leaf: { segment: nope } }", `cosid.serve.leaf.segment: no generator "nope"; want one of: biz, event, plain`},
		{"{ leaf: { snowflake: biz } }", `cosid.serve.leaf.snowflake: generator "biz" is a segment generator; want a snowflake generator`},
		{"{ tinyid: { template: event } }", `cosid.serve.tinyid.template: generator "event" is not a keyed segment generator`},
		{"{ tinyid: { templat: biz } }", "templat"},
	}
	for _, tc := range tests {
		t.Run(tc.serve, func(t *testing.T) {
			cfg, err := cosid.ParseConfig([]byte(gens + tc.serve + "\n"))
			if err == nil {
				var rt *cosid.Runtime
				rt, err = cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
				if err == nil {
					rt.Close()
				}
			}
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("serve %s: %v; want %q", tc.serve, err, tc.want)
			}
		})
	}
}
