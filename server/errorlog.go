package server

import (
	"log"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// The error log of the http.Server: rate-limited, for the TLS handshake errors
// that anyone can cause.

// handshakeEvery is how often the error log writes a TLS handshake error at most:
// anyone can make one, so that they do not flood the log.
const handshakeEvery = 10 * time.Second

// newErrorLog returns the error log of an http.Server: its lines go to logger as
// warnings, its TLS handshake errors at most one every handshakeEvery, with how
// many were left out.
func newErrorLog(logger *slog.Logger, now func() time.Time) *log.Logger {
	return log.New(&errorWriter{logger: logger, now: now}, "", 0)
}

type errorWriter struct {
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	last    time.Time // when the last handshake error was written
	dropped int       // handshake errors left out since
}

func (e *errorWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	if !strings.Contains(msg, "TLS handshake error") {
		e.logger.Warn(msg)
		return len(p), nil
	}
	e.mu.Lock()
	now := e.now()
	if !e.last.IsZero() && now.Sub(e.last) < handshakeEvery {
		e.dropped++
		e.mu.Unlock()
		return len(p), nil
	}
	dropped := e.dropped
	e.last, e.dropped = now, 0
	e.mu.Unlock()
	e.logger.Warn(msg, "left-out", dropped, "every", handshakeEvery.String())
	return len(p), nil
}
