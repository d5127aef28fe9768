package cosid

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/internal/strictyaml"
	"github.com/cosid-go/cosid/store"
)

// ErrConfig is wrapped by every error about the configuration: the message names the
// YAML path and what is allowed. Load and Open find every such error before any I/O.
var ErrConfig = errors.New("invalid configuration")

// ErrUnavailable is wrapped by the errors of a store that cannot be reached or used
// for now, and of the generators on it: a database that is down or refuses the
// password, a slot namespace with no free slot, a lost lease, a store that did not
// answer in time. The error also wraps the cause and names the store or generator.
// It is never a configuration error: the runtime tries again on later calls and
// works once the store is back, without a restart.
//
// It is store.ErrUnavailable, which segment.ErrUnavailable and the snowflake
// package's ErrLeaseLost and ErrClockBackwards also match: the error of a generator
// taken with Segment, Periodic or Snowflake, whose Next fails because its store
// cannot be used, matches it too.
var ErrUnavailable = store.ErrUnavailable

// ErrNotSetUp is wrapped by the error of a store that was reached but is not set up:
// an SQL database without CosId's tables, when the store may not create them
// (options: { initSchema: true }). The message says what to run. It does not match
// ErrUnavailable, since waiting does not help: an operator must act. The runtime
// still tries again on later calls, with the backoff of Store, so that it works
// once the tables exist, without a restart. It is store.ErrNotSetUp.
var ErrNotSetUp = store.ErrNotSetUp

// ErrExhausted is wrapped by the error of a generator that has no id left to give:
// its codec cannot write the next value (wider than the codec's width: a width-6
// radix past 999,999, a day's bill numbers full), or its store's key would pass
// math.MaxInt64. The message names the width and the fix. It does not match
// ErrUnavailable: waiting does not help, the configuration must change. It is
// store.ErrExhausted, so the server answers it 409 exhausted (Connect:
// resource_exhausted).
var ErrExhausted = store.ErrExhausted

// exhausted wraps err of generator name in ErrExhausted with the fix when it is a
// codec's refusal of a value (codec.ErrRange): a generator's values only grow, so
// every later one is refused too.
func exhausted(name string, err error) error {
	if !errors.Is(err, codec.ErrRange) || errors.Is(err, ErrExhausted) {
		return err
	}
	return fmt.Errorf("%w: %w; the codec has no text for more ids of this key: widen the codec (a larger width in cosid.generators.%s.codec)", ErrExhausted, err, name)
}

// ErrUnknownGenerator means no generator of that name, or of that kind, is configured.
var ErrUnknownGenerator = errors.New("unknown generator")

// ErrKeyRequired means a keyed generator (keyed: true) was called without a key:
// Source(name, ""), Next, NextInt, Fill and Segment on one, or its HTTP route
// without ?key=. Its keys' ids come from the Source of each key.
var ErrKeyRequired = errors.New("keyed generator called without a key")

// ErrNotKeyed means a key was given to a generator that is not keyed: Source(name,
// key) of one, or its HTTP route with ?key=.
var ErrNotKeyed = errors.New("key given to a generator that is not keyed")

// ErrInvalidKey means a key of a keyed generator that CheckKey refuses: the message
// says what a key may hold.
var ErrInvalidKey = errors.New("invalid key")

// ErrUnknownStore means no store of that name is configured.
var ErrUnknownStore = errors.New("unknown store")

func configErr(err error) error {
	if errors.Is(err, ErrConfig) {
		return err
	}
	return fmt.Errorf("cosid: %w: %w", ErrConfig, err)
}

// configSource is where a Config was read from, for the place of its errors: the
// file, and the line of each YAML path in it.
type configSource struct {
	file  string
	lines map[string]int
}

// locate returns err, an error that wraps ErrConfig, in the one format of those:
// FILE:LINE: yaml.path: what is wrong; what is allowed. The place is what c knows
// of it: a Config built in Go has neither file nor lines, and its errors name the
// path alone. Every error of the configuration starts with its YAML path, whoever
// made it (a store type's Check included), so err needs no type of its own.
func (c Config) locate(err error) error {
	if err == nil || !errors.Is(err, ErrConfig) {
		return err
	}
	var at *strictyaml.Error
	if errors.As(err, &at) {
		located := *at
		located.Err = err
		at = &located
	} else {
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "cosid: "), ErrConfig.Error()+": ")
		path, rest, ok := strings.Cut(msg, ": ")
		if !ok || !strings.HasPrefix(path, "cosid") || strings.ContainsAny(path, " \t") {
			return err
		}
		at = &strictyaml.Error{Path: path, Msg: rest, Err: err}
	}
	// A store's refusal says "invalid argument: " (store.ErrInvalidArgument) where
	// it is an API's error; inside a configuration error, which says where and why,
	// it is noise. Err still wraps the sentinel.
	at.Msg = strings.ReplaceAll(at.Msg, store.ErrInvalidArgument.Error()+": ", "")
	if c.src != nil {
		if at.File == "" {
			at.File = c.src.file
		}
		if at.Line == 0 {
			at.Line = strictyaml.Line(c.src.lines, at.Path)
		}
	}
	return fmt.Errorf("cosid: %w: %w", ErrConfig, at)
}

// prefixed puts the package's name before an error that does not start with it.
func prefixed(err error) error {
	if strings.HasPrefix(err.Error(), "cosid: ") {
		return err
	}
	return fmt.Errorf("cosid: %w", err)
}

// sortedKeys returns m's keys in order, so that errors and start-up are repeatable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// unknownName is the error of a name that is not configured, kind such as
// ErrUnknownGenerator: the name, a "did you mean" for a slip, the names configured.
// Every command and API words an unknown generator or store this way.
func unknownName(kind error, name string, names []string) error {
	if near, ok := strictyaml.Closest(name, names); ok {
		return fmt.Errorf("cosid: %w %q; did you mean %s? configured: %s", kind, name, near, quotedList(names))
	}
	return fmt.Errorf("cosid: %w %q; configured: %s", kind, name, quotedList(names))
}

// oneOfNames ends the error of a value that names none of names: a "did you mean"
// for a slip, and the names.
func oneOfNames(value string, names []string) string {
	if len(names) == 0 {
		return "want one of: (none)"
	}
	return strictyaml.OneOf(value, names)
}

func quotedList(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
