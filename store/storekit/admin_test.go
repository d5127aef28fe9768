package storekit_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

func TestPrefixBounds_StepsTheLastRune(t *testing.T) {
	tests := []struct {
		prefix, hi string
		ok         bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"app/order", "app/ordes", true},
		{"x/", "x0", true},
		{"\u007f", "\u0080", true},
		{"k\ud7ff", "k\ue000", true},
		{"k\U0010ffff", "l", true},
		{"\U0010ffff\U0010ffff", "", false},
		{"é", "ê", true},
	}
	for _, tc := range tests {
		lo, hi, ok := storekit.PrefixBounds(tc.prefix)
		if lo != tc.prefix || hi != tc.hi || ok != tc.ok {
			t.Errorf("PrefixBounds(%+q) = %+q, %+q, %v; want %+q, %+q, %v", tc.prefix, lo, hi, ok, tc.prefix, tc.hi, tc.ok)
		}
	}
}

// FuzzPrefixBounds checks that [lo, hi) holds exactly the keys that start with the
// prefix, in byte order.
func FuzzPrefixBounds(f *testing.F) {
	for _, s := range [][2]string{{"a", "ab"}, {"a", "b"}, {"k\U0010ffff", "l"}, {"é", "ê0"}, {"", "x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prefix, key string) {
		if !utf8.ValidString(prefix) || !utf8.ValidString(key) {
			t.Skip()
		}
		lo, hi, ok := storekit.PrefixBounds(prefix)
		in := key >= lo && (!ok || key < hi)
		if in != strings.HasPrefix(key, prefix) {
			t.Errorf("PrefixBounds(%+q) = [%+q, %+q) %v: holds %+q is %v", prefix, lo, hi, ok, key, in)
		}
		if ok && !utf8.ValidString(hi) {
			t.Errorf("PrefixBounds(%+q): hi %+q is not UTF-8", prefix, hi)
		}
	})
}

// TestCheckLeaseOf_NamesTheBadArgument checks the arguments of Admin.LeaseOf: a bad
// namespace is named first, then a bad owner key; both wrap ErrInvalidArgument.
func TestCheckLeaseOf_NamesTheBadArgument(t *testing.T) {
	tests := []struct {
		name, namespace, ownerKey string
		mention                   string // "" for no error
	}{
		{"Valid", "app", "host-1", ""},
		{"EmptyNamespace", "", "host-1", "namespace"},
		{"NamespaceNotUTF8", "app\xff", "host-1", "namespace"},
		{"EmptyOwner", "app", "", "owner key"},
		{"LongOwner", "app", strings.Repeat("o", store.MaxKeyLen+1), "owner key"},
		{"BothBadNamespaceFirst", "", "", "namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := storekit.CheckLeaseOf(tt.namespace, tt.ownerKey)
			if tt.mention == "" {
				if err != nil {
					t.Errorf("CheckLeaseOf = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.HasPrefix(err.Error(), "invalid argument: "+tt.mention) {
				t.Errorf("CheckLeaseOf = %v, want ErrInvalidArgument naming the %s", err, tt.mention)
			}
		})
	}
}
