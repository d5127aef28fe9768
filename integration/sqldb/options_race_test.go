package sqldb_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestWithLogger_OneOptionOpensStoresConcurrently opens stores at once with one
// WithLogger(nil) option value, as a program that builds its options once does:
// under -race, the option must not write what it captured.
func TestWithLogger_OneOptionOpensStoresConcurrently(t *testing.T) {
	opts := []sqlstore.Option{sqlstore.WithLogger(nil), sqlstore.WithInitSchema(true)}
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			st, err := sqlstore.Open("sqlite", filepath.Join(dir, string(rune('a'+i))+".db"), 10*time.Second, opts...)
			if err != nil {
				t.Error(err)
				return
			}
			st.Close()
		})
	}
	wg.Wait()
}
