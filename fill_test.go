package cosid_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
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

// TestRuntime_FillSliceTakesEachFieldsIDsAtOnce checks Fill of a slice: each
// row's zero tagged fields are filled and set ones kept, a segment's ids in one
// range (consecutive in the slice's order, though another caller takes ids
// between two Fills), a periodic segment's texts one a row; a slice of pointers
// and a pointer to a slice alike; a nil row is refused before any id is taken.
func TestRuntime_FillSliceTakesEachFieldsIDsAtOnce(t *testing.T) {
	rt := mustOpen(t, memConfig)
	type row struct {
		ID     cosid.ID `cosid:"order"`
		BillNo string   `cosid:"bill"`
	}
	rows := make([]row, 5)
	rows[2].ID = 99
	if err := rt.Fill(t.Context(), rows); err != nil {
		t.Fatal(err)
	}
	want := []cosid.ID{1, 2, 99, 3, 4}
	for i, r := range rows {
		if r.ID != want[i] || !strings.HasSuffix(r.BillNo, fmt.Sprintf("-%06d", i+1)) {
			t.Errorf("row %d = %+v; want id %d and bill %d", i, r, want[i], i+1)
		}
	}
	if _, err := rt.Next(t.Context(), "order"); err != nil { // another caller
		t.Fatal(err)
	}
	ptrs := []*row{{}, {}, {}}
	if err := rt.Fill(t.Context(), &ptrs); err != nil {
		t.Fatal(err)
	}
	if ptrs[0].ID != 6 || ptrs[1].ID != 7 || ptrs[2].ID != 8 {
		t.Errorf("a slice of pointers got ids %d %d %d; want 6 7 8", ptrs[0].ID, ptrs[1].ID, ptrs[2].ID)
	}
	withNil := []*row{{}, nil}
	if err := rt.Fill(t.Context(), withNil); err == nil || !strings.Contains(err.Error(), "row 1 of the []*cosid_test.row is nil") {
		t.Errorf("Fill of a nil row: %v", err)
	}
	if withNil[0].ID != 0 {
		t.Errorf("a refused Fill took an id: %+v", withNil[0])
	}
	for _, bad := range []any{nil, row{}, []int{1}, &[]string{}, (*row)(nil)} {
		if err := rt.Fill(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "Fill needs a non-nil pointer to a struct, or a slice of structs") {
			t.Errorf("Fill(%T): %v", bad, err)
		}
	}
	if err := rt.Fill(t.Context(), []row{}); err != nil {
		t.Errorf("Fill of an empty slice: %v", err)
	}
}
