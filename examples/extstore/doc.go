// Package extstore is a CosId store written the way a store outside the CosId
// repository is written: against the public packages store, store/storekit and
// store/storetest only. It keeps ranges and slot leases in one JSON file, which every
// call reads, changes and replaces whole while it holds an OS lock on a file beside
// it, so that several processes on one host share the file safely. A call's change
// is durable (the new file is synced and renamed over the old, and the directory
// synced) before the call answers.
//
// It is small rather than fast (every call rewrites the file), and the store clock
// is the host's, which every process on the host shares. The lock is flock(2), so
// the store runs on Unix systems only, on a local file system.
//
// Its files have the roles of every store's in the CosId repository: doc.go,
// register.go (the configuration type "jsonfile"), options.go, extstore.go (the
// Store, Open and Close), reserve.go, lease.go and admin.go, with data.go for the
// file's content and lock_*.go for the OS lock.
package extstore
