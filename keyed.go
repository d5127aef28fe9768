package cosid

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// MaxKeyLen is the longest key of a keyed generator, in bytes.
const MaxKeyLen = 128

// DefaultMaxLiveKeys is the max-live-keys of a keyed generator that sets none.
const DefaultMaxLiveKeys = 100_000

// DefaultIdleClose is the idle-close of a keyed generator that sets none.
const DefaultIdleClose = 10 * time.Minute

// keyAllowed says what a key may hold, for errors.
const keyAllowed = "1–128 bytes of A-Z, a-z, 0-9, '.', '_', ':' and '-'"

// CheckKey reports whether key may name a sequence of a keyed generator: 1 to
// MaxKeyLen bytes of A-Z, a-z, 0-9, '.', '_', ':' and '-'. A '/' is refused, so that
// no key reaches another key's or a period's store key, and so are "." and "..",
// which a path would read as a directory. The error wraps ErrInvalidKey and says
// what is allowed.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: the key is empty; want %s", ErrInvalidKey, keyAllowed)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: the key %.40q… is %d bytes; want %s", ErrInvalidKey, key, len(key), keyAllowed)
	case key == "." || key == "..":
		return fmt.Errorf("%w: the key %q is one that a path reads as a directory; want %s, other than \".\" and \"..\"", ErrInvalidKey, key, keyAllowed)
	}
	for i := range len(key) {
		if !keyBytes[key[i]] {
			return fmt.Errorf("%w: the key %q has %s at byte %d; want %s", ErrInvalidKey, key, describeChar(key[i:]), i, keyAllowed)
		}
	}
	return nil
}

// describeChar names the character that s starts with: 'é' (U+00E9) for a
// character past ASCII, whose first byte alone would read as another ('Ã'), and
// the byte for one that is not UTF-8.
func describeChar(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("byte 0x%02X, which is not UTF-8,", s[0])
	case r >= utf8.RuneSelf:
		return fmt.Sprintf("%q (U+%04X)", r, r)
	}
	return strconv.QuoteRune(r)
}

// keyBytes holds keyByte of every byte: CheckKey runs on every call of
// Runtime.Source with a key, a server's every keyed request, and a load a byte
// costs less than keyByte's comparisons.
var keyBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = keyByte(byte(c))
	}
	return t
}()

func keyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
}

// checkKeyed checks the keyed settings of a generator, before its strategy's.
func (p *plan) checkKeyed(gc GeneratorConfig) error {
	p.keyed = gc.Keyed
	if !p.keyed {
		switch {
		case gc.MaxLiveKeys != nil:
			return p.errorf("max-live-keys", "only a keyed generator takes it; set keyed: true, or remove max-live-keys")
		case gc.IdleClose != nil:
			return p.errorf("idle-close", "only a keyed generator takes it; set keyed: true, or remove idle-close")
		case gc.MaxKeys != nil:
			return p.errorf("max-keys", "only a keyed generator takes it; set keyed: true, or remove max-keys")
		}
		return nil
	}
	p.maxLive, p.idleClose = DefaultMaxLiveKeys, DefaultIdleClose
	if gc.MaxLiveKeys != nil {
		if p.maxLive = *gc.MaxLiveKeys; p.maxLive < 1 {
			return p.errorf("max-live-keys", "%d, want ≥ 1 (or leave it out for %d)", p.maxLive, DefaultMaxLiveKeys)
		}
	}
	if gc.IdleClose != nil {
		if p.idleClose = *gc.IdleClose; p.idleClose <= 0 {
			return p.errorf("idle-close", "%v, want a positive duration (or leave it out for %v)", p.idleClose, DefaultIdleClose)
		}
	}
	if gc.MaxKeys != nil {
		if p.maxKeys = *gc.MaxKeys; p.maxKeys < 1 {
			return p.errorf("max-keys", "%d, want ≥ 1 (or leave it out for no bound)", p.maxKeys)
		}
	}
	return nil
}

// checkKeyLength checks, after its strategy's checks, that a keyed generator's
// strategy keeps a sequence per key, and that the longest store key of a key fits
// the stores.
func (p *plan) checkKeyLength() error {
	if !p.keyed {
		return nil
	}
	k, ok := p.impl.(keyable)
	if !ok {
		// Its settings take keyed: the strategy's file must say how to key it.
		return fmt.Errorf("%s.keyed: internal error: strategy %s takes keyed but cannot build a key's generator", p.path, p.def.name)
	}
	if longest := len(p.key) + 1 + MaxKeyLen + k.keySuffix(); longest > store.MaxKeyLen {
		return p.errorf("keyed", "the store key of a key of %d bytes would be %d bytes, over the stores' limit of %d; shorten the namespace or the generator's name",
			MaxKeyLen, longest, store.MaxKeyLen)
	}
	return nil
}

// KeyStats counts the keys of a keyed generator: Stats.Keys.
type KeyStats struct {
	Live    int // keys open now
	MaxLive int // max-live-keys
	// Opened counts the keys opened since Open; Evicted those closed for
	// max-live-keys, IdleClosed those closed for idle-close.
	Opened, Evicted, IdleClosed int64
}
