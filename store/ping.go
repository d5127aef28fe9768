package store

import "context"

// Pinger is implemented by stores that can verify that their backend answers, the
// way database/sql's driver.Pinger verifies a connection. Most stores open lazily
// (opening one does no I/O, so that a program starts while its backend is down);
// Ping is the explicit probe of a pre-flight check such as `cosid config check
// --open`.
//
// Ping makes one real request of the kind the store's reservations need, bounded
// by the store's timeout unless ctx ends sooner, and writes nothing. It returns nil
// when the backend answered it, and otherwise an error that says what failed,
// wrapping ctx.Err() when ctx ended. A store whose backend needs credentials pings
// with them, so that a wrong password or token fails Ping.
type Pinger interface {
	Ping(ctx context.Context) error
}
