package memstore

import "context"

// SlotRecords counts the slot rows that the store keeps for namespace, for the
// lease kit (storetest.WithSlotRows).
func (s *Store) SlotRecords(_ context.Context, namespace string) (int, error) {
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	if ns := d.namespaces[namespace]; ns != nil {
		return len(ns.slots), nil
	}
	return 0, nil
}
