package store

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Spec is one entry of a configuration's stores, as the opener of its type sees it.
type Spec struct {
	// Name is the entry's name, such as "db".
	Name string
	// Path is the entry's path in the configuration, such as "cosid.stores.db", for
	// error messages.
	Path string
	// Decode decodes the entry's settings (all but its type) into v, a pointer to a
	// struct with yaml field tags. Keys that v has no field for are errors, and every
	// error names the YAML path.
	Decode func(v any) error
	// Logger is for the store's own log lines; nil means slog.Default().
	Logger *slog.Logger
	// Dir is the directory that relative file names in the settings are read from:
	// the configuration file's directory. Empty means the working directory, as for
	// a configuration that was not read from a file.
	Dir string
}

// File is a setting that names a file, such as password-file or a TLS file. A
// relative name is read from the configuration file's directory (Spec.Dir), not the
// working directory: DecodeSettings makes every File of v, however deep, absolute.
// A store type gives each of its file settings this type, so that none can be read
// from wherever the process happens to run.
type File string

// DecodeSettings decodes the entry's settings into v as Decode does, with an error
// that also wraps ErrInvalidArgument, as an OpenFunc returns it. It then resolves
// every File field of v against Dir (see Spec.Resolve).
func (s Spec) DecodeSettings(v any) error {
	if err := s.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArgument, err) // Decode names the path
	}
	s.resolveFiles(reflect.ValueOf(v))
	return nil
}

// Resolve returns the file name name, as written in the settings, as the store must
// open it: a relative name joined to Dir. An empty name, an absolute one, or any name
// when Dir is empty is returned as it is. Settings that are not a File but may hold a
// file name (the SQLite dsn) call it.
func (s Spec) Resolve(name string) string {
	if name == "" || s.Dir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(s.Dir, name)
}

var fileType = reflect.TypeFor[File]()

// resolveFiles sets every File reachable from v (through pointers, structs, slices,
// arrays and maps) to Resolve of it.
func (s Spec) resolveFiles(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			s.resolveFiles(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				s.resolveFiles(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			s.resolveFiles(v.Index(i))
		}
	case reflect.Map:
		if v.Type().Elem() == fileType {
			for _, k := range v.MapKeys() {
				v.SetMapIndex(k, reflect.ValueOf(File(s.Resolve(string(v.MapIndex(k).Interface().(File))))))
			}
			return
		}
		for _, k := range v.MapKeys() {
			if e := v.MapIndex(k); e.Kind() == reflect.Pointer {
				s.resolveFiles(e)
			}
		}
	case reflect.String:
		if v.Type() == fileType && v.CanSet() {
			v.SetString(s.Resolve(v.String()))
		}
	}
}

// Invalid returns the error of a setting that an OpenFunc refuses: field is its path
// below the entry, such as "timeout" or "options.prefix", and the format and args say
// what is wrong and what the setting allows. The error names the setting's path in
// the configuration and wraps ErrInvalidArgument.
func (s Spec) Invalid(field, format string, args ...any) error {
	return fmt.Errorf("%s.%s: %w: %s", s.Path, field, ErrInvalidArgument, fmt.Sprintf(format, args...))
}

// Timeout returns the entry's setting timeout, d, or def when d is 0 (unset). A
// negative d is refused with an error from Invalid.
func (s Spec) Timeout(d, def time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, s.Invalid("timeout", "%v; want a positive duration such as 2s (default %v)", d, def)
	case d == 0:
		return def, nil
	}
	return d, nil
}

// OpenFunc opens a store of one configuration type from its Spec. The store it
// returns is a RangeStore, and also a SlotLeaseStore where the type supports leases.
// Its errors name the YAML path of the setting at fault (Spec.Path and below) and
// wrap ErrInvalidArgument.
//
// Loading a configuration checks its stores' settings without I/O by calling each
// OpenFunc with a canceled ctx: an OpenFunc checks every setting it can (reading
// local files such as a password file is allowed), and then, before it dials or
// sends anything, returns an error wrapping ctx.Err() when ctx is done.
type OpenFunc func(ctx context.Context, spec Spec) (RangeStore, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]OpenFunc{}
)

// Register makes a store type available to configurations under the name typ, the
// way database/sql drivers register: a store package calls it from init, and a
// binary links the types it imports. Register panics if typ is empty, open is nil,
// or typ is already registered.
func Register(typ string, open OpenFunc) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if typ == "" || open == nil {
		panic("store: Register needs a type name and an OpenFunc")
	}
	if _, dup := registry[typ]; dup {
		panic(fmt.Sprintf("store: Register called twice for type %q", typ))
	}
	registry[typ] = open
}

// Lookup returns the OpenFunc registered for typ.
func Lookup(typ string) (OpenFunc, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	open, ok := registry[typ]
	return open, ok
}

// Types returns the registered type names, sorted.
func Types() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	types := make([]string, 0, len(registry))
	for typ := range registry {
		types = append(types, typ)
	}
	slices.Sort(types)
	return types
}
