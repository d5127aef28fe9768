// Package sqldb holds the tests of store/sqlstore that need a database/sql driver or
// a database: SQLite (modernc.org/sqlite) and the servers that COSID_TEST_POSTGRES
// and COSID_TEST_MYSQL name (pgx, go-sql-driver/mysql), each test skipping when its
// server is unset unless COSID_TEST_REQUIRE=1. They live here so that the core
// module, which store/sqlstore belongs to, requires no driver; the tests that need
// none, such as the dialects' SQL text, stay beside the code. The package itself
// holds nothing.
package sqldb
