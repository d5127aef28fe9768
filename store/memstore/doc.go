// Package memstore is an in-process store: ranges and slot leases kept in memory, for
// tests and for applications that run as a single process. Nothing survives a restart,
// so ids from a memstore are unique only within the process that made them.
package memstore
