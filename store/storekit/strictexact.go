package storekit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// maxJSONDepth is how deep DecodeExact follows nested objects and arrays: no request
// of the API nests more than a few levels.
const maxJSONDepth = 64

// DecodeExact decodes b, one JSON value, into v as DecodeStrict does, and also refuses
// what encoding/json lets by: an object key that names a field of v only in another
// case ({"KEY":…} for a field "key"), and a key given twice in one object, whose
// last value encoding/json would silently keep. It is for requests, whose senders
// must learn what they got wrong instead of being half understood.
func DecodeExact(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := walkJSON(d, reflect.TypeOf(v), "", 0); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("text after the value")
	}
	return DecodeStrict(b, v)
}

// walkJSON reads one value from d, checking its objects' keys against t, the type the
// value is decoded into (nil: any keys, as of a map or an interface).
func walkJSON(d *json.Decoder, t reflect.Type, path string, depth int) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := d.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxJSONDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", jsonWhere(path), maxJSONDepth)
	}
	switch delim {
	case '{':
		var fields map[string]reflect.Type
		var elem reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Struct:
				fields = jsonFieldsOf(t)
			case reflect.Map:
				elem = t.Elem()
			}
		}
		seen := map[string]bool{}
		for d.More() {
			tok, err := d.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			if seen[key] {
				return fmt.Errorf("%s: the key %q is given twice", jsonWhere(path), key)
			}
			seen[key] = true
			ft := elem
			if fields != nil {
				var ok bool
				if ft, ok = fields[key]; !ok {
					return unknownJSONField(fields, path, key)
				}
			}
			if err := walkJSON(d, ft, path+"."+key, depth+1); err != nil {
				return err
			}
		}
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; d.More(); i++ {
			if err := walkJSON(d, elem, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	}
	_, err = d.Token() // the closing delimiter
	return err
}

func jsonWhere(path string) string {
	if path == "" {
		return "the body"
	}
	return strings.TrimPrefix(path, ".")
}

// unknownJSONField is the error of a key that names no field, saying which field it
// names in another case, if one.
func unknownJSONField(fields map[string]reflect.Type, path, key string) error {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return fmt.Errorf("%s: unknown field %q; did you mean %q? (field names match exactly)", jsonWhere(path), key, name)
		}
	}
	return fmt.Errorf("%s: unknown field %q", jsonWhere(path), key)
}

// jsonFields caches jsonFieldsOf.
var jsonFields sync.Map // reflect.Type → map[string]reflect.Type

// jsonFieldsOf returns the JSON names of struct type t's fields, with their types, as
// encoding/json names them: the json tag's name, else the Go name; an embedded
// struct without a name lends its fields.
func jsonFieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := jsonFields.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFieldsOf(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = ft
	}
	jsonFields.Store(t, out)
	return out
}
