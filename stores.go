package cosid

// The store types every binary that imports this package has: the in-process store,
// and the SQL store with the pure-Go SQLite driver of the embedded default. Other
// types (redis, etcd, zookeeper, mongodb, http) and other SQL drivers (pgx, mysql,
// sqlserver) register when their packages are imported.
import (
	_ "github.com/cosid-go/cosid/store/memstore"
	_ "github.com/cosid-go/cosid/store/sqlstore"
	_ "modernc.org/sqlite"
)
