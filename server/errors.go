package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// The errors of the API and how they are answered: an *apiError as it says, a
// runtime's or store's error by its sentinel.

// apiError is an error with its status and code.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, wire.CodeInvalidArgument, fmt.Sprintf(format, args...)}
}

// fail answers err: an *apiError as it says, a body over the limit 413, an unknown
// generator 404, a store's error by its sentinel (wire.Classify).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var tooLarge *http.MaxBytesError
	var re *rateError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, ae.code, ae.msg)
	case errors.As(err, &re):
		w.Header().Set("Retry-After", re.retryAfter())
		writeError(w, http.StatusTooManyRequests, codeRateLimited, re.msg)
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, wire.CodeTooLarge, fmt.Sprintf("the request body is over the limit of %d bytes", tooLarge.Limit))
	case errors.Is(err, cosid.ErrUnknownGenerator):
		writeError(w, http.StatusNotFound, wire.CodeUnknownGenerator, err.Error())
	case badKey(err):
		writeError(w, http.StatusBadRequest, wire.CodeInvalidArgument, err.Error())
	case errors.Is(err, cosid.ErrMaxKeys):
		// Not a 503: the store is well, and no retry helps until the setting the
		// message names is raised.
		writeError(w, http.StatusConflict, codeMaxKeys, err.Error())
	default:
		status, code := wire.Classify(err)
		msg := err.Error()
		if status == http.StatusServiceUnavailable {
			// The error names the store's host, user and database: the log has
			// it, the caller learns only which store failed.
			w.Header().Set("Retry-After", "1")
			s.logger.Warn("server: store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
			msg = s.unavailable(r)
		}
		writeError(w, status, code, msg)
	}
}

// codeMaxKeys is the API's error code of a new key refused by its template's
// max-keys (cosid.ErrMaxKeys).
const codeMaxKeys = "max_keys"

// codecFull is the error of a codec that cannot write a value of generator name,
// as the runtime words it: cosid.ErrExhausted, a 409 exhausted, since a
// generator's values only grow and every later one is refused too.
func codecFull(name string, err error) error {
	return fmt.Errorf("cosid: generator %q: %w: %w; the codec has no text for more ids of this key: widen the codec (a larger width in cosid.generators.%s.codec)", name, cosid.ErrExhausted, err, name)
}

// unavailable is the message of a 503: which store of r's route failed, without
// what the store's error says of it.
func (s *Server) unavailable(r *http.Request) string {
	name := r.PathValue("name")
	if n, ok := nextName(r); ok {
		name = n
	}
	if g := s.gens[name]; g != nil && g.info.Store != "" {
		return fmt.Sprintf("the store %q of generator %q is unavailable; the server's log has the details", g.info.Store, name)
	}
	if strings.HasPrefix(r.URL.Path, "/v1/store/") {
		return "the served store is unavailable; the server's log has the details"
	}
	return "a store is unavailable; the server's log has the details"
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	if rec, ok := w.(*recorder); ok {
		rec.errMsg = msg
	}
	writeJSON(w, status, wire.Error{Code: code, Message: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":"internal","message":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
