package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// auditBody is how much of a request body the audit log keeps.
const auditBody = 2 << 10

// auditCall is one call of an audited route, logged when it ends.
type auditCall struct {
	s    *Server
	r    *http.Request
	role Role
	body *capped
}

// startAudit starts the audit of r, a call of a route of role: it keeps the first
// auditBody bytes of the body that the handler reads.
func (s *Server) startAudit(r *http.Request, role Role) *auditCall {
	a := &auditCall{s: s, r: r, role: role}
	if r.Body != nil && r.Body != http.NoBody {
		a.body = &capped{max: auditBody}
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(r.Body, a.body), r.Body}
	}
	return a
}

// end logs the call, one line: the route, the role, the remote address, the
// arguments (the query and the body, an incarnation in it hidden), and the outcome.
func (a *auditCall) end(w http.ResponseWriter, err error) {
	status, outcome := http.StatusOK, "ok"
	if rec, ok := w.(*recorder); ok {
		status = rec.status
		if rec.errMsg != "" {
			outcome = rec.errMsg
		}
	}
	if err != nil && outcome == "ok" {
		outcome = err.Error()
	}
	if status >= 300 && outcome == "ok" {
		outcome = http.StatusText(status)
	}
	attrs := []any{"route", a.r.Pattern, "role", a.role.String(), "remote", a.r.RemoteAddr}
	if f := a.r.Header.Get("X-Forwarded-For"); f != "" {
		attrs = append(attrs, "forwarded-for", f)
	}
	if a.r.URL.RawQuery != "" {
		attrs = append(attrs, "query", a.r.URL.RawQuery)
	}
	if a.body != nil {
		attrs = append(attrs, "body", redact(a.body.buf, a.body.cut))
	}
	attrs = append(attrs, "status", status, "outcome", outcome)
	level := slog.LevelInfo
	if status >= 400 {
		level = slog.LevelWarn
	}
	a.s.logger.Log(a.r.Context(), level, "cosid audit", attrs...)
}

// capped keeps the first max bytes written to it.
type capped struct {
	buf []byte
	max int
	cut bool // more was written
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - len(c.buf); room < len(p) {
		c.buf, c.cut = append(c.buf, p[:max(room, 0)]...), true
	} else {
		c.buf = append(c.buf, p...)
	}
	return len(p), nil
}

// redact returns the body for the log: a lease's incarnation, which proves its
// owner, is replaced, so that reading the log gives no one a lease.
func redact(body []byte, cut bool) string {
	var v any
	if cut || json.Unmarshal(body, &v) != nil {
		s := string(body)
		if i := strings.Index(s, `"incarnation"`); i >= 0 {
			s = s[:i] + `"incarnation":…`
		}
		if cut {
			s += "…"
		}
		return s
	}
	hide(v)
	out, _ := json.Marshal(v)
	return string(out)
}

func hide(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "incarnation" {
				v[k] = "…"
				continue
			}
			hide(e)
		}
	case []any:
		for _, e := range v {
			hide(e)
		}
	}
}
