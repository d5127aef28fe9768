package httpstore

import (
	"context"
	"fmt"
	"net/http"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

var _ store.Pinger = (*Store)(nil)

// Ping implements store.Pinger: a GET of the server's store ping route with the
// store's token, which the server answers once the store it serves answered its
// own Ping. A wrong token fails it as a reservation would, and it writes nothing.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := s.try(ctx, func(ctx context.Context, base string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+wire.PathPing, nil)
		if err != nil {
			return err
		}
		return s.do(req, base, wire.PathPing, nil)
	})
	if err != nil {
		return fmt.Errorf("httpstore: ping: %w", err)
	}
	return nil
}
