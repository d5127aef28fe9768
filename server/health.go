package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// readyTimeout bounds every readiness check, so that a hung store makes /readyz
// answer 503 instead of hanging the probe.
const readyTimeout = 5 * time.Second

// readyEvery is how often a readiness check runs at most: /readyz and the status
// page answer from its last result until it is this old, so that asking them often
// (anyone may ask /readyz) does not write to every store as often.
const readyEvery = time.Second

// check is a readiness check of WithReadiness, with its last result.
type check struct {
	name string
	fn   func(r *http.Request) error

	mu  sync.Mutex // held while the check runs: callers meanwhile wait for its result
	at  time.Time  // when it last ran; zero: never
	err error
}

// result returns c's last result, running c first when it is older than readyEvery.
func (s *Server) result(c *check, r *http.Request) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && s.now().Sub(c.at) < readyEvery {
		return c.err
	}
	// The check runs for every caller that waits on it: one caller's cancel does
	// not fail it for the others.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), readyTimeout)
	defer cancel()
	c.err = c.fn(r.WithContext(ctx))
	c.at = s.now()
	if c.err != nil {
		s.logger.Warn("server: readiness check failed", "check", c.name, "err", c.err)
	}
	return c.err
}

// results returns the result of every check, the checks run at once.
func (s *Server) results(r *http.Request) []error {
	errs := make([]error, len(s.checks))
	var wg sync.WaitGroup
	for i, c := range s.checks {
		wg.Go(func() { errs[i] = s.result(c, r) })
	}
	wg.Wait()
	return errs
}

// healthz serves GET /healthz: the process is up.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readiness is the answer of /readyz.
type readiness struct {
	Ready  bool              `json:"ready"`
	Checks map[string]string `json:"checks,omitempty"`
	// StoreID is the identity of the store of the store API, in the details.
	StoreID string `json:"storeId,omitempty"`
	// Exhausted names the generators found full, in the details: they answer 409
	// exhausted, and the server stays ready for the others.
	Exhausted map[string]string `json:"exhausted,omitempty"`
}

// readyz serves GET /readyz: 200 when every check passed, else 503. A caller with the
// monitor token (or any, when that role has none) learns which check failed; the
// log has why.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	errs := s.results(r)
	out := readiness{Ready: true}
	details := s.allowed(r, RoleMonitor)
	if details {
		out.Checks = map[string]string{}
	}
	for i, c := range s.checks {
		state := "ok"
		if errs[i] != nil {
			out.Ready, state = false, "unavailable; the server's log has the details"
		}
		if details {
			out.Checks[c.name] = state
		}
	}
	if details {
		out.Exhausted = s.exhaustedDetails()
	}
	if details && s.store != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		out.StoreID, _ = s.storeIdentity(ctx) // a store that is down fails its check
		cancel()
	}
	status := http.StatusOK
	if !out.Ready {
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, out)
	return nil
}

// serveMetrics serves GET /metrics with the handler of WithMetrics.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) error {
	if s.promH == nil {
		return &apiError{http.StatusNotFound, wire.CodeNotFound, "this server serves no metrics"}
	}
	s.promH.ServeHTTP(w, r)
	return nil
}
