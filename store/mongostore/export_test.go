package mongostore

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Ms returns the offset in milliseconds.
func (c *ClockOffset) Ms() int64 { return c.ms.Load() }

// SlotRecords counts the slot documents that the store keeps for namespace (its
// documents but the settings), for the lease kit (storetest.WithSlotRows).
func (s *Store) SlotRecords(ctx context.Context, namespace string) (int, error) {
	n, err := s.slots.CountDocuments(ctx, bson.D{
		{Key: "_id", Value: bson.D{{Key: "$gte", Value: namespace + "#"}, {Key: "$lt", Value: namespace + "$"}, {Key: "$ne", Value: docID(namespace, metaSuffix)}}},
		{Key: "ns", Value: namespace}})
	return int(n), err
}
