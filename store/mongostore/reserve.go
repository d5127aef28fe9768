package mongostore

import (
	"context"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// maxAttempts bounds the rounds of a reservation that finds its key changed between
// its statements: created, or grown, by another process in between.
const maxAttempts = 16

// rangeDoc is a document of the range collection.
type rangeDoc struct {
	Key    string `bson:"_id"`
	Next   int64  `bson:"next"`
	Sealed bool   `bson:"sealed,omitempty"`
}

var returnAfter = options.FindOneAndUpdate().SetReturnDocument(options.After)

// Reserve implements store.RangeStore. An existing key costs one findOneAndUpdate:
// $inc of next by size, on the condition that the key is not sealed and that next
// plus size does not pass math.MaxInt64, returning the document after the update. When
// nothing matched, a read tells why: a sealed or exhausted key fails, and an absent
// one is inserted at initialOffset+size (a duplicate key means another process
// created it first, and the reservation starts over).
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("%s: reserve: %w", s.name, err)
	}
	r, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.Range, error) {
		return s.reserve(ctx, key, size, initialOffset)
	})
	if err != nil {
		return store.Range{}, s.failed(fmt.Sprintf("reserve %q", key), err)
	}
	return r, nil
}

func (s *Store) reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	filter := bson.D{{Key: "_id", Value: key}, {Key: "sealed", Value: bson.D{{Key: "$ne", Value: true}}},
		{Key: "next", Value: bson.D{{Key: "$lte", Value: math.MaxInt64 - size}}}}
	update := bson.D{{Key: "$inc", Value: bson.D{{Key: "next", Value: size}}}}
	for range maxAttempts {
		var doc rangeDoc
		err := s.ranges.FindOneAndUpdate(ctx, filter, update, returnAfter).Decode(&doc)
		if err == nil {
			if doc.Next < size {
				return store.Range{}, fmt.Errorf("%w: key %q has next %d after adding %d", ErrCorrupt, key, doc.Next, size)
			}
			return store.Range{Start: doc.Next - size, End: doc.Next}, nil
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return store.Range{}, err
		}
		found, err := s.readRange(ctx, key, &doc)
		switch {
		case err != nil:
			return store.Range{}, err
		case found && doc.Sealed:
			return store.Range{}, store.ErrSealed
		case found && !storekit.Fits(doc.Next, size):
			return store.Range{}, storekit.ExhaustedAfter(doc.Next, size)
		case found:
			continue // changed since the update: try it again
		case !storekit.Fits(initialOffset, size):
			return store.Range{}, storekit.ExhaustedAfter(initialOffset, size)
		}
		_, err = s.ranges.InsertOne(ctx, rangeDoc{Key: key, Next: initialOffset + size})
		if err == nil {
			return store.Range{Start: initialOffset, End: initialOffset + size}, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return store.Range{}, err
		}
	}
	return store.Range{}, fmt.Errorf("the key changed under %d attempts", maxAttempts)
}

// readRange reads key's document into doc and reports whether it exists.
func (s *Store) readRange(ctx context.Context, key string, doc *rangeDoc) (bool, error) {
	err := s.ranges.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(doc)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("%w: %s %q: %w", ErrCorrupt, RangeCollection, key, err)
	case doc.Next < 0:
		return false, fmt.Errorf("%w: %s %q has next %d", ErrCorrupt, RangeCollection, key, doc.Next)
	}
	return true, nil
}

var _ store.GiveBacker = (*Store)(nil)

// GiveBack implements store.GiveBacker: one updateOne that sets next to tail.Start,
// filtered on the key, on next being tail.End and on the key not being sealed; the
// documents it modified are the answer.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("%s: give back: %w", s.name, err)
	}
	filter := bson.D{{Key: "_id", Value: key}, {Key: "next", Value: tail.End},
		{Key: "sealed", Value: bson.D{{Key: "$ne", Value: true}}}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "next", Value: tail.Start}}}}
	lowered, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (bool, error) {
		res, err := s.ranges.UpdateOne(ctx, filter, update)
		if err != nil {
			return false, err
		}
		return res.ModifiedCount == 1, nil
	})
	if err != nil {
		return false, s.failed(fmt.Sprintf("give back %q", key), err)
	}
	return lowered, nil
}

// Seal implements store.RangeStore: one update that sets sealed, and inserts the
// key sealed at 0 when it is absent.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: seal: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "sealed", Value: true}}},
		{Key: "$setOnInsert", Value: bson.D{{Key: "next", Value: int64(0)}}}}
	for range 2 { // concurrent upserts of one new key: one inserts, the other updates on a second try
		if err != nil {
			break
		}
		_, err = s.ranges.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, update, options.UpdateOne().SetUpsert(true))
		if err == nil {
			return nil
		}
		if mongo.IsDuplicateKeyError(err) {
			err = nil
		}
	}
	if err == nil {
		err = errors.New("the key was inserted under both attempts")
	}
	return s.failed(fmt.Sprintf("seal %q", key), err)
}
