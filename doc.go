// Package cosid is CosId for Go: a YAML configuration of stores and generators, opened
// into a Runtime that hands out any configured generator's ids, typed or as text,
// and fills struct fields tagged `cosid:"name"`.
//
// Load and Open check the whole configuration without I/O (errors wrap ErrConfig);
// stores open on first use, so a store that is down makes only the generators on it
// fail, with ErrUnavailable, until it is back.
//
//	rt, err := cosid.Load(ctx, "cosid.yaml")
//	…
//	defer rt.Close()
//	bill, err := rt.Next(ctx, "bill")             // "20261027-000042", by name
//	invoices, err := rt.Source("invoice", "acme") // a generator and, keyed, its key
//	text, err := invoices.Next(ctx)               // held: no lookup per id
//
// A Source answers Next, NextInt, NextRange, Take and Stats for any generator, by
// what its strategy can do (GeneratorInfo says which), never by its name.
//
// The generators live in package segment (segment, periodic-segment) and package
// snowflake; their text forms in package codec; the stores in the sub-packages of
// store. This package links the memory store and the SQL store, without a
// database/sql driver: a program on the embedded SQLite default imports
// _ "modernc.org/sqlite", and one that uses another store type imports its package.
package cosid
