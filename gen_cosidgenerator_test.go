package cosid_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

const cosIDGeneratorConfig = `
cosid:
  namespace: app
  generators:
    r62: { strategy: cosid-generator, machine-id: 7 }
    r36: { strategy: cosid-generator, machine-id: 7, format: radix36 }
    fr: { strategy: cosid-generator, machine-id: 7, format: friendly, zone: Asia/Shanghai }
    fru: { strategy: cosid-generator, machine-id: 1048575, format: friendly }
`

// TestCosIDGenerator_TextOrderIsIssueOrder takes ids of each format across Units
// whose 65,536 sequences run out (a synctest bubble's clock stands still until the
// generator waits): each has its format's length and characters, sorts after the
// one before, and decodes to a time, machine and sequence after the one before.
func TestCosIDGenerator_TextOrderIsIssueOrder(t *testing.T) {
	shapes := map[string]*regexp.Regexp{
		"r62": regexp.MustCompile(`^[0-9A-Za-z]{15}$`),
		"r36": regexp.MustCompile(`^[0-9A-Z]{17}$`),
		"fr":  regexp.MustCompile(`^\d{17}-0000007-\d{5}$`),
		"fru": regexp.MustCompile(`^\d{17}-1048575-\d{5}$`),
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := mustOpen(t, cosIDGeneratorConfig)
				src := source(t, rt, name, "")
				var prevText string
				var prev cosid.Decoded
				for i := range 3 << 16 {
					text, err := src.Next(t.Context())
					if err != nil {
						t.Fatalf("Next: %v", err)
					}
					if !shape.MatchString(text) {
						t.Fatalf("id %q is not of the format %v", text, shape)
					}
					if text <= prevText {
						t.Fatalf("id %q sorts at or before the one before, %q", text, prevText)
					}
					if i%997 == 0 || i < 3 {
						d, err := rt.Decode(name, text)
						if err != nil {
							t.Fatalf("Decode(%q): %v", text, err)
						}
						if !d.TextOnly || d.Snowflake == nil || d.Snowflake.Machine != map[bool]int{true: 1048575, false: 7}[name == "fru"] {
							t.Fatalf("Decode(%q) = %+v", text, d)
						}
						if p := prev.Snowflake; p != nil && !(d.Snowflake.Time.After(p.Time) || d.Snowflake.Time.Equal(p.Time) && d.Snowflake.Sequence > p.Sequence) {
							t.Fatalf("Decode(%q) = %+v, not after the earlier %+v", text, *d.Snowflake, *p)
						}
						prev = d
					}
					prevText = text
				}
			})
		})
	}
}

// TestCosIDGenerator_Decode checks what a decoded id says, and that Decode refuses
// every text its format does not write, saying why.
func TestCosIDGenerator_Decode(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(cosIDGeneratorConfig))
	if err != nil {
		t.Fatal(err)
	}
	d, err := cfg.Decode("fr", "20260101080000123-0000007-00042")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(d)
	if want := `{"time":"2026-01-01T08:00:00.123+08:00","machine":7,"sequence":42}`; string(data) != want {
		t.Errorf("decoded JSON %s, want %s", data, want)
	}
	if d, err := cfg.Decode("r62", "0V70MWFf000700g"); err != nil || !d.Snowflake.Time.Equal(time.UnixMilli(1767225600123)) || d.Snowflake.Sequence != 42 {
		t.Errorf("Decode of 4.x's radix62 text = %+v, %v", d, err)
	}
	for _, tt := range []struct{ name, text, mention string }{
		{"r62", "0V70MWFf000700", "14 bytes, want 15"},
		{"r62", "0V70MWFf000700-", `'-' at byte 14`},
		{"r62", "0V70MWFfzzzz00g", "machine zzzz is 14776335, beyond the 20 bits"},
		{"r62", "4ziepp2G0000000", "time 4ziepp2G is 17592186044416, beyond the 44 bits"},
		{"r62", "0V70MWFf0007zzz", "sequence zzz is 238327, beyond the 16 bits"},
		{"r36", "0MJUOHS3f00070016", `'f' at byte 8 is not a digit of radix 36 (0-9A-Z)`},
		{"fr", "20261301080000123-0000007-00042", "is not a time yyyyMMddHHmmssSSS"},
		{"fr", "20260101080000123-0000007_00042", `'_' at byte 25, want -`},
		{"fr", "20260101080000123-9999999-00042", "machine 9999999 is 9999999, beyond the 20 bits"},
		{"fr", "2026010108000012x-0000007-00042", `'x' at byte 16 is not a digit of the time`},
		{"fr", "20260101080000123-7-42", "22 bytes, want 31"},
	} {
		_, err := cfg.Decode(tt.name, tt.text)
		if err == nil || !strings.Contains(err.Error(), tt.mention) || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("Decode(%s, %q): %v; want an error naming the generator and saying %q", tt.name, tt.text, err, tt.mention)
		}
	}
}

// TestCosIDGenerator_ConfigErrors checks the settings of a cosid-generator at load:
// each mistake names its YAML path and what is allowed.
func TestCosIDGenerator_ConfigErrors(t *testing.T) {
	gen := func(body string) string { return "cosid:\n" + memStore + "  generators:\n" + body }
	for _, tt := range []struct{ name, yaml, want string }{
		{"UnknownFormat", gen("    id: {strategy: cosid-generator, machine-id: 1, format: radix10}\n"),
			`cosid.generators.id.format: unknown format "radix10"; want one of: radix62, radix36, friendly`},
		{"ZoneWithoutFriendly", gen("    id: {strategy: cosid-generator, machine-id: 1, zone: UTC}\n"),
			"cosid.generators.id.zone: the radix62 format writes no time of day; zone is for format: friendly"},
		{"ZoneLocal", gen("    id: {strategy: cosid-generator, machine-id: 1, format: friendly, zone: Local}\n"),
			`cosid.generators.id.zone: "Local" depends on the host's settings`},
		{"ZoneWithDaylightSaving", gen("    id: {strategy: cosid-generator, machine-id: 1, format: friendly, zone: Europe/Berlin}\n"),
			"cosid.generators.id.zone: Europe/Berlin changes its offset on"},
		{"MachineIDPast20Bits", gen("    id: {strategy: cosid-generator, machine-id: 1048576}\n"),
			"cosid.generators.id.machine-id: 1048576 is not in 0–1048575, the machines of 20 machine bits"},
		{"SlotsPast20Bits", gen("    id: {strategy: cosid-generator, store: mem, slots: 1048577}\n"),
			"cosid.generators.id.slots: 1048577 is not in 1–1048576"},
		{"NoStoreNoMachine", gen("    id: {strategy: cosid-generator}\n"),
			"cosid.generators.id.store: missing; want one of the configured stores: mem (or set machine-id)"},
		{"StateFileLeased", gen("    id: {strategy: cosid-generator, store: mem, state-file: id.state}\n"),
			"cosid.generators.id.state-file: only a fixed machine-id keeps a state file"},
		{"StateFileDirectory", gen("    id: {strategy: cosid-generator, machine-id: 1, state-file: /var/lib/cosid/}\n"),
			`cosid.generators.id.state-file: "/var/lib/cosid/" names a directory`},
		{"StateFileShared", gen("    a: {strategy: cosid-generator, machine-id: 1, state-file: /tmp/x.state}\n    b: {strategy: snowflake, machine-id: 1, state-file: /tmp/x.state}\n"),
			`cosid.generators.b.state-file: /tmp/x.state is also the state-file of generator "a"`},
		{"LayoutSetting", gen("    id: {strategy: cosid-generator, machine-id: 1, timestamp-bits: 41}\n"),
			"cosid.generators.id.timestamp-bits: not a setting of strategy cosid-generator; it takes: store, machine-id, machine-ids, slots, lease-ttl, tolerance, owner-key, state-file, format, zone"},
		{"CodecSetting", gen("    id: {strategy: cosid-generator, machine-id: 1, codec: [{radix: {radix: 62}}]}\n"),
			"cosid.generators.id.codec: not a setting of strategy cosid-generator"},
		{"Keyed", gen("    id: {strategy: cosid-generator, machine-id: 1, keyed: true}\n"),
			"cosid.generators.id.keyed: a cosid-generator generator cannot be keyed"},
		{"FormatOnSnowflake", gen("    id: {strategy: snowflake, machine-id: 1, format: radix62}\n"),
			"cosid.generators.id.format: not a setting of strategy snowflake"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openYAML(t, tt.yaml)
			if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open: %v\nwant an error wrapping ErrConfig containing %q", err, tt.want)
			}
		})
	}
}

// TestCosIDGenerator_LeasedMachinesOfOneNamespace checks two runtimes, as two
// processes, whose cosid-generators lease their machine ids from one store: a
// namespace of 2^20 slots, two machines, no id twice.
func TestCosIDGenerator_LeasedMachinesOfOneNamespace(t *testing.T) {
	st := memstore.New()
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: {db: {type: memory}}\n  generators:\n    id: {strategy: cosid-generator, store: db, format: radix36}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	machines := map[int]bool{}
	for owner := range 2 {
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithStoreWrapper(func(_, _ string, _ store.RangeStore) store.RangeStore { return st }),
			cosid.WithSnowflakeOptions(func(string, string) []snowflake.Option {
				return []snowflake.Option{snowflake.WithOwnerKey("pod-" + string(rune('a'+owner)))}
			}))
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		texts, err := source(t, rt, "id", "").Take(t.Context(), 1000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, texts...)
		l, ok := rt.Lease("id")
		if !ok || l.Namespace != "cosid/id" {
			t.Fatalf("Lease = %+v, %v; want the lease of cosid/id", l, ok)
		}
		machines[l.Slot] = true
	}
	info, err := st.Slots(t.Context(), "cosid/id")
	if err != nil || info.Limit != 1<<20 {
		t.Errorf("namespace cosid/id has limit %d (%v), want 2^20", info.Limit, err)
	}
	slices.Sort(ids)
	if len(machines) != 2 || len(slices.Compact(ids)) != 2000 {
		t.Errorf("two runtimes leased machines %v and handed out %d distinct ids of 2000", machines, len(slices.Compact(ids)))
	}
}

// TestCosIDGenerator_StateFileRestartWithClockSetBack is issue 30 §6 through the
// configuration: a cosid-generator of a fixed machine id with a state-file, whose
// process dies and starts again with its clock set back, hands out no id twice.
func TestCosIDGenerator_StateFileRestartWithClockSetBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cfg, err := cosid.ParseConfig([]byte("cosid:\n  generators:\n    id: {strategy: cosid-generator, machine-id: 9, state-file: id.state}\n"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Dir = dir // as ReadConfig sets it: state-file is read from there
		var offset time.Duration
		clock := func() time.Time { return time.Now().Add(offset) }
		run := func() ([]string, *cosid.Runtime) {
			rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil),
				cosid.WithSnowflakeOptions(func(string, string) []snowflake.Option { return []snowflake.Option{snowflake.WithClock(clock)} }))
			if err != nil {
				t.Fatal(err)
			}
			src := source(t, rt, "id", "")
			var ids []string
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); <-time.After(time.Millisecond) {
				text, err := src.Next(t.Context())
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				ids = append(ids, text)
			}
			return ids, rt
		}
		first, rt := run()
		path := filepath.Join(dir, "id.state")
		crashed, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("the state file %s: %v", path, err)
		}
		rt.Close()
		os.WriteFile(path, crashed, 0o600) // as the process that died left it
		offset = -500 * time.Millisecond
		again, rt := run()
		rt.Close()
		seen := map[string]bool{}
		for _, id := range first {
			seen[id] = true
		}
		for _, id := range again {
			if seen[id] {
				t.Fatalf("the restart with the clock set back 500ms handed out %s again", id)
			}
		}
	})
}
