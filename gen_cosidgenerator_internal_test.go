package cosid

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/snowflake"
)

// vector4x is a row of testdata/cosid4x/cosid-generator.txt: a state and its texts
// as CosId 4.x writes them.
type vector4x struct {
	ms               int64
	machine, seq     int
	radix62, radix36 string
	friendly         map[string]string // by zone
}

func readVectors4x(t *testing.T) []vector4x {
	t.Helper()
	f, err := os.Open("testdata/cosid4x/cosid-generator.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []vector4x
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Fields(line)
		if len(c) != 7 {
			t.Fatalf("vector %q: want 7 columns", line)
		}
		ms, err1 := strconv.ParseInt(c[0], 10, 64)
		m, err2 := strconv.Atoi(c[1])
		s, err3 := strconv.Atoi(c[2])
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("vector %q: not numbers", line)
		}
		out = append(out, vector4x{ms, m, s, c[3], c[4], map[string]string{"UTC": c[5], "Asia/Shanghai": c[6]}})
	}
	if len(out) < 10 {
		t.Fatalf("%d vectors, want the file's", len(out))
	}
	return out
}

func formatNamed(t *testing.T, name string) *cosIDFormat {
	for _, f := range cosIDFormats {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no format %s", name)
	return nil
}

// TestCosIDGenerator_WritesAndReadsCosId4xTexts holds each format to the texts that
// CosId 4.x's own algorithm wrote for the same states (testdata/cosid4x, whose
// header names the sources and commits): radix62, radix36, and friendly in UTC and
// Asia/Shanghai, written alike and read back to the state.
func TestCosIDGenerator_WritesAndReadsCosId4xTexts(t *testing.T) {
	l := snowflake.CosIDGeneratorLayout()
	for _, v := range readVectors4x(t) {
		check := func(format, zoneName, want string) {
			t.Helper()
			f := formatNamed(t, format)
			zone, err := time.LoadLocation(zoneName)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(f.append(nil, v.ms, v.machine, v.seq, zone, nil)); got != want {
				t.Errorf("%s (%s) of ms %d machine %d sequence %d = %q, 4.x writes %q", format, zoneName, v.ms, v.machine, v.seq, got, want)
			}
			ms, m, s, err := f.parse(want, zone, l)
			if err != nil || ms != v.ms || int(m) != v.machine || int(s) != v.seq {
				t.Errorf("%s (%s) parse of 4.x's %q = %d, %d, %d, %v; want %d, %d, %d", format, zoneName, want, ms, m, s, err, v.ms, v.machine, v.seq)
			}
		}
		check("radix62", "UTC", v.radix62)
		check("radix36", "UTC", v.radix36)
		for zone, text := range v.friendly {
			check("friendly", zone, text)
		}
	}
}

// TestCosIDGenerator_WidthsAre4xs checks the widths of the fields against 4.x's
// RadixIdConverter.maxCharSize(radix, bits), the digits that the largest value of
// the bits takes: 15 characters in radix 62, 17 in radix 36, 31 friendly.
func TestCosIDGenerator_WidthsAre4xs(t *testing.T) {
	maxCharSize := func(radix, bits int) int {
		n := 0
		for v := int64(1)<<bits - 1; v > 0; v /= int64(radix) {
			n++
		}
		return n
	}
	l := snowflake.CosIDGeneratorLayout()
	for _, f := range cosIDFormats {
		bits := [3]int{l.TimestampBits, l.MachineBits, l.SequenceBits}
		for i, b := range bits {
			if f.friendly && i == 0 {
				continue // yyyyMMddHHmmssSSS
			}
			if want := maxCharSize(f.radix, b); f.width[i] != want {
				t.Errorf("%s: field %d has %d digits, 4.x's maxCharSize(%d, %d) is %d", f.name, i, f.width[i], f.radix, b, want)
			}
		}
	}
	for name, want := range map[string]int{"radix62": 15, "radix36": 17, "friendly": 31} {
		if got := len(formatNamed(t, name).append(nil, 1<<44-1, 1<<20-1, 1<<16-1, time.UTC, nil)); got != want {
			t.Errorf("%s writes %d characters, want %d", name, got, want)
		}
	}
}

// FuzzCosIDGeneratorText holds the readers of the three formats to their writers:
// no text makes a reader panic, and a text one accepts is the text its writer
// makes of what it read, byte for byte (friendly in UTC and Asia/Shanghai).
func FuzzCosIDGeneratorText(f *testing.F) {
	for _, s := range []string{"0V70MWFf000700g", "4ziepp2F4OmVH31", "0MJUOHS3F00070016", "20260101080000123-0000007-00042",
		"20261301080000123-0000007-00042", "0V70MWFfzzzz00g", "19700101000000000-0000000-00000", "99991231235959999-1048575-65535"} {
		f.Add(s)
	}
	l := snowflake.CosIDGeneratorLayout()
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, format := range cosIDFormats {
			for _, zone := range []*time.Location{time.UTC, shanghai} {
				ms, m, s, err := format.parse(text, zone, l)
				if err != nil {
					continue
				}
				if back := string(format.append(nil, ms, int(m), int(s), zone, nil)); back != text {
					t.Errorf("%s (%v) read %q as %d, %d, %d, which it writes %q", format.name, zone, text, ms, m, s, back)
				}
			}
		}
	})
}

// TestCosIDGenerator_FriendlyKeepsOnlyItsSecond checks the friendly format's kept
// second: ids of the kept second, of the next and of an earlier one read as they
// would without it.
func TestCosIDGenerator_FriendlyKeepsOnlyItsSecond(t *testing.T) {
	f := formatNamed(t, "friendly")
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	var last atomic.Pointer[friendlySecond]
	for _, ms := range []int64{1767225599998, 1767225599999, 1767225600000, 1767225600999, 1767225601000, 1767225599999, 0, 1767225601001} {
		got := string(f.append(nil, ms, 3, 4, shanghai, &last))
		if want := string(f.append(nil, ms, 3, 4, shanghai, nil)); got != want {
			t.Errorf("ms %d with the kept second %q, without %q", ms, got, want)
		}
	}
}
