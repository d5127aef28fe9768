package segment

import (
	"testing"
	"unsafe"

	"github.com/cosid-go/cosid/store/memstore"
)

// TestGenerator_LayoutKeepsCurOnItsOwnLine checks what Generator's layout counts on
// in place of padding: a Generator starts a cache line, and nothing that changes
// shares that line with cur.
func TestGenerator_LayoutKeepsCurOnItsOwnLine(t *testing.T) {
	const line = 64
	var g Generator
	if off := unsafe.Offsetof(g.cur); off != 0 {
		t.Errorf("cur is at offset %d; want 0", off)
	}
	// The first field after the ones that never change: wg, written by every
	// reservation, and the lock and state after it.
	if off := unsafe.Offsetof(g.wg); off < line {
		t.Errorf("wg is at offset %d, on cur's cache line; want ≥ %d", off, line)
	}
	// Objects of more than 512 bytes carry an 8-byte header, which would put cur
	// off the line's start.
	if size := unsafe.Sizeof(g); size > 512 {
		t.Errorf("Generator is %d bytes; want ≤ 512, or padding before cur again", size)
	}
	st := memstore.New()
	for i := range 64 {
		g, err := New(st, "layout/k", DefaultBatchPolicy(), WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		if p := uintptr(unsafe.Pointer(g)); p%line != 0 {
			t.Errorf("Generator %d at %#x: not at the start of a cache line", i, p)
		}
		g.Close()
	}
}
