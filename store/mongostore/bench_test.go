package mongostore_test

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/mongostore"
)

// benchStore opens a store on a database of the benchmark's own, with the key "bench"
// reserved, and returns it with the bare command it stands beside: a
// findOneAndUpdate with $inc of n by by on a plain document, write concern majority.
func benchStore(b *testing.B, by int64) (*mongostore.Store, func() error) {
	uri := server(b)
	db := testDatabase(b, uri)
	st := openStore(b, uri, db)
	bare := connect(b, uri).Database(db).Collection("bare", options.Collection().SetWriteConcern(writeconcern.Majority()))
	ctx := b.Context()
	if _, err := bare.InsertOne(ctx, bson.D{{Key: "_id", Value: "k"}, {Key: "n", Value: int64(0)}}); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Reserve(ctx, "bench", 100, 1); err != nil {
		b.Fatal(err)
	}
	after := options.FindOneAndUpdate().SetReturnDocument(options.After)
	return st, func() error {
		var doc bson.M
		return bare.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "k"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: by}}}}, after).Decode(&doc)
	}
}

// BenchmarkReserve compares a reservation of an existing key, one findOneAndUpdate
// with $inc, with the same bare command on a plain document in one run, both with
// write concern majority. On FerretDB the goroutines of the parallel runs race, as
// its updates are not atomic (see turns); the figures only time the commands.
func BenchmarkReserve(b *testing.B) {
	st, inc := benchStore(b, 100)
	ctx := b.Context()
	ops := []testenv.Op{
		{Name: "bare=findOneAndUpdate", Run: inc},
		{Name: "store=Reserve", Run: func() error { _, err := st.Reserve(ctx, "bench", 100, 1); return err }},
	}
	testenv.Beside(b, ops, ops)
}

// BenchmarkLease measures an acquisition and a release of a slot beside the bare
// findOneAndUpdate, on a namespace of 1,024 slots whose lower 100 are held: an
// Acquire asks hello and reads the namespace's documents at once, then replaces or
// inserts one row; a Release reads two documents and replaces one.
func BenchmarkLease(b *testing.B) {
	st, inc := benchStore(b, 1)
	testenv.AcquireRelease(b, st, 100, "findOneAndUpdate", inc)
}

// BenchmarkReserve_Interleaved times a reservation and the bare findOneAndUpdate in
// turn, so that both meet the same load, and reports their medians and ratio.
func BenchmarkReserve_Interleaved(b *testing.B) {
	st, inc := benchStore(b, 100)
	testenv.Interleave(b, inc, func() error { _, err := st.Reserve(b.Context(), "bench", 100, 1); return err })
}
