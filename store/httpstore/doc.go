// Package httpstore is the store type http ("proxy" in CosId 4.x): a RangeStore and
// SlotLeaseStore whose backend is a cosid serve, reached over its store API
// (/v1/store/…). Many processes share the server's store through any number of
// servers; the servers keep no state, so it does not matter which one a call reaches.
//
// A Store may know several servers (NewServers, urls: in the configuration). A call
// goes to the server that last answered, and on to the next when it did not reach a
// server: no connection could be made to it (the dial failed: refused, timed out, no
// such host), or the transport reports that it failed while getting a connection,
// before any of the request was written (a TLS handshake). A call that a server
// answered, even with an error, is not sent again to this or any other server. A
// call that reached a server but got no answer (it timed out, or the connection
// broke after the request went out: the server may hang, as a stopped process whose
// kernel still accepts connections does) sends the next calls to the next server;
// its outcome is unknown, so a Renew or Release, which would act on a lease twice, is
// not sent again, while a Reserve or Acquire goes on to the servers it has not tried,
// each once: whatever a server may have reserved is only a gap (S4), and a slot it may
// have leased expires. So that a hung server leaves time for that, with several
// servers a Reserve or Acquire gives each server its share of the timeout. With one
// server, a call that did not reach it is tried once more.
//
// Several servers must serve one store, and a Store pinned to it (WithStoreID,
// store-id: in the configuration, which several urls need) refuses the answer of a
// server of another store, or of one that names none, and goes on to the next server:
// two stores hand out the same ranges.
//
// A Store trusts its server only so far: it follows no redirect (its token would go
// along), refuses a URL with a user name or password in it (which would show in
// every error), and checks the ranges and leases it is answered before it returns
// them.
//
// Configuration (type http):
//
//	stores:
//	  ids: { type: http, url: "https://ids.internal:8686", token-file: /run/secrets/cosid, timeout: 3s }
//	  fleet: { type: http, urls: ["https://ids-a.internal:8686", "https://ids-b.internal:8686"], store-id: 3f0c9a1e5b7d2c84, token-file: /run/secrets/cosid }
package httpstore
