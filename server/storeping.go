package server

import (
	"net/http"

	"github.com/cosid-go/cosid/store"
)

// storePing answers GET wire.PathPing: {} once the served store answered its own
// Ping (a store.Pinger; a store that is not one, such as memory, has nothing to
// reach). It lets an httpstore's Ping check the server, its token and the store
// behind it at once, without writing anything.
func (s *Server) storePing(w http.ResponseWriter, r *http.Request) error {
	st, err := s.rangeStore(r.Context())
	if err != nil {
		return err
	}
	if p, ok := st.(store.Pinger); ok {
		if err := p.Ping(r.Context()); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, struct{}{})
	return nil
}
