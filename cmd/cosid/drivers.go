package main

// The stores the CLI serves: every store type of the project registers itself when
// imported, and the SQL store takes every database/sql driver the CLI links. A
// program of its own links only the ones it imports.
import (
	_ "github.com/cosid-go/cosid/store/etcdstore"
	_ "github.com/cosid-go/cosid/store/httpstore"
	_ "github.com/cosid-go/cosid/store/mongostore"
	_ "github.com/cosid-go/cosid/store/redisstore"
	_ "github.com/cosid-go/cosid/store/zkstore"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/microsoft/go-mssqldb"
	_ "modernc.org/sqlite"
)
