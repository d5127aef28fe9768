package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Role is what a token lets its bearer do. Every route needs one role's token, when
// that role has one (WithToken, WithRoleToken); a role without a token is open.
type Role int

// The roles of a Server's routes.
const (
	// RoleIDs is for the callers of ids: the /v1/generators routes and 4.x's /ids.
	RoleIDs Role = iota
	// RoleStore is for the httpstore processes: every non-admin /v1/store/… route.
	RoleStore
	// RoleAdmin is for the operator's commands: /v1/store/admin/…. Those routes are
	// served only when this role has a token.
	RoleAdmin
	// RoleMonitor is for monitoring: /metrics, the details of /readyz, the status
	// page /.
	RoleMonitor
	numRoles

	// roleOpen is the role of the routes that need no token: /healthz, and 4.x's
	// segment and machine API, which stock 4.x clients call without one.
	roleOpen Role = -1
)

// String returns the role's name, as the audit log and the config (serve.tokens) say it.
func (r Role) String() string {
	switch r {
	case RoleIDs:
		return "ids"
	case RoleStore:
		return "store"
	case RoleAdmin:
		return "admin"
	case RoleMonitor:
		return "monitor"
	case roleOpen:
		return "open"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Roles returns every role, in order.
func Roles() []Role { return []Role{RoleIDs, RoleStore, RoleAdmin, RoleMonitor} }

// roleToken is the SHA-256 of a role's token: the check compares hashes in constant
// time, so it tells neither the token nor its length.
type roleToken struct {
	hash [sha256.Size]byte
	set  bool
}

// WithToken requires token of every role: every route but /healthz and the 4.x
// segment and machine API answers 401 without "Authorization: Bearer token". An
// empty token, or one with a space or a control character, is an error of New.
func WithToken(token string) Option {
	return func(s *Server) {
		for _, r := range Roles() {
			s.setToken(r, token)
		}
	}
}

// WithRoleToken requires token on the routes of role, as WithToken does for all.
func WithRoleToken(role Role, token string) Option {
	return func(s *Server) {
		if role < 0 || role >= numRoles {
			s.optErr = errors.Join(s.optErr, fmt.Errorf("server: WithRoleToken: no role %d", int(role)))
			return
		}
		s.setToken(role, token)
	}
}

func (s *Server) setToken(role Role, token string) {
	if err := checkToken(token); err != nil {
		s.optErr = errors.Join(s.optErr, fmt.Errorf("server: the %s token: %w", role, err))
		return
	}
	s.tokens[role] = roleToken{hash: sha256.Sum256([]byte(token)), set: true}
	s.auth = true
}

// checkToken refuses a token that no client could send in a header: an empty one
// would turn auth off, one with white space or a control character never matches.
func checkToken(token string) error {
	if token == "" {
		return errors.New("empty; an empty token would turn auth off (leave the option out for no auth)")
	}
	if len(token) > maxTokenLen {
		return fmt.Errorf("%d bytes; want at most %d", len(token), maxTokenLen)
	}
	for i := range len(token) {
		if c := token[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("has a space or a control character at byte %d; a header cannot carry it", i)
		}
	}
	return nil
}

// HasToken reports whether role's routes need a token.
func (s *Server) HasToken(role Role) bool { return role >= 0 && role < numRoles && s.tokens[role].set }

// bearer returns the token of r's "Authorization: Bearer …" header; the scheme
// matches in any case (RFC 7235).
func bearer(r *http.Request) (string, bool) {
	h := r.Header["Authorization"]
	if len(h) == 0 {
		return "", false
	}
	return bearerIn(h[0])
}

// bearerIn returns the token of the value h of an authorization header or gRPC
// metadata key: "Bearer token", the scheme in any case.
func bearerIn(h string) (string, bool) {
	const scheme = "Bearer "
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	return h[len(scheme):], true
}

// allowedToken reports whether a call whose authorization is h may call a service
// of role: the role is open, or h is its bearer token. It is allowed's check of a
// gRPC call, which has no HTTP Basic credentials.
func (s *Server) allowedToken(role Role, h string) bool {
	if role == roleOpen || !s.tokens[role].set {
		return true
	}
	token, ok := bearerIn(h)
	return ok && s.matches(role, token)
}

// basicPassword returns the password of r's HTTP Basic credentials, which a browser
// sends for the status page; the user name is not checked.
func basicPassword(r *http.Request) (string, bool) {
	h := r.Header["Authorization"]
	if len(h) == 0 {
		return "", false
	}
	const scheme = "Basic "
	if len(h[0]) < len(scheme) || !strings.EqualFold(h[0][:len(scheme)], scheme) {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(h[0][len(scheme):])
	if err != nil {
		return "", false
	}
	_, pass, ok := strings.Cut(string(raw), ":")
	return pass, ok
}

// allowed reports whether r may call a route of role: the role is open, or r
// carries its token (as a bearer token; for the monitor role, also as the password
// of HTTP Basic credentials, for a browser).
func (s *Server) allowed(r *http.Request, role Role) bool {
	if role == roleOpen || !s.tokens[role].set {
		return true
	}
	if token, ok := bearer(r); ok {
		return s.matches(role, token)
	}
	if role == RoleMonitor {
		if pass, ok := basicPassword(r); ok {
			return s.matches(role, pass)
		}
	}
	return false
}

// maxTokenLen is the longest token: a longer one presented matches none, and is
// not hashed.
const maxTokenLen = 256

// matches reports, in constant time, whether token is role's. The token is hashed
// from a copy on the stack: converting it to a []byte would allocate on every
// request of a long token.
func (s *Server) matches(role Role, token string) bool {
	if len(token) > maxTokenLen {
		return false
	}
	var buf [maxTokenLen]byte
	n := copy(buf[:], token)
	got := sha256.Sum256(buf[:n])
	return subtle.ConstantTimeCompare(got[:], s.tokens[role].hash[:]) == 1
}

// anyToken reports whether r carries the token of some role, or no role has one:
// it is the check of a request that matched no route.
func (s *Server) anyToken(r *http.Request) bool {
	if !s.auth {
		return true
	}
	token, ok := bearer(r)
	if !ok {
		return false
	}
	for role := range numRoles {
		if s.tokens[role].set && s.matches(role, token) {
			return true
		}
	}
	return false
}

// unauthorized answers 401 with the challenge of role: Bearer, and Basic on the
// status page, so that a browser asks for the monitor token.
func unauthorized(w http.ResponseWriter, r *http.Request, role Role) {
	if role == RoleMonitor && r.URL.Path == "/" {
		w.Header()["Www-Authenticate"] = []string{`Basic realm="cosid", charset="UTF-8"`, `Bearer realm="cosid"`}
	} else {
		w.Header().Set("WWW-Authenticate", `Bearer realm="cosid"`)
	}
	writeError(w, http.StatusUnauthorized, "unauthorized", "a valid bearer token is required")
}
