package cosid_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// FuzzCheckKey checks CheckKey against its rule, written out here byte by byte: a
// key is accepted exactly when it is 1–128 bytes of [A-Za-z0-9._:-] other than "."
// and "..", and a refusal wraps ErrInvalidKey and says what is allowed.
func FuzzCheckKey(f *testing.F) {
	for _, seed := range []string{"acme", "tenant-1:2026.q4_eu", "", ".", "..", "...", "a/b", "../x", "a b", "ü", "a\x00",
		strings.Repeat("k", 128), strings.Repeat("k", 129), "%2F", "A-Z_a.z:0-9"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		want := len(key) >= 1 && len(key) <= 128 && key != "." && key != ".."
		for i := 0; i < len(key) && want; i++ {
			want = strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-", key[i]) >= 0
		}
		err := cosid.CheckKey(key)
		switch {
		case want && err != nil:
			t.Fatalf("CheckKey(%q) = %v; want it accepted", key, err)
		case !want && err == nil:
			t.Fatalf("CheckKey(%q) accepted it; want it refused", key)
		case err != nil && (!errors.Is(err, cosid.ErrInvalidKey) || !strings.Contains(err.Error(), "1–128 bytes of A-Z, a-z, 0-9")):
			t.Fatalf("CheckKey(%q) = %v; want ErrInvalidKey, saying what is allowed", key, err)
		}
	})
}
