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
			g, err := rt.Snowflake(t.Context(), "ev")
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

// TestConfig_MachineBitsPlural checks the count words of the machine-id and slots
// errors: one machine bit, two machine bits.
func TestConfig_MachineBitsPlural(t *testing.T) {
	tests := []struct{ gen, want string }{
		{"{strategy: snowflake, machine-id: 2, machine-bits: 1, timestamp-bits: 50}", "is not in 0–1, the machines of 1 machine bit"},
		{"{strategy: snowflake, machine-id: 4, machine-bits: 2, timestamp-bits: 49}", "is not in 0–3, the machines of 2 machine bits"},
		{"{strategy: snowflake, store: m, slots: 3, machine-bits: 1, timestamp-bits: 50}", "is not in 1–2, the machines of 1 machine bit"},
	}
	for _, tc := range tests {
		_, err := openYAML(t, "cosid:\n  stores: {m: {type: memory}}\n  generators:\n    ev: "+tc.gen+"\n")
		if err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error ending %q", tc.gen, err, tc.want)
		}
	}
}
