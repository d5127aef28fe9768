package storekit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// DecodeStrict decodes b, one JSON value that a store wrote itself, into v, refusing
// what the store would not have written: a field that v has no place for, or
// anything after the value but white space, is an error. A value a store cannot
// account for is corrupt, and guessing what it meant could hand out an id twice.
func DecodeStrict(b []byte, v any) error {
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
