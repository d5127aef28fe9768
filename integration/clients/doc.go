// Package clients tests the range-leasing clients of other languages under clients/
// (Python's cosid_client, Node's client) against real cosid serve processes on one
// PostgreSQL store: failover when a server is killed mid-run, and no id twice.
package clients
