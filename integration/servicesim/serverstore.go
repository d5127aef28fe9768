package servicesim

import (
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
)

// serverStore serves st on the store API.
func serverStore(st store.RangeStore) server.Option { return server.WithStore(st) }
