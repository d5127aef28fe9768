package segment_test

import (
	"context"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// giveBack is memstore's GiveBack, made of its Admin until memstore has its own.
func giveBack(ctx context.Context, m *memstore.Store, key string, tail store.Range) (bool, error) {
	if gb, ok := any(m).(store.GiveBacker); ok {
		return gb.GiveBack(ctx, key, tail)
	}
	keys, err := m.Keys(ctx, key, "", 1)
	if err != nil {
		return false, err
	}
	if len(keys) == 0 || keys[0].Key != key || keys[0].Next != tail.End || keys[0].Sealed {
		return false, nil
	}
	if err := m.Delete(ctx, key); err != nil {
		return false, err
	}
	_, err = m.RaiseTo(ctx, key, tail.Start)
	return err == nil, err
}
