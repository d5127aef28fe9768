package mongostore_test

import (
	"crypto/rand"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/storetest"
)

const (
	helperEnv        = "COSID_MONGOSTORE_HELPER" // URI, database and key of a helper process
	reservesPerChild = 100
)

// TestHelperProcess is the body of the child processes of
// TestTwoProcesses_S1_NoOverlap: it reserves one key and prints each range.
func TestHelperProcess(t *testing.T) {
	spec := testenv.ChildSpec(t, helperEnv, 3)
	testenv.Reserve(t, openStore(t, spec[0], spec[1]), spec[2], reservesPerChild)
}

// TestTwoProcesses_S1_NoOverlap runs two real processes that reserve one key at
// once: no value is handed out twice, and none is lost. It needs a server whose
// updates are atomic, so it skips on FerretDB (see turns).
func TestTwoProcesses_S1_NoOverlap(t *testing.T) {
	uri := server(t)
	if isFerretDB(t, uri) {
		t.Skip("FerretDB v1.24.2 runs an update as a query and an unconditional write: two processes' $inc can both read one value")
	}
	db := testDatabase(t, uri)
	all := testenv.ChildRanges(t, "TestHelperProcess", helperEnv, testenv.Fields(uri, db, "procs/"+rand.Text()[:8]), reservesPerChild)
	storetest.CheckProcessRanges(t, all, 0)
}
