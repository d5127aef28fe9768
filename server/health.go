package server

import (
	"context"
	"net/http"
	"time"

	"github.com/cosid-go/cosid/internal/wire"
)

// readyTimeout bounds every readiness check, so that a hung store makes /readyz
// answer 503 instead of hanging the probe.
const readyTimeout = 5 * time.Second

// healthz serves GET /healthz: the process is up.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readiness is the answer of /readyz.
type readiness struct {
	Ready  bool              `json:"ready"`
	Checks map[string]string `json:"checks"`
}

// readyz serves GET /readyz: 200 when every check passed, else 503 with what failed.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	out := readiness{Ready: true, Checks: map[string]string{}}
	for _, c := range s.checks {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		err := c.fn(r.WithContext(ctx))
		cancel()
		out.Checks[c.name] = "ok"
		if err != nil {
			out.Ready, out.Checks[c.name] = false, err.Error()
		}
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
