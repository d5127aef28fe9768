package main

// The database/sql drivers of the SQL store: sqlstore imports none, a program links
// the ones it imports, and the CLI serves them all.
import (
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/microsoft/go-mssqldb"
	_ "modernc.org/sqlite"
)

// The stores of types that are not SQL register themselves when imported.
import _ "github.com/cosid-go/cosid/store/etcdstore"
// The store type http: a configuration's store may be another cosid serve.
import _ "github.com/cosid-go/cosid/store/httpstore"
