package cosid_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestCheckKey_NamesTheCharacter: a key with a character past ASCII names that
// character and its code point at its byte, not its first byte read as Latin-1
// ('Ã'); a byte that is not UTF-8 is named as a byte.
func TestCheckKey_NamesTheCharacter(t *testing.T) {
	tests := []struct{ key, want string }{
		{"café", `has 'é' (U+00E9) at byte 3;`},
		{"店1", `has '店' (U+5E97) at byte 0;`},
		{"ab\xc3", `has byte 0xC3, which is not UTF-8, at byte 2;`},
		{"a b", `has ' ' at byte 1;`},
	}
	for _, tc := range tests {
		err := cosid.CheckKey(tc.key)
		if !errors.Is(err, cosid.ErrInvalidKey) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckKey(%q) = %v; want it to say %s", tc.key, err, tc.want)
		}
	}
}
