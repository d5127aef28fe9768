package mongostore_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
)

// TestCorruptDocument_Refused checks that a document holding values the store never
// writes fails the calls that read it with ErrCorrupt, naming the document, and is
// left as it was.
func TestCorruptDocument_Refused(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	st := openStore(t, uri, db)
	raw := connect(t, uri).Database(db)
	docs := map[string][]any{
		mongostore.RangeCollection: {
			bson.D{{Key: "_id", Value: "text"}, {Key: "next", Value: "12"}},
			bson.D{{Key: "_id", Value: "negative"}, {Key: "next", Value: int64(-4)}, {Key: "sealed", Value: true}},
		},
		mongostore.SlotCollection: {
			bson.D{{Key: "_id", Value: "badrow#meta"}, {Key: "ns", Value: "badrow"}, {Key: "limit", Value: 2}, {Key: "toleranceMs", Value: int64(1000)}},
			bson.D{{Key: "_id", Value: "badrow#1"}, {Key: "ns", Value: "badrow"}, {Key: "slot", Value: 1}, {Key: "fence", Value: int64(0)}},
			bson.D{{Key: "_id", Value: "badmeta#meta"}, {Key: "ns", Value: "badmeta"}, {Key: "limit", Value: -2}},
		},
	}
	for coll, ds := range docs {
		if _, err := raw.Collection(coll).InsertMany(t.Context(), ds); err != nil {
			t.Fatal(err)
		}
	}
	req := store.LeaseRequest{OwnerKey: "o", Limit: 2, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	tests := []struct {
		name, doc string
		call      func() error
	}{
		{"ReserveText", `"text"`, func() error { _, err := st.Reserve(t.Context(), "text", 1, 0); return err }},
		{"ReserveNegative", `"negative"`, func() error { _, err := st.Reserve(t.Context(), "negative", 1, 0); return err }},
		{"AcquireRow", `"badrow#1"`, func() error { r := req; r.Namespace = "badrow"; _, err := st.Acquire(t.Context(), r); return err }},
		{"AcquireMeta", `"badmeta#meta"`, func() error { r := req; r.Namespace = "badmeta"; _, err := st.Acquire(t.Context(), r); return err }},
		{"Renew", `"badrow#1"`, func() error {
			_, err := st.Renew(t.Context(), store.Lease{Namespace: "badrow", OwnerKey: "o", Incarnation: "i", Slot: 1}, time.Minute)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, mongostore.ErrCorrupt) || !strings.Contains(err.Error(), tt.doc) {
				t.Errorf("%v, want ErrCorrupt naming %s", err, tt.doc)
			}
		})
	}
	var doc bson.M
	if err := raw.Collection(mongostore.RangeCollection).FindOne(t.Context(), bson.D{{Key: "_id", Value: "text"}}).Decode(&doc); err != nil || doc["next"] != "12" {
		t.Errorf("the corrupt range document is %v, %v; want it left as it was", doc, err)
	}
}

// TestEndedCalls checks that a call on a canceled context fails with its error, and
// that a closed store refuses every call with store.ErrClosed, admin calls included.
func TestEndedCalls(t *testing.T) {
	uri := server(t)
	testenv.EndedCalls(t, openStore(t, uri, testDatabase(t, uri)))
}
