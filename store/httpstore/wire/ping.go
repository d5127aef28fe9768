package wire

// PathPing is the route of httpstore's Ping: GET, no body, answered a Ping once the
// served store answered its own Ping. It needs the store role's token like the
// other /v1/store routes, and writes nothing but the store's identity, the first
// time a store is asked for it.
const PathPing = "/v1/store/ping"

// Ping is the answer of PathPing: the identity of the served store (a
// store.Identifier), empty for a store that has none.
type Ping struct {
	StoreID string `json:"storeId,omitempty"`
}

// HeaderStoreID is the header of every answer of the store API (/v1/store and the
// Connect StoreService) that names the identity of the served store, so that a
// client of several servers refuses an answer of another store than its own.
const HeaderStoreID = "Cosid-Store-Id"
