package cosid

// The store types every binary that imports this package has: the in-process store
// and, with its embedded SQLite default, the SQL store. Other types (redis, etcd,
// http) register when their packages are imported.
import (
	_ "github.com/cosid-go/cosid/store/memstore"
)
