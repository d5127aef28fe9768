package server

import (
	"context"
	"net/http"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// storeIdentity returns the identity of the served store (store.Identifier), ""
// for a store that has none. Once read it is kept: it never changes.
func (s *Server) storeIdentity(ctx context.Context) (string, error) {
	if id := s.storeID.Load(); id != nil {
		return *id, nil
	}
	st, err := s.rangeStore(ctx)
	if err != nil {
		return "", err
	}
	ider, ok := st.(store.Identifier)
	if !ok {
		return "", nil
	}
	id, err := ider.StoreID(ctx)
	if err != nil {
		return "", err
	}
	s.storeID.Store(&id)
	return id, nil
}

// setStoreID names the served store's identity in the header of an answer of the
// store API, when it can be read. A store that cannot be read now answers its
// error in the call itself.
func (s *Server) setStoreID(w http.ResponseWriter, r *http.Request) {
	if s.store == nil {
		return
	}
	if id, err := s.storeIdentity(r.Context()); err == nil && id != "" {
		w.Header().Set(wire.HeaderStoreID, id)
	}
}
