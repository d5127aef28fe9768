package cosid_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
)

// TestConfig_MachineIDFromHostname checks machine-id: from-hostname: a StatefulSet
// pod's ordinal is its machine id; a host name without one, or out of range, is a
// configuration error that says so.
func TestConfig_MachineIDFromHostname(t *testing.T) {
	const text = "cosid:\n  generators:\n    ev: {strategy: snowflake, machine-id: from-hostname, machine-bits: 4, timestamp-bits: 47}\n"
	tests := []struct{ host, want string }{
		{"web-3", ""},
		{"orders-api-2-12", ""},
		{"web", `cosid.generators.ev.machine-id: from-hostname: host name "web" has no ordinal`},
		{"web-", `host name "web-" has no ordinal`},
		{"web-+3", `host name "web-+3" has no ordinal`},
		{"web-16", "cosid.generators.ev.machine-id: 16 (the host name's ordinal) is not in 0–15, the machines of 4 machine bits"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			t.Setenv("HOSTNAME", tc.host)
			rt, err := openYAML(t, text)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Open: %v; want an error containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			g, err := rt.Snowflake("ev")
			if err != nil {
				t.Fatal(err)
			}
			id, err := g.Next()
			if err != nil {
				t.Fatal(err)
			}
			l := snowflake.DefaultLayout()
			l.MachineBits, l.TimestampBits = 4, 47
			want := tc.host[strings.LastIndexByte(tc.host, '-')+1:]
			if got := l.Parse(id).Machine; strconv.Itoa(got) != want {
				t.Errorf("machine of %d = %d, want %s", id, got, want)
			}
		})
	}
	if _, err := cosid.ParseConfig([]byte("cosid:\n  generators:\n    ev: {strategy: snowflake, machine-id: from-host}\n")); err == nil ||
		!strings.Contains(err.Error(), `cosid.generators.ev.machine-id: "from-host" is not a machine id; want a number ≥ 0 or from-hostname`) {
		t.Errorf("machine-id: from-host: %v", err)
	}
}
