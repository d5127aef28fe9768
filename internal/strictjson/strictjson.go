// Package strictjson decodes JSON that a store wrote itself, refusing what it would
// not have written: a value a store cannot account for is corrupt, and guessing
// what it meant could hand out an id twice.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Decode decodes b, one JSON value, into v. A field that v has no place for, or
// anything after the value but white space, is an error.
func Decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("text after the object")
	}
	return nil
}
