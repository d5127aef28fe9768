package sqldb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestOpen_SQLiteNotWritableIsASetupError: a SQLite file or folder that the process
// cannot write is a setup error (ErrNotSetUp, not ErrUnavailable) naming the
// absolute path and the permission, not "cannot reach the database".
func TestOpen_SQLiteNotWritableIsASetupError(t *testing.T) {
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro.db")
	if err := os.WriteFile(readOnly, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		mention    []string
		asRoot     bool // root writes the file all the same
	}{
		// sysfs refuses a new file even to root.
		{"folder not writable", "/sys/cosid-test.db", []string{"the folder /sys of the SQLite file cosid-test.db is not writable by uid", "permission denied"}, true},
		{"folder missing", filepath.Join(dir, "missing", "ids.db"), []string{"the folder " + filepath.Join(dir, "missing") + " of the SQLite file ids.db does not exist"}, true},
		{"file not writable", readOnly, []string{"the SQLite file " + readOnly + " is not writable by uid", "permission denied"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.asRoot && os.Getuid() == 0 {
				t.Skip("root writes a file of mode 0444")
			}
			_, err := sqlstore.Open("sqlite", tc.path, testTimeout, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
			if !errors.Is(err, store.ErrNotSetUp) || errors.Is(err, store.ErrUnavailable) {
				t.Fatalf("Open(%s) = %v; want a setup error (ErrNotSetUp), not ErrUnavailable", tc.path, err)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("Open(%s) = %v; want it to say %q", tc.path, err, m)
				}
			}
		})
	}
}
