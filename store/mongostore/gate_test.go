package mongostore_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// TestReplicationGate_FerretDBRefused checks that a store without WithFerretDB
// refuses FerretDB at its first call, before it writes anything, with an error that
// names the risk and the opt-in, and again at the next call (the check stays due
// until one passes); and that the opt-in, through Go and through YAML, accepts it
// with a warning. FerretDB's updates are not atomic: two processes reserving one key
// got 96 overlapping ranges.
func TestReplicationGate_FerretDBRefused(t *testing.T) {
	uri := server(t)
	if !isFerretDB(t, uri) {
		t.Skip("the test server is MongoDB, not FerretDB")
	}
	db := testDatabase(t, uri)
	client := connect(t, uri)
	st, err := mongostore.New(client.Database(db), mongostore.WithTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := st.Reserve(t.Context(), "k", 10, 0)
		if !errors.Is(err, mongostore.ErrFerretDB) {
			t.Fatalf("Reserve on FerretDB without the opt-in = %v; want ErrFerretDB", err)
		}
		for _, w := range []string{"not atomic", "same ids", "allowFerretDB", "WithFerretDB"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q does not mention %q", err, w)
			}
		}
	}
	if n, err := client.Database(db).Collection(mongostore.RangeCollection).CountDocuments(t.Context(), bson.D{}); err != nil || n != 0 {
		t.Errorf("the refused store wrote %d documents (%v), want none", n, err)
	}

	var log bytes.Buffer
	st, err = mongostore.New(client.Database(db), mongostore.WithTimeout(testTimeout), mongostore.WithFerretDB(),
		mongostore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := st.Reserve(t.Context(), "k", 10, 0); err != nil {
			t.Fatalf("Reserve with WithFerretDB: %v", err)
		}
	}
	if got := log.String(); strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "allowFerretDB") {
		t.Errorf("the store with WithFerretDB logged %q, want one warning that names allowFerretDB", got)
	}

	yaml := "uri: " + uri + "\ndatabase: " + db + "\ntimeout: 3s"
	typ, _ := store.Lookup("mongodb")
	open := typ.Open
	refused, err := open(t.Context(), testenv.Spec("ids", yaml, slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	if _, err := refused.Reserve(t.Context(), "k", 10, 0); !errors.Is(err, mongostore.ErrFerretDB) {
		t.Errorf("Reserve of a configured store without allowFerretDB = %v; want ErrFerretDB", err)
	}
	testenv.Opened(t, "mongodb", "ids", "uri: "+uri+"\ndatabase: "+testDatabase(t, uri)+"\ntimeout: 3s\noptions: { allowFerretDB: true }", 3*time.Second)
}
