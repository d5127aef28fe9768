package strictyaml_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

type inner struct {
	Flag bool   `yaml:"flag"`
	Name string `yaml:"name"`
}

type sample struct {
	Count   *int64           `yaml:"count"`
	Wait    time.Duration    `yaml:"wait"`
	Inner   inner            `yaml:"inner"`
	Items   []string         `yaml:"items"`
	Named   map[string]inner `yaml:"named"`
	Raw     yaml.Node        `yaml:"raw"`
	Ratio   float64          `yaml:"ratio"`
	skipped int
}

func decode(t *testing.T, text string) (sample, error) {
	t.Helper()
	node, err := strictyaml.Parse([]byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var s sample
	return s, strictyaml.Decode(node, "root", &s)
}

func TestDecode_Valid(t *testing.T) {
	s, err := decode(t, `
count: 0x10
wait: 1m30s
inner: {flag: true, name: "a"}
items: [x, y]
named: {one: {name: "1"}}
raw: {anything: [goes, here]}
ratio: 0.5
`)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if s.Count == nil || *s.Count != 16 || s.Wait != 90*time.Second || !s.Inner.Flag || s.Inner.Name != "a" ||
		len(s.Items) != 2 || s.Named["one"].Name != "1" || s.Raw.Kind != yaml.MappingNode || s.Ratio != 0.5 || s.skipped != 0 {
		t.Errorf("decoded %+v", s)
	}
	s, err = decode(t, "count: null\n")
	if err != nil || s.Count != nil {
		t.Errorf("null leaves a field unset: %+v, %v", s, err)
	}
	s, err = decode(t, "base: &b {name: shared}\n")
	if err == nil {
		t.Errorf("unknown key with an anchor accepted: %+v", s)
	}
}

func TestDecode_Errors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"UnknownKey", "cont: 1", "line 1: root.cont: unknown key; did you mean count? want one of: count, inner, items, named, ratio, raw, wait"},
		{"UnknownNestedKey", "inner: {flag: true, nam: x}", "root.inner.nam: unknown key; did you mean name? want one of: flag, name"},
		{"DuplicateKey", "count: 1\ncount: 2", "line 2: root.count: defined twice"},
		{"NotAnInteger", "count: ten", `root.count: "ten" is not an integer`},
		{"IntegerOverflow", "count: 99999999999999999999", "is not an integer"},
		{"IntegerAFraction", "count: 2.5", `root.count: "2.5" is not an integer`}, // yaml.v3 alone makes it 2
		{"IntegerAnExponent", "count: 1e3", `root.count: "1e3" is not an integer`},
		{"DurationAsNumber", "wait: 5", `root.wait: "5" is not a duration; write one like "500ms", "2s", "48h"`},
		{"DurationWithoutUnit", `wait: "5"`, "is not a duration"},
		{"NotABool", "inner: {flag: maybe}", `root.inner.flag: "maybe" is not true or false`},
		{"ListForString", "inner: {name: [a]}", "root.inner.name: want a string, got a list"},
		{"MappingForList", "items: {a: b}", "root.items: want a list, got a mapping"},
		{"ScalarForStruct", "inner: 3", `root.inner: want a mapping of keys to values, got "3"`},
		{"BadListItem", "items: [a, {b: c}]", "root.items[1]: want a string, got a mapping"},
		{"BadMapValue", "named: {one: {flag: 2}}", `root.named.one.flag: "2" is not true or false`},
		{"BoolForString", "inner: {name: true}", "root.inner.name: want a string, got \"true\""},
		{"NotAMapping", "- a\n- b", "root: want a mapping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(t, tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%q) = %v, want an error containing %q", tc.text, err, tc.want)
			}
		})
	}
}

func TestDecode_NeedsPointer(t *testing.T) {
	if err := strictyaml.Decode(nil, "x", sample{}); err == nil {
		t.Error("Decode into a non-pointer succeeded")
	}
}

func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		"count: 1\nwait: 2s\ninner: {flag: true}\nitems: [a]\nnamed: {x: {name: y}}\n",
		"a: &x 1\nb: *x\n", "{", "- [", "count: !!binary aGk=", "raw: {a: *undefined}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		node, err := strictyaml.Parse(data)
		if err != nil {
			return
		}
		var s sample
		_ = strictyaml.Decode(node, "root", &s) // must not panic
		strictyaml.Lines(node, "root", map[string]int{})
	})
}

// TestClosest_SuggestsASlipNotAGuess checks the "did you mean" of an unknown key:
// the nearest allowed key for a typo, a swap, a case or dash slip; nothing for a key
// that is no slip of any.
func TestClosest_SuggestsASlipNotAGuess(t *testing.T) {
	keys := []string{"codec", "initial-offset", "initSchema", "lookahead", "max-batch", "step", "store", "strategy", "zone"}
	tests := []struct{ key, want string }{
		{"stpe", "step"},
		{"strategi", "strategy"},
		{"initschema", "initSchema"},
		{"init-schema", "initSchema"},
		{"lookahaed", "lookahead"},
		{"maxbatch", "max-batch"},
		{"zome", "zone"},
		{"colour", ""},
		{"x", ""},
		{"period", ""},
	}
	for _, tc := range tests {
		got, ok := strictyaml.Closest(tc.key, keys)
		if !ok {
			got = ""
		}
		if got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// TestError_OneFormat checks the one format of a configuration error: FILE:LINE:
// path: message, with what is known of the place.
func TestError_OneFormat(t *testing.T) {
	tests := []struct {
		err  strictyaml.Error
		want string
	}{
		{strictyaml.Error{File: "c.yaml", Line: 5, Path: "cosid.x", Msg: "bad; want y"}, "c.yaml:5: cosid.x: bad; want y"},
		{strictyaml.Error{Line: 5, Path: "cosid.x", Msg: "bad"}, "line 5: cosid.x: bad"},
		{strictyaml.Error{File: "c.yaml", Path: "cosid.x", Msg: "bad"}, "c.yaml: cosid.x: bad"},
		{strictyaml.Error{Path: "cosid.x", Msg: "bad"}, "cosid.x: bad"},
		{strictyaml.Error{File: "c.yaml", Line: 2, Msg: "did not find expected key"}, "c.yaml:2: did not find expected key"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestLine_FindsAPathOrItsNearestParent checks the line index: a key's own line,
// a list item's, and the line of the nearest parent for a setting left out.
func TestLine_FindsAPathOrItsNearestParent(t *testing.T) {
	node, err := strictyaml.Parse([]byte("cosid:\n  generators:\n    bill:\n      period: DAY\n      codec:\n        - prefix: {value: B}\n        - radix: {radix: 10}\n  other: &a {x: 1}\n  again: *a\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	strictyaml.Lines(node, "", lines)
	for path, want := range map[string]int{
		"cosid.generators.bill.period":               4,
		"cosid.generators.bill.strategy":             3,
		"cosid.generators.bill.codec[1].radix.radix": 7,
		"cosid.generators.nope.step":                 2,
		"cosid.again":                                9,
		"cosid.again.x":                              9,
		"elsewhere":                                  0,
	} {
		if got := strictyaml.Line(lines, path); got != want {
			t.Errorf("Line(%s) = %d, want %d", path, got, want)
		}
	}
}

// TestOneOf_SuggestsAValue checks the end of an error about a value: a "did you
// mean" for a slip, the allowed values always.
func TestOneOf_SuggestsAValue(t *testing.T) {
	names := []string{"periodic-segment", "segment", "snowflake"}
	if got, want := strictyaml.OneOf("segmnt", names), "did you mean segment? want one of: periodic-segment, segment, snowflake"; got != want {
		t.Errorf("OneOf(segmnt) = %q, want %q", got, want)
	}
	if got, want := strictyaml.OneOf("uuid", names), "want one of: periodic-segment, segment, snowflake"; got != want {
		t.Errorf("OneOf(uuid) = %q, want %q", got, want)
	}
}
