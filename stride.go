package cosid

import (
	"fmt"
	"math"
	"slices"

	"github.com/cosid-go/cosid/segment"
)

// stride is the class of the ids of a generator on segments (stride:, residue:):
// a store value v is the id v·n + r. The zero stride is n 1, r 0: every value.
type stride struct{ n, r int64 }

// checkStride checks the stride and residue of gc.
func (p *plan) checkStride(gc GeneratorConfig) (stride, error) {
	s := stride{n: 1}
	if gc.Stride != nil {
		if s.n = *gc.Stride; s.n < 1 {
			return s, p.errorf("stride", "%d, want ≥ 1 (1, or leaving it out, hands out every id)", s.n)
		}
	}
	if gc.Residue != nil {
		s.r = *gc.Residue
		switch {
		case gc.Stride == nil:
			return s, p.errorf("residue", "set without stride: a residue is of a stride; set stride too, or remove residue")
		case s.r < 0 || s.r >= s.n:
			return s, p.errorf("residue", "%d, want 0 to %d: the residues of stride %d", s.r, s.n-1, s.n)
		}
	}
	return s, nil
}

// strided reports whether s leaves out ids: a stride above 1.
func (s stride) strided() bool { return s.n > 1 }

// id returns the id of the store value v, or an error matching ErrExhausted when
// it would pass math.MaxInt64.
func (s stride) id(v int64) (int64, error) {
	if !s.strided() {
		return v, nil
	}
	if v > (math.MaxInt64-s.r)/s.n {
		return 0, fmt.Errorf("%w: value %d with stride %d and residue %d is past math.MaxInt64; the key has no id left", ErrExhausted, v, s.n, s.r)
	}
	return v*s.n + s.r, nil
}

// options returns opts with the segment option of s, in a slice of its own.
func (s stride) options(opts []segment.Option) []segment.Option {
	if !s.strided() {
		return opts
	}
	return append(slices.Clip(opts), segment.WithStride(s.n, s.r))
}

// strider is a strategy whose ids may be a stride's class: its ranges are
// consecutive store values, not consecutive ids, when it is strided.
type strider interface {
	idStride() stride
}
