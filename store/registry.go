package store

import (
	"context"
	"fmt"
	"log/slog"
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
}

// DecodeSettings decodes the entry's settings into v as Decode does, with an error
// that also wraps ErrInvalidArgument, as an OpenFunc returns it.
func (s Spec) DecodeSettings(v any) error {
	if err := s.Decode(v); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidArgument, err) // Decode names the path
	}
	return nil
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
