package store

import "context"

// GiveBacker is implemented by stores that take back the unused tail of a range, so
// that a generator stopped cleanly leaves no gap: a restart continues where the
// last id handed out ended, as a database sequence would. It amends S1 with S7:
//
//	S7 a give-back lowers a key's next value only from the end of the caller's own
//	   last range, only when no one reserved since, and never below an id handed out
//
// GiveBack lowers key's next value from tail.End to tail.Start in one
// compare-and-set: only when the next value still equals tail.End, that is when no
// reservation of key completed after the one that returned the range ending there.
// It reports whether it lowered the value. When the value differs, the key is
// sealed or the key does not exist, it changes nothing and reports false with a nil
// error: the tail then stays a gap, which S4 allows.
//
// The caller keeps the rest of the rule: tail is the end of a range this caller
// reserved, tail.Start the first value of it that it never handed out, and after
// GiveBack it hands out nothing more from that range. A tail with Start ≥ End, a
// negative Start or an End past math.MaxInt64 fails with ErrInvalidArgument
// (storekit.CheckGiveBack). An error other than that leaves the outcome unknown, which
// is safe either way: a give-back that happened only lowers the value to an id never
// handed out.
type GiveBacker interface {
	GiveBack(ctx context.Context, key string, tail Range) (bool, error)
}
