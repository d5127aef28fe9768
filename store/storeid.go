package store

import "context"

// Identifier is implemented by stores that have an identity: a random id written
// once in the backend, the same for every process on that backend and another for
// any other backend. A client of several servers (httpstore's urls) checks with it
// that they serve one store, since two stores hand out the same ranges.
//
// StoreID writes the identity when the backend has none yet (the first call on a
// new backend: of concurrent first calls, one identity wins, which all return) and
// afterwards only reads it. Its error is the store's error of the read or write.
type Identifier interface {
	StoreID(ctx context.Context) (string, error)
}
