package redisstore_test

import (
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// FuzzParseAdminReplies feeds the parsers of the admin scripts' replies, fields
// split at "|": any reply is an answer or an error, never a panic, and a raise
// parsed never went down.
func FuzzParseAdminReplies(f *testing.F) {
	for _, s := range []string{"created|5", "raised|1|9|1", "kept|9|9|", "raised|x|9|", "ok|a|i|a|1|2|3|4|5", "ok||||||||",
		"ok|a|i|a|z|2|3|4|5", "missing", "conflict|4|100", "outside|4", "held|pod", "held", "", "kept|9|1|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reply := strings.Split(s, "|")
		if r, err := redisstore.ParseRaise(reply, "k"); err == nil && r.After < r.Before {
			t.Errorf("ParseRaise(%q) = %+v: it went down", reply, r)
		}
		req := store.FloorRequest{Namespace: "ns", Limit: 4, Slot: 1}
		if info, err := redisstore.ParseFloor(reply, req); err == nil && info.Slot != 1 {
			t.Errorf("ParseFloor(%q) = slot %d, want 1", reply, info.Slot)
		}
	})
}
