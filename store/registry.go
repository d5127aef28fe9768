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
	// Offline asks Check to read no file that the settings name (a password, a
	// token, a DSN, TLS files), for a check of a configuration off the machine it
	// describes, where its secrets are not mounted (cosid config check without
	// --open). Check then checks the other settings, and says in Facts.Checks
	// which files it left for open. Open never gets it.
	Offline bool
}

// Unread is the line of Facts.Checks of a file setting that an Offline Check did
// not read, such as Unread("password-file", f).
func (s Spec) Unread(field string, f File) string {
	return fmt.Sprintf("%s: reads %s when the store opens (at start, or config check --open); an offline check reads no file", field, f)
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
		return &invalidError{msg: err.Error(), err: err} // Decode names the path
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
	return &invalidError{msg: s.Path + "." + field + ": " + fmt.Sprintf(format, args...)}
}

// invalidError is a setting's error: its message is the setting's path and what is
// wrong, and it matches ErrInvalidArgument without saying "invalid argument" in the
// middle of a configuration error.
type invalidError struct {
	msg string
	err error // the error the message was made of, or nil
}

func (e *invalidError) Error() string { return e.msg }

func (e *invalidError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrInvalidArgument}
	}
	return []error{ErrInvalidArgument, e.err}
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

// Type is a store type of configurations, as Register makes it available: Check
// tells what an entry's settings mean without I/O, and Open opens the store. The
// two steps are apart as in database/sql, whose driver.DriverContext.OpenConnector
// parses a name and whose Connector.Connect dials: loading a configuration calls
// Check for every store, and the runtime calls Open when a store is first needed.
type Type struct {
	// Check checks an entry's settings and returns their Facts. It does no I/O
	// beyond reading local files (a password file): it neither dials nor sends
	// anything, so that a configuration loads while its stores are down. Its errors
	// are those that Open would return for the same settings.
	Check func(spec Spec) (Facts, error)
	// Open opens a store of the type, checking the settings as Check does first.
	Open OpenFunc
}

// Facts are what a store type's Check tells of an entry's settings: what the
// configuration around the store needs to know of it before it is open.
type Facts struct {
	// Timeout bounds each call of the store (its Timeouter's answer): the entry's
	// timeout setting, or DefaultTimeout when it sets none. A caller that gives up
	// sooner (a segment's reserve-timeout) would abandon calls the store may still
	// finish. 0 means the store has no timeout of its own (the memory store).
	Timeout time.Duration
	// DefaultTimeout is the type's Timeout for an entry that sets none.
	DefaultTimeout time.Duration
	// TimeoutSet reports that the entry sets its timeout (the setting timeout, which
	// Spec.Timeout reads), rather than taking DefaultTimeout.
	TimeoutSet bool
	// Leases reports that the store Open returns is a SlotLeaseStore, whose slots
	// snowflake generators and the served store API lease.
	Leases bool
	// Checks says, one line each, what the store checks of the server it reaches,
	// at open or before its first call, such as "replication: refuses async
	// replicas unless options.allowAsyncReplicas": for the output of a
	// configuration check and for docs. A check that fails is an error of Open or
	// of the store's calls, never of Check.
	Checks []string
}

// OpenFunc opens a store of one configuration type from its Spec. The store it
// returns is a RangeStore, and also a SlotLeaseStore where the type supports leases.
// Its errors name the YAML path of the setting at fault (Spec.Path and below) and
// wrap ErrInvalidArgument.
type OpenFunc func(ctx context.Context, spec Spec) (RangeStore, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Type{}
)

// Register makes a store type available to configurations under the name typ, the
// way database/sql drivers register: a store package calls it from init, and a
// binary links the types it imports. Register panics if typ is empty, t.Check or
// t.Open is nil, or typ is already registered.
func Register(typ string, t Type) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if typ == "" || t.Check == nil || t.Open == nil {
		panic("store: Register needs a type name, a Check and an Open")
	}
	if _, dup := registry[typ]; dup {
		panic(fmt.Sprintf("store: Register called twice for type %q", typ))
	}
	registry[typ] = t
}

// Lookup returns the Type registered as typ.
func Lookup(typ string) (Type, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	t, ok := registry[typ]
	return t, ok
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
