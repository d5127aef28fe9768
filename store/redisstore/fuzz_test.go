package redisstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// replyOf builds a script reply from fuzz input: text fields separated by "|", each
// "i:<n>" an integer, anything else text; "" alone is the reply of a nil array.
func replyOf(s string) []any {
	if s == "" {
		return nil
	}
	var out []any
	for f := range strings.SplitSeq(s, "|") {
		if v, ok := strings.CutPrefix(f, "i:"); ok {
			var n int64
			for _, c := range v {
				n = n*10 + int64(c%10)
			}
			if strings.HasPrefix(v, "-") {
				n = -n
			}
			out = append(out, n)
			continue
		}
		out = append(out, f)
	}
	return out
}

// FuzzParseReplies feeds the parsers of the scripts' replies what a changed script,
// or a server that is not Redis, might answer: they never panic, never make a lease
// or a range out of a malformed reply, and name what they got.
func FuzzParseReplies(f *testing.F) {
	for _, s := range []string{
		"ok|i:3|i:1|i:1700000060000|i:0|i:1700000061000|i:1700000000000",
		"ok|i:3", "lost", "full", "conflict|i:4|i:1000", "conflict", "ceiling|i:17", "ceiling|x",
		"ok|i:-1|i:1|i:1|i:1|i:1|i:1", "ok|i:3|i:0|i:1|i:1|i:1|i:1", "i:5", "whatever", "",
	} {
		f.Add(s, int64(5))
	}
	f.Fuzz(func(t *testing.T, s string, size int64) {
		reply := replyOf(s)
		l, err := redisstore.ParseLease(reply, "ns", "owner", "inc")
		if err == nil {
			if l.Slot < 0 || l.Slot >= store.MaxSlots || l.Fence < 1 || l.Namespace != "ns" || l.OwnerKey != "owner" {
				t.Errorf("ParseLease(%q) = %+v: a lease no script can answer", s, l)
			}
		} else if err.Error() == "" {
			t.Errorf("ParseLease(%q): an empty error", s)
		}
		if err := redisstore.ParseRelease(reply, 0); err != nil && !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrInvalidArgument) && !strings.Contains(err.Error(), "script answered") {
			t.Errorf("ParseRelease(%q) = %v: does not say what the script answered", s, err)
		}
		var one any = s
		if len(reply) == 1 {
			one = reply[0]
		}
		r, err := redisstore.ParseReserve(one, size)
		if err == nil && (r.Len() != size || r.Start < 0) {
			t.Errorf("ParseReserve(%v, %d) = %v: not a range of the size", one, size, r)
		}
	})
}
