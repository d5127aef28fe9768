package sqldb_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// walBound is the most a SQLite store's write-ahead log may hold: SQLite checkpoints
// it at 1,000 pages of 4 KiB (with their frame headers), and the store limits the
// file after a checkpoint; twice that leaves room for one burst.
const walBound = 2 * 1000 * (4096 + 24)

// TestReserve_SQLiteWALStaysBounded: a store that serves thousands of reservations
// folds its write-ahead log back into the database as it goes (the automatic
// checkpoint runs), so that the disk does not fill and the database file alone
// holds the keys.
func TestReserve_SQLiteWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cosid.db")
	st := openStore(t, backend{name: "sqlite", driver: "sqlite"}, path+"?_pragma=synchronous(normal)")
	ctx := context.Background()
	const n, keys = 5000, 100
	for i := range n {
		if _, err := st.Reserve(ctx, "k"+strconv.Itoa(i%keys), 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	if size := fileSize(t, path+"-wal"); size > walBound {
		t.Errorf("after %d reservations the WAL holds %d bytes, want at most %d: it is not checkpointed", n, size, walBound)
	}
	// The database file without its log: a copy holds every key, as of a checkpoint.
	copied := filepath.Join(t.TempDir(), "copy.db")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var count, sum int64
	err = openDB(t, backend{driver: "sqlite"}, copied+"?mode=ro").
		QueryRowContext(ctx, "select count(*), coalesce(sum(next_value), 0) from cosid_range").Scan(&count, &sum)
	if err != nil {
		t.Fatalf("the database file alone: %v", err)
	}
	if count != keys || sum < n-1000 {
		t.Errorf("the database file alone holds %d keys reserved %d times, want %d keys and about %d reservations", count, sum, keys, n)
	}
}

// TestReserve_SQLiteWALShrinksAfterReader: a reader of another connection holds the
// checkpoint back while it reads; once it has gone, the next checkpoint brings the
// log's file back under the bound instead of keeping its largest size.
func TestReserve_SQLiteWALShrinksAfterReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cosid.db")
	st := openStore(t, backend{name: "sqlite", driver: "sqlite"}, path+"?_pragma=synchronous(normal)")
	ctx := context.Background()
	reserve := func(n int) {
		t.Helper()
		for i := range n {
			if _, err := st.Reserve(ctx, "k"+strconv.Itoa(i%100), 1, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	reserve(100)
	reader, err := openDB(t, backend{driver: "sqlite"}, path+"?_pragma=synchronous(normal)").BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var count int
	if err := reader.QueryRowContext(ctx, "select count(*) from cosid_range").Scan(&count); err != nil {
		t.Fatal(err)
	}
	reserve(3000)
	if size := fileSize(t, path+"-wal"); size <= walBound {
		t.Fatalf("with a reader holding the checkpoint back, the WAL holds %d bytes; the test wants it past %d", size, walBound)
	}
	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	reserve(2000)
	if size := fileSize(t, path+"-wal"); size > walBound {
		t.Errorf("after the reader left, the WAL holds %d bytes, want at most %d", size, walBound)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
