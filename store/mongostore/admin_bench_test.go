package mongostore_test

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/mongostore"
)

// BenchmarkKeys_Page100 times a page of 100 keys and, in turn, its baseline: the
// same find run bare into bson.M documents. The store adds its checks, its timeout
// and the decoding into KeyInfo.
func BenchmarkKeys_Page100(b *testing.B) {
	uri := server(b)
	db := testDatabase(b, uri)
	st := openStore(b, uri, db)
	coll := connect(b, uri).Database(db).Collection(mongostore.RangeCollection)
	ctx := b.Context()
	docs := make([]any, 200)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("bench/%04d", i)}, {Key: "next", Value: int64(i)}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "bench/"}, {Key: "$lt", Value: "bench0"}}}}
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(-100).SetBatchSize(100)
	testenv.Interleave(b, func() error {
		cur, err := coll.Find(ctx, filter, opts)
		if err != nil {
			return err
		}
		var page []bson.M
		if err := cur.All(ctx, &page); err != nil || len(page) != 100 {
			return fmt.Errorf("%d documents, %v", len(page), err)
		}
		return nil
	}, func() error {
		keys, err := st.Keys(ctx, "bench/", "", 100)
		if err == nil && len(keys) != 100 {
			err = fmt.Errorf("%d keys", len(keys))
		}
		return err
	})
}

// BenchmarkRaiseTo times a raise of an existing key and, in turn, its baseline: the
// same findOneAndUpdate with $max run bare, both with write concern majority.
func BenchmarkRaiseTo(b *testing.B) {
	uri := server(b)
	db := testDatabase(b, uri)
	st := openStore(b, uri, db)
	bare := connect(b, uri).Database(db).Collection("bare", options.Collection().SetWriteConcern(writeconcern.Majority()))
	ctx := b.Context()
	var n int64
	testenv.Interleave(b, func() error {
		var doc bson.M
		err := bare.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "k"}}, bson.D{{Key: "$max", Value: bson.D{{Key: "next", Value: n}}}},
			options.FindOneAndUpdate().SetUpsert(true)).Decode(&doc)
		if err != nil && n == 0 {
			err = nil // the upsert of the first call returns no document
		}
		return err
	}, func() error {
		n++
		_, err := st.RaiseTo(ctx, "k", n)
		return err
	})
}
