package cosid_test

import (
	"regexp"
	"strings"
	"testing"
)

type Audit struct {
	EventID int64 `cosid:"event"`
}

type base struct {
	ID int64 `cosid:"order"`
}

type Billing struct {
	BillNo string `cosid:"bill"`
}

type invoice struct {
	base     // unexported embedded struct: its exported fields are filled
	*Billing // embedded pointer: allocated when nil
	*Audit
	Note string
}

// TestRuntime_FillEmbeddedStructs checks that Fill fills the tagged fields of
// embedded structs and of embedded pointers to structs, allocating nil ones.
func TestRuntime_FillEmbeddedStructs(t *testing.T) {
	rt := mustOpen(t, memConfig)
	audit := &Audit{EventID: 7}
	v := invoice{Audit: audit}
	if err := rt.Fill(t.Context(), &v); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if v.ID != 1 || v.Billing == nil || !regexp.MustCompile(`^\d{8}-000001$`).MatchString(v.BillNo) {
		t.Errorf("Fill = %+v, billing %+v; want the embedded fields filled", v, v.Billing)
	}
	if v.Audit != audit || audit.EventID != 7 {
		t.Errorf("Fill replaced a set embedded pointer or its set field: %+v", v.Audit)
	}
}

// TestRuntime_FillRefusesBadEmbeddedFields checks that a wrong field of an embedded
// struct is refused by name before any id is taken, and nothing is allocated.
func TestRuntime_FillRefusesBadEmbeddedFields(t *testing.T) {
	rt := mustOpen(t, memConfig)
	type Bad struct {
		N int32 `cosid:"order"`
	}
	type outer struct {
		*Billing
		*Bad
	}
	var v outer
	err := rt.Fill(t.Context(), &v)
	if err == nil || !strings.Contains(err.Error(), "field outer.Bad.N has type int32; want int64 or string") {
		t.Errorf("Fill = %v; want the embedded field named", err)
	}
	if v.Billing != nil {
		t.Errorf("a refused Fill allocated %+v", v.Billing)
	}
	if text, _ := rt.Next(t.Context(), "bill"); !strings.HasSuffix(text, "-000001") {
		t.Errorf("the next bill is %s: a refused Fill took ids", text)
	}
}

// TestRuntime_FillSkipsDashTag checks issue 19: a field tagged `cosid:"-"` is left
// alone, whatever its type, as `json:"-"` is, not read as a generator named "-".
func TestRuntime_FillSkipsDashTag(t *testing.T) {
	rt := mustOpen(t, memConfig)
	type row struct {
		ID      int64   `cosid:"order"`
		Cached  int64   `cosid:"-"`
		Comment string  `cosid:"-"`
		Weight  float64 `cosid:"-"`
	}
	var v row
	if err := rt.Fill(t.Context(), &v); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if v.ID != 1 || v.Cached != 0 || v.Comment != "" {
		t.Errorf("Fill = %+v; want ID 1 and the fields tagged - untouched", v)
	}
}
