package wire

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/cosid-go/cosid/store"
)

// TestClassify_SentinelsRoundTrip checks that every store sentinel a server answers
// comes back to an httpstore client as the same sentinel, and that a missing table
// is not answered as an outage (503 makes clients retry for ever).
func TestClassify_SentinelsRoundTrip(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{store.ErrSealed, http.StatusConflict, CodeSealed},
		{store.ErrLeaseLost, http.StatusConflict, CodeLeaseLost},
		{store.ErrNotSetUp, http.StatusInternalServerError, CodeNotSetUp},
		{errors.New("connection refused"), http.StatusServiceUnavailable, CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			status, code := Classify(fmt.Errorf("store x: %w", tt.err))
			if status != tt.status || code != tt.code {
				t.Fatalf("Classify(%v) = %d %s, want %d %s", tt.err, status, code, tt.status, tt.code)
			}
			back := AsError(status, Error{Code: code, Message: "m"})
			if tt.code != CodeUnavailable && !errors.Is(back, tt.err) {
				t.Errorf("AsError(%d, %s) = %v, want it to match %v", status, code, back, tt.err)
			}
			if tt.code == CodeNotSetUp && errors.Is(back, store.ErrUnavailable) {
				t.Errorf("a missing table came back as ErrUnavailable: %v", back)
			}
		})
	}
}
