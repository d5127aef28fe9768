// Package nosqlite_test is a program that imports the root package and no
// database/sql driver, as a library user's may: the root links none, as
// database/sql ships none, so that a program pays for SQLite only when it uses it.
package nosqlite_test

import (
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestOpen_DefaultConfigWithoutTheDriverNamesItsImport checks that the embedded
// default, on SQLite, is refused at Open, before any I/O, with an error that names
// the store's driver setting and the import that registers the driver.
func TestOpen_DefaultConfigWithoutTheDriverNamesItsImport(t *testing.T) {
	if slices.Contains(sql.Drivers(), "sqlite") {
		t.Fatalf("the root links a SQLite driver: database/sql has %v", sql.Drivers())
	}
	rt, err := cosid.Open(t.Context(), cosid.DefaultConfig())
	if err == nil {
		rt.Close()
		t.Fatal("Open(DefaultConfig) without a SQLite driver succeeded")
	}
	if !errors.Is(err, cosid.ErrConfig) {
		t.Errorf("error %q does not wrap ErrConfig", err)
	}
	for _, want := range []string{"cosid.stores.default.driver", `add import _ "modernc.org/sqlite" to the program`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
