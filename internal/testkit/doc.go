// Package testkit is the wing of test harnesses that drive the library from above: the
// deterministic simulation (sim), the lease model checker (leasemodel), the fault proxy
// (faultproxy), the servers' test environment (testenv) and the check that the root
// links no SQLite driver (nosqlite). Nothing in a program that uses CosId imports them;
// the runtime helpers below the stores live beside them in internal/.
package testkit
