package redisstore_test

import (
	"crypto/rand"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storetest"
)

const (
	helperEnv        = "COSID_REDISSTORE_HELPER" // address, prefix and key of a helper process
	reservesPerChild = 200
)

// TestHelperProcess is the body of the child processes of
// TestTwoProcesses_NoOverlap: it reserves one key and prints each range.
func TestHelperProcess(t *testing.T) {
	spec := testenv.ChildSpec(t, helperEnv, 3)
	addr, prefix, key := spec[0], spec[1], spec[2]
	testenv.Reserve(t, openStore(t, addr, redisstore.WithPrefix(prefix)), key, reservesPerChild)
}

// TestTwoProcesses_NoOverlap runs two real processes that reserve the same key at
// once on the durable server: no value is handed out twice.
func TestTwoProcesses_NoOverlap(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	all := testenv.ChildRanges(t, "TestHelperProcess", helperEnv, testenv.Fields(addr, prefix, "procs/"+rand.Text()), reservesPerChild)
	storetest.CheckProcessRanges(t, all, 0)
}
