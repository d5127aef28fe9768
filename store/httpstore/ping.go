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
	var err error
	for attempt := 0; ; attempt++ {
		err = s.get(ctx, wire.PathPing)
		if attempt > 0 || !refused(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("httpstore: ping: %w", err)
	}
	return nil
}

func (s *Store) get(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return err
	}
	return s.do(req, path, nil)
}
