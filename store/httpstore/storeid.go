package httpstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

var _ store.Identifier = (*Store)(nil)

// wrongStoreError is the refusal of an answer of a server whose store is not the
// one the Store is pinned to (WithStoreID): another store hands out the same ranges
// again. It matches store.ErrUnavailable: the call may succeed on another server.
type wrongStoreError struct {
	server, got, want string
}

func (e *wrongStoreError) Error() string {
	got := "no store identity (a cosid serve older than store-id, or none)"
	if e.got != "" {
		got = "store " + e.got
	}
	return fmt.Sprintf("%s: %v: the server serves %s, not store-id %s: it is another store, whose ranges would repeat ids; remove it from urls, or fix store-id",
		e.server, store.ErrUnavailable, got, e.want)
}

func (e *wrongStoreError) Unwrap() error { return store.ErrUnavailable }

// checkStore refuses the answer of base whose header names another store than the
// pinned one.
func (s *Store) checkStore(base string, h http.Header) error {
	if s.storeID == "" || plantAnyStore {
		return nil
	}
	if got := h.Get(wire.HeaderStoreID); got != s.storeID {
		return &wrongStoreError{server: base, got: got, want: s.storeID}
	}
	return nil
}

// isWrongStore reports whether err refused a server of another store, which a call
// passes over as it passes over a server it cannot reach.
func isWrongStore(err error) bool {
	var w *wrongStoreError
	return errors.As(err, &w)
}

// ping asks base for its store's identity.
func (s *Store) ping(ctx context.Context, base string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+wire.PathPing, nil)
	if err != nil {
		return "", err
	}
	var p wire.Ping
	if err := s.do(req, base, wire.PathPing, &p); err != nil {
		return "", err
	}
	return p.StoreID, nil
}

// StoreID implements store.Identifier: the identity of the store of the first
// server that answers (of the pinned store, with WithStoreID).
func (s *Store) StoreID(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var id string
	err := s.try(ctx, true, func(ctx context.Context, base string) (err error) {
		id, err = s.ping(ctx, base)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("httpstore: store identity: %w", err)
	}
	return id, nil
}

// Ping implements store.Pinger: a GET of every server's store ping route with the
// store's token, which a server answers once the store it serves answered its own
// Ping. It fails when no server answers, and when two answer for different stores
// or one for another store than the pinned one: a wrong token fails it as a
// reservation would. It writes nothing.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return fmt.Errorf("httpstore: ping: %w", store.ErrClosed)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ids := make([]string, len(s.bases))
	errs := make([]error, len(s.bases))
	var wg sync.WaitGroup
	for i, base := range s.bases {
		wg.Go(func() { ids[i], errs[i] = s.ping(ctx, base) })
	}
	wg.Wait()
	answered := -1
	for i, err := range errs {
		switch {
		case err != nil && isWrongStore(err):
			return fmt.Errorf("httpstore: ping: %w", err)
		case err != nil:
		case answered < 0:
			answered = i
		case ids[i] != ids[answered]:
			return fmt.Errorf("httpstore: ping: %w: %s serves store %q and %s store %q: the servers of urls must serve one store; set store-id to the identity of the right one",
				store.ErrInvalidArgument, s.bases[answered], ids[answered], s.bases[i], ids[i])
		}
	}
	if answered < 0 {
		if len(errs) == 1 {
			return fmt.Errorf("httpstore: ping: %w", errs[0])
		}
		return fmt.Errorf("httpstore: ping: %w", errors.Join(errs...))
	}
	return nil
}
