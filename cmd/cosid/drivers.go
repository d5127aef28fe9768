package main

// The database/sql drivers of the SQL store: sqlstore imports none, a program links
// the ones it imports, and the CLI serves them all.
import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/microsoft/go-mssqldb"
	_ "modernc.org/sqlite"
)

// The ZooKeeper and MongoDB stores register their configuration types.
import (
	_ "github.com/cosid-go/cosid/store/mongostore"
	_ "github.com/cosid-go/cosid/store/zkstore"
)
