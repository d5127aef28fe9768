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
	TokenFile store.File    `yaml:"token-file"`
	Timeout   time.Duration `yaml:"timeout"`
}

// The configuration type "http": url (required), token-file (a file holding the
// bearer token; a relative name is read from the configuration file's directory)
// and timeout (default DefaultTimeout).
func init() {
	store.Register("http", func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		var c settings
		if err := spec.DecodeSettings(&c); err != nil {
			return nil, err
		}
		if c.URL == "" {
			return nil, fmt.Errorf("%s.url: missing; want the URL of a cosid serve, such as http://127.0.0.1:8686", spec.Path)
		}
		var opts []Option
		if c.TokenFile != "" {
			data, err := os.ReadFile(string(c.TokenFile))
			if err != nil {
				return nil, fmt.Errorf("%s.token-file: %w", spec.Path, err)
			}
			token := strings.TrimSpace(string(data))
			if token == "" {
				return nil, fmt.Errorf("%s.token-file: %s is empty; want the bearer token of the server", spec.Path, c.TokenFile)
			}
			opts = append(opts, WithToken(token))
		}
		if c.Timeout != 0 {
			opts = append(opts, WithTimeout(c.Timeout))
		}
		st, err := New(c.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Path, err)
		}
		return st, nil
	})
}
