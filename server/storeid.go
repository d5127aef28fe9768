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
	id, err := identityOf(ctx, st)
	if err != nil {
		return "", err
	}
	s.storeID.Store(&id)
	return id, nil
}

// identityOf reads the identity of st, "" for a store that has none (no
// store.Identifier), which it never gets.
func identityOf(ctx context.Context, st store.RangeStore) (string, error) {
	ider, ok := st.(store.Identifier)
	if !ok {
		return "", nil
	}
	return ider.StoreID(ctx)
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

// generatorStoreID returns the identity of the store of generator g, "" for a
// generator without a store or a store without an identity, or one that cannot be
// read now. The range routes name it in the header Cosid-Store-Id, so that a
// client of several servers (clients/, in other languages) sees that every range
// came from one store. Once read it is kept: it never changes.
func (s *Server) generatorStoreID(ctx context.Context, g *generator) string {
	name := g.info.Store
	if name == "" {
		return ""
	}
	if id, ok := s.storeIDs.Load(name); ok {
		return id.(string)
	}
	st, err := s.rt.Store(ctx, name)
	if err != nil {
		return ""
	}
	id, err := identityOf(ctx, st)
	if err != nil {
		return ""
	}
	s.storeIDs.Store(name, id) // "" too: a store without an identity never gets one
	return id
}
