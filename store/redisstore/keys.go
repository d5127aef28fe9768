package redisstore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
)

// DefaultPrefix starts the name of every key the store writes, unless WithPrefix sets
// another.
const DefaultPrefix = "cosid:"

// maxPrefixLen bounds a prefix, so that a key name stays short whatever it names.
const maxPrefixLen = 64

// checkPrefix reports a prefix that would break the hash tags of the key names: a
// brace would move the tag, and a NUL or invalid UTF-8 would make names that other
// tools mangle.
func checkPrefix(p string) error {
	switch {
	case len(p) > maxPrefixLen:
		return fmt.Errorf("%w: prefix %.40q… is %d bytes, over the limit of %d", store.ErrInvalidArgument, p, len(p), maxPrefixLen)
	case strings.ContainsAny(p, "{}"):
		return fmt.Errorf("%w: prefix %q holds a brace, which would move the hash tag of every key", store.ErrInvalidArgument, p)
	case strings.IndexByte(p, 0) >= 0 || !utf8.ValidString(p):
		return fmt.Errorf("%w: prefix %q must be UTF-8 without NUL", store.ErrInvalidArgument, p)
	}
	return nil
}

// tag returns name as a Redis Cluster hash tag: in braces, with "%" and "}" escaped
// as %25 and %7D so that the tag ends at its own closing brace and two names never
// share a tag. The tag is never empty, because names are never empty: Cluster hashes
// only the tag, so every key of one name lies in one hash slot.
func tag(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 2)
	b.WriteByte('{')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '%':
			b.WriteString("%25")
		case '}':
			b.WriteString("%7D")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// rangeKey is the hash of a range key: fields next (the value the next range starts
// at) and sealed.
func rangeKey(prefix, key string) string { return prefix + tag(key) + ":range" }

// nsKeys are the keys of a namespace of slots, all in one hash slot.
type nsKeys struct {
	meta   string // hash: limit, tolerance (ms)
	slots  string // hash: "<slot>.<field>" for the fields of each slot's row
	owners string // hash: owner key → the slot it took last
	held   string // sorted set: the leased slots, scored by their expiry (ms)
	busy   string // bitmap: bit n is set while slot n is in held
}

func namespaceKeys(prefix, namespace string) nsKeys {
	base := prefix + tag(namespace) + ":"
	return nsKeys{meta: base + "meta", slots: base + "slots", owners: base + "owners", held: base + "held", busy: base + "busy"}
}
