// Package entdemo is the ent client of the tests of cosident, generated from
// ./schema by entc: after a change of the schema, run go generate here.
package entdemo

//go:generate go run entgo.io/ent/cmd/ent@v0.14.5 generate ./schema --target .
