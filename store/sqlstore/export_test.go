package sqlstore

// OpenPool opens a pool as Open does, for the tests that share one among stores.
var OpenPool = openPool
