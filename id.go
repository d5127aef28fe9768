package cosid

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// ID is an int64 id as an application keeps it: a field that Fill fills as it fills
// an int64, a JSON API's id, an SQL column's value. Its JSON is a string,
// "920213737330208768", since a JavaScript number loses digits above 2^53; its
// text, its SQL value and its String are the decimal number.
//
// Its readers are strict: they accept exactly the decimal that String writes
// (no sign but a minus, no leading zero, no space, no exponent), and a JSON number
// too, so that a client that sends a small id as a number is understood. Every
// other input is an error that says what was wrong, and leaves the ID unchanged.
//
//	type Order struct {
//		ID cosid.ID `cosid:"order" json:"id"` // {"id":"920213737330208768"}
//	}
type ID int64

// Int64 returns id as an int64.
func (id ID) Int64() int64 { return int64(id) }

// String returns id in decimal: 920213737330208768.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// MarshalText returns id in decimal, as String does; encoding/json writes it as the
// key of a map.
func (id ID) MarshalText() ([]byte, error) { return strconv.AppendInt(nil, int64(id), 10), nil }

// UnmarshalText reads the decimal that MarshalText writes.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := parseID(text)
	if err != nil {
		return fmt.Errorf("cosid: ID: %w", err)
	}
	*id = ID(v)
	return nil
}

// MarshalJSON returns id as a JSON string of its decimal: "920213737330208768".
func (id ID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 22)
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON reads a JSON string of the decimal that MarshalJSON writes, or a
// JSON number that is an integer in that same form (42, not 42.0 or 4.2e1). A JSON
// null leaves id unchanged, as encoding/json does for an int64.
func (id *ID) UnmarshalJSON(data []byte) error {
	text := data
	switch {
	case string(data) == "null":
		return nil
	case len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"':
		text = data[1 : len(data)-1]
	case len(data) == 0 || data[0] != '-' && (data[0] < '0' || data[0] > '9'):
		return fmt.Errorf("cosid: ID: JSON %.40s is not an id; want a string of decimal digits, such as \"920213737330208768\", or an integer", data)
	}
	v, err := parseID(text)
	if err != nil {
		return fmt.Errorf("cosid: ID: JSON %.40s: %w", data, err)
	}
	*id = ID(v)
	return nil
}

// Value returns id as an int64, the driver.Value of a BIGINT column.
func (id ID) Value() (driver.Value, error) { return int64(id), nil }

// Scan reads an SQL column's value: an int64, or the decimal text that a driver
// gives as []byte or string (MySQL's text protocol does). NULL is an error: scan a
// nullable column into a sql.Null[cosid.ID]. A float is an error too, since it may
// have lost digits.
func (id *ID) Scan(src any) error {
	var (
		v   int64
		err error
	)
	switch s := src.(type) {
	case int64:
		v = s
	case []byte:
		v, err = parseID(s)
	case string:
		v, err = parseID([]byte(s))
	case nil:
		return errors.New("cosid: ID: cannot scan NULL; scan a nullable column into a sql.Null[cosid.ID]")
	default:
		return fmt.Errorf("cosid: ID: cannot scan a %T; want an int64 or its decimal text", src)
	}
	if err != nil {
		return fmt.Errorf("cosid: ID: %w", err)
	}
	*id = ID(v)
	return nil
}

// parseID reads the decimal of an int64 as strconv.FormatInt writes it, and
// nothing else.
func parseID(text []byte) (int64, error) {
	digits, neg := text, len(text) > 0 && text[0] == '-'
	if neg {
		digits = digits[1:]
	}
	switch {
	case len(text) == 0:
		return 0, errors.New("empty; want decimal digits, such as 920213737330208768")
	case len(digits) == 0:
		return 0, fmt.Errorf("%q has no digits after its minus", text)
	case len(digits) > 1 && digits[0] == '0':
		return 0, fmt.Errorf("%.40q has a leading zero; want the decimal as written, such as 42", text)
	case neg && digits[0] == '0':
		return 0, errors.New(`"-0" is not an id; zero is written 0`)
	}
	// The digits are summed as a negative number, whose range holds MinInt64.
	var v int64
	for i, c := range digits {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%.40q has %s at byte %d; want decimal digits only", text, describeByte(c), len(text)-len(digits)+i)
		}
		d := int64(c - '0')
		if v < (math.MinInt64+d)/10 {
			return 0, fmt.Errorf("%.40q is out of the range of an int64", text)
		}
		v = v*10 - d
	}
	if !neg {
		if v == math.MinInt64 {
			return 0, fmt.Errorf("%.40q is out of the range of an int64", text)
		}
		v = -v
	}
	return v, nil
}

// describeByte names a byte of a text for an error message: '+', or byte 0xC3 where
// it is not ASCII (a part of a UTF-8 character, or no text at all).
func describeByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02X", c)
}
