package httpstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
)

// settings are the configuration keys of type http.
type settings struct {
	URL       string        `yaml:"url"`
	URLs      []string      `yaml:"urls"`
	TokenFile store.File    `yaml:"token-file"`
	Timeout   time.Duration `yaml:"timeout"`
}

// The configuration type "http": url or urls (one of them: the URL of a server, or
// the URLs of servers on one store, tried in turn when one cannot be reached), token-file (a file holding the
// bearer token; a relative name is read from the configuration file's directory)
// and timeout (default DefaultTimeout). Check makes the Store, which does no I/O,
// to check the settings as Open does.
func init() {
	store.Register("http", store.Type{
		Check: func(spec store.Spec) (store.Facts, error) {
			st, set, err := openSpec(spec)
			if err != nil {
				return store.Facts{}, err
			}
			facts := store.Facts{Timeout: st.Timeout(), DefaultTimeout: DefaultTimeout, TimeoutSet: set, Leases: true, Checks: []string{
				"server: reached on the first call, not at open; every answer is checked before the store returns it, and no redirect is followed",
			}}
			return facts, st.Close()
		},
		Open: func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
			st, _, err := openSpec(spec)
			if err != nil {
				return nil, err
			}
			return st, nil
		},
	})
}

// openSpec makes the Store of spec, and reports whether it sets the timeout.
func openSpec(spec store.Spec) (*Store, bool, error) {
	var c settings
	if err := spec.DecodeSettings(&c); err != nil {
		return nil, false, err
	}
	urls := c.URLs
	switch {
	case c.URL != "" && c.URLs != nil:
		return nil, false, fmt.Errorf("%s: both url and urls are set; keep one: url for one server, urls for several", spec.Path)
	case c.URL != "":
		urls = []string{c.URL}
	case c.URLs == nil:
		return nil, false, fmt.Errorf("%s.url: missing; want the URL of a cosid serve, such as http://127.0.0.1:8686 (or urls: a list of them)", spec.Path)
	case len(c.URLs) == 0:
		return nil, false, fmt.Errorf("%s.urls: empty; want the URLs of one or more cosid serves on one store", spec.Path)
	}
	var opts []Option
	if c.TokenFile != "" {
		data, err := os.ReadFile(string(c.TokenFile))
		if err != nil {
			return nil, false, fmt.Errorf("%s.token-file: %w", spec.Path, err)
		}
		token := strings.TrimSpace(string(data))
		if token == "" {
			return nil, false, fmt.Errorf("%s.token-file: %s is empty; want the bearer token of the server", spec.Path, c.TokenFile)
		}
		opts = append(opts, WithToken(token))
	}
	if c.Timeout != 0 {
		opts = append(opts, WithTimeout(c.Timeout))
	}
	st, err := NewServers(urls, opts...)
	if err != nil {
		key := ".url"
		if c.URLs != nil {
			key = ".urls"
		}
		return nil, false, fmt.Errorf("%s%s: %w", spec.Path, key, err)
	}
	return st, c.Timeout != 0, nil
}
