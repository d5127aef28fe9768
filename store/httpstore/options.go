package httpstore

import (
	"crypto/tls"
	"net/http"
	"time"
)

// DefaultTimeout bounds every call of a Store without WithTimeout.
const DefaultTimeout = 5 * time.Second

// Option configures a Store.
type Option func(*Store)

// WithToken sends token as the bearer token of every call.
func WithToken(token string) Option { return func(s *Store) { s.token = token } }

// WithTimeout bounds every call, including its retry (default DefaultTimeout). It
// must exceed the server's own store timeout, or a generator may give up on a
// reservation that the server still makes.
func WithTimeout(d time.Duration) Option { return func(s *Store) { s.timeout = d } }

// WithTLSConfig sets the TLS configuration of an https URL, such as the CA that
// signed the server's certificate. WithHTTPClient overrides it.
func WithTLSConfig(cfg *tls.Config) Option { return func(s *Store) { s.tls = cfg } }

// WithHTTPClient makes the calls with c's transport, cookie jar and timeout instead
// of a client of the Store's own; c's redirect policy is replaced by none.
func WithHTTPClient(c *http.Client) Option { return func(s *Store) { s.client = c } }

// WithStoreID pins the identity of the store the servers serve (store.Identifier,
// as GET /v1/store/ping and `cosid config check --open` answer it): an answer of a
// server that names another store, or none, is refused, never returned, and the
// call goes on to the next server.
func WithStoreID(id string) Option { return func(s *Store) { s.storeID = id } }
