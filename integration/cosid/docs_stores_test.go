package cosid_test

// The store types of the docs' examples beyond the root's own, and the SQL drivers
// (the embedded default's SQLite among them), so that their configurations pass
// Load's checks as a binary that links them would.
import (
	_ "github.com/cosid-go/cosid/store/etcdstore"
	_ "github.com/cosid-go/cosid/store/httpstore"
	_ "github.com/cosid-go/cosid/store/mongostore"
	_ "github.com/cosid-go/cosid/store/redisstore"
	_ "github.com/cosid-go/cosid/store/zkstore"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)
