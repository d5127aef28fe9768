package httpstore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "http" opens a Store on servers that share one store; the
// Store makes no call until it is used.
func init() { store.Register("http", storekit.Opener(parseSpec, dialSpec)) }

// specConfig is the configuration of a store of type http:
//
//	type: http
//	url: https://ids.internal:8686   # one server; or urls: [a, b], servers on one store, tried in turn
//	store-id: 3f0c9a1e5b7d2c84       # the identity of their store; needed with several urls
//	token-file: /run/secrets/cosid   # the bearer token (optional)
//	timeout: 5s
//
// A relative token-file is read from the configuration file's directory.
type specConfig struct {
	URL       string        `yaml:"url"`
	URLs      []string      `yaml:"urls"`
	StoreID   string        `yaml:"store-id"`
	TokenFile store.File    `yaml:"token-file"`
	Timeout   time.Duration `yaml:"timeout"`
}

// parsed is a store of type http as its settings give it, checked.
type parsed struct {
	urls []string
	opts []Option
}

// parseSpec checks c, the settings of spec, without I/O (it reads token-file) and
// returns them with their facts. Its errors name the field of spec at fault and the
// values it allows.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	bad := spec.Invalid
	urls, field := c.URLs, "urls"
	switch {
	case c.URL != "" && c.URLs != nil:
		return parsed{}, store.Facts{}, bad("urls", "set beside url: both url and urls are set; keep one: url for one server, urls for several")
	case c.URL != "":
		urls, field = []string{c.URL}, "url"
	case c.URLs == nil:
		return parsed{}, store.Facts{}, bad("url", "missing; want the URL of a cosid serve, such as http://127.0.0.1:8686 (or urls: a list of them)")
	case len(c.URLs) == 0:
		return parsed{}, store.Facts{}, bad("urls", "empty; want the URLs of one or more cosid serves on one store")
	}
	if _, err := checkURLs(urls); err != nil {
		return parsed{}, store.Facts{}, fmt.Errorf("%s.%s: %w", spec.Path, field, err) // err wraps store.ErrInvalidArgument
	}
	switch {
	case c.StoreID != strings.TrimSpace(c.StoreID) || strings.ContainsFunc(c.StoreID, unicode.IsControl) || len(c.StoreID) > 64:
		return parsed{}, store.Facts{}, bad("store-id", "%q: want the identity a server's GET %s answers, such as 3f0c9a1e5b7d2c84", c.StoreID, wire.PathPing)
	case c.StoreID == "" && len(urls) > 1:
		return parsed{}, store.Facts{}, bad("store-id", "missing: urls lists %d servers, and nothing else tells that they serve one store: "+
			"a client that fails over to a server of another store and restarts hands out ids twice. Set store-id to the identity of their store, "+
			"which the servers answer on GET %s, log at start (store-id) and `cosid config check --open` prints for their serve.store", len(urls), wire.PathPing)
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	opts := []Option{WithTimeout(timeout), WithStoreID(c.StoreID)}
	if c.TokenFile != "" && !spec.Offline {
		data, err := os.ReadFile(string(c.TokenFile))
		if err != nil {
			return parsed{}, store.Facts{}, bad("token-file", "%v", err)
		}
		token := strings.TrimSpace(string(data))
		if token == "" {
			return parsed{}, store.Facts{}, bad("token-file", "%s is empty; want the bearer token of the server", c.TokenFile)
		}
		opts = append(opts, WithToken(token))
	}
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: []string{
		"server: reached on the first call, not at open; every answer is checked before the store returns it, and no redirect is followed",
	}}
	if c.TokenFile != "" && spec.Offline {
		facts.Checks = append(facts.Checks, spec.Unread("token-file", c.TokenFile))
	}
	if c.StoreID != "" {
		facts.Checks = append(facts.Checks, "store-id: every answer must name store "+c.StoreID+"; a server of another store is passed over")
	}
	return parsed{urls: urls, opts: opts}, facts, nil
}

// dialSpec makes the Store of p, which makes no call.
func dialSpec(_ context.Context, _ store.Spec, p parsed) (store.RangeStore, error) {
	st, err := NewServers(p.urls, p.opts...)
	if err != nil {
		return nil, err
	}
	return st, nil
}
