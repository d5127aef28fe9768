// Package uuidv7 holds the tests of the codec item uuidv7 against readers of
// UUIDs that are not ours: google/uuid, Python's uuid module, and PostgreSQL's
// uuid type (COSID_TEST_POSTGRES).
package uuidv7
