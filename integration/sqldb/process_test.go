package sqldb_test

import (
	"crypto/rand"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/storetest"
)

const (
	helperEnv        = "COSID_SQLSTORE_HELPER" // driver, dsn and key of a helper process
	reservesPerChild = 100
)

// TestHelperProcess is the body of the child processes of
// TestTwoProcesses_NoOverlap: it reserves one key and prints each range.
func TestHelperProcess(t *testing.T) {
	spec := testenv.ChildSpec(t, helperEnv, 3)
	driver, dsn, key := spec[0], spec[1], spec[2]
	testenv.Reserve(t, openStore(t, backend{name: driver, driver: driver}, dsn), key, reservesPerChild)
}

// TestTwoProcesses_NoOverlap runs two real processes that reserve the same key at
// once on each live database: no value is handed out twice.
func TestTwoProcesses_NoOverlap(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			openStore(t, b, dsn) // creates the tables before the children race
			all := testenv.ChildRanges(t, "TestHelperProcess", helperEnv, testenv.Fields(b.driver, dsn, "procs/"+rand.Text()), reservesPerChild)
			storetest.CheckProcessRanges(t, all, -1)
		})
	}
}
