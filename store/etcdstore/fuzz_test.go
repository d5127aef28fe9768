package etcdstore

import (
	"testing"

	"github.com/cosid-go/cosid/store/storekit"
)

// FuzzParseValue checks that the value of a range key is read back as written, and
// that any other text is refused without a panic: every accepted text is the one
// String writes.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"0", "1", "42 sealed", "9223372036854775807", "9223372036854775808", "-1", "007", " 5", "5 sealed ", "sealed", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := parseValue(b)
		if err != nil {
			return
		}
		if v.next < 0 || v.String() != string(b) {
			t.Errorf("parseValue(%q) = %+v, which String writes as %q", b, v, v.String())
		}
	})
}

// FuzzParseRow checks that a slot row is read back as written, and that what is
// accepted keeps the rules of a row.
func FuzzParseRow(f *testing.F) {
	for _, s := range []string{
		`{"owner":"a","incarnation":"i","lastOwner":"a","fence":3,"expiresMs":10,"floorMs":1,"ceilingMs":11,"nextFloorMs":1,"etcdLease":7}`,
		`{"lastOwner":"a","fence":3,"expiresMs":10,"floorMs":1,"ceilingMs":11,"nextFloorMs":12}`,
		`{"fence":0}`, `{"fence":1,"owner":"a"}`, `{"fence":1,"extra":1}`, `{"fence":1} x`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRow(b)
		if err != nil {
			return
		}
		raised := r.SlotRow == storekit.SlotRow{NextFloorMs: r.NextFloorMs} && r.NextFloorMs > 0 && r.EtcdLease == 0
		if r.Fence < 1 && !raised || (r.Owner == "") != (r.Incarnation == "") || r.EtcdLease < 0 {
			t.Errorf("parseRow(%q) accepted %+v", b, r)
		}
		again, err := parseRow([]byte(r.encode()))
		if err != nil || again != r {
			t.Errorf("row %+v reads back as %+v, %v", r, again, err)
		}
	})
}

// FuzzParseMeta checks the settings of a namespace the same way.
func FuzzParseMeta(f *testing.F) {
	for _, s := range []string{`{"limit":4,"toleranceMs":1000}`, `{"limit":0}`, `{"limit":4194305}`, `{"limit":1,"toleranceMs":-1}`, `{}`, `{"limit":1}{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseMeta(b)
		if err != nil {
			return
		}
		if m.Limit < 1 || m.ToleranceMs < 0 {
			t.Errorf("parseMeta(%q) accepted %+v", b, m)
		}
		if again, err := parseMeta([]byte(m.encode())); err != nil || again != m {
			t.Errorf("settings %+v read back as %+v, %v", m, again, err)
		}
	})
}
