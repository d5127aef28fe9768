// Package clients holds clients of cosid serve in other languages, each with only its
// language's own library: python/client.py (urllib) and node/client.mjs (fetch). Each
// takes ids over /v1 and reserves a range through the store API to hand out locally.
// The tests of this package run each against a real cosid serve.
package clients
