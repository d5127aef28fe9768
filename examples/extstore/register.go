package extstore

import (
	"context"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "jsonfile", for a program that imports this package:
//
//	stores:
//	  ids: { type: jsonfile, path: ids.json, timeout: 2s }
//
// A relative path is read from the configuration file's directory.
func init() { store.Register("jsonfile", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type jsonfile.
type specConfig struct {
	Path    store.File    `yaml:"path"`
	Timeout time.Duration `yaml:"timeout"`
}

// parseSpec checks c, the settings of spec, without I/O and returns them with their
// facts. Its errors name the field of spec at fault and the values it allows.
func parseSpec(spec store.Spec, c specConfig) (specConfig, store.Facts, error) {
	if c.Path == "" {
		return c, store.Facts{}, spec.Invalid("path", "missing; want the file that holds the ranges and leases, such as ids.json")
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return c, store.Facts{}, err
	}
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: []string{
		"file: opens its lock file at open; reads the data file, and refuses one it did not write, at every call",
	}}
	c.Timeout = timeout
	return c, facts, nil
}

// dialSpec opens the Store of c.
func dialSpec(_ context.Context, _ store.Spec, c specConfig) (store.RangeStore, error) {
	st, err := Open(string(c.Path), WithTimeout(c.Timeout))
	if err != nil {
		return nil, err
	}
	return st, nil
}
