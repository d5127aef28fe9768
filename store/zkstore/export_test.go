package zkstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/go-zookeeper/zk"
)

// Internals for the external tests: the names of znodes and the parsers of their
// data.
var (
	Escape     = escape
	ParseValue = parseValue
	ParseMeta  = parseMeta
	ParseRow   = parseRow
)

// Ms returns the offset in milliseconds.
func (c *ClockOffset) Ms() int64 { return c.ms.Load() }

// SlotRecords counts the slot znodes that the store keeps for namespace (its
// children but the settings), for the lease kit (storetest.WithSlotRows).
func (s *Store) SlotRecords(_ context.Context, namespace string) (int, error) {
	children, _, err := s.conn.Children(s.nsPath(namespace))
	if errors.Is(err, zk.ErrNoNode) {
		return 0, nil
	}
	n := 0
	for _, name := range children {
		if _, err := strconv.Atoi(name); err == nil {
			n++
		}
	}
	return n, err
}
