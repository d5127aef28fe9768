package mongostore_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminKit runs the admin test kit; every store it opens has a client of its
// own, as a second process would. On FerretDB the stores take turns (see turns), so
// the kit's raises during reservations check the rules, not the server's atomicity;
// TestRaiseTo_OneAtomicUpdate checks what a raise asks the server.
func TestAdminKit(t *testing.T) {
	t.Parallel()
	uri := server(t)
	db := testDatabase(t, uri)
	mu := turns(t, uri)
	storetest.RunAdmin(t, func(t *testing.T) store.Admin { return taking{openStore(t, uri, db), mu} })
}

// The admin calls of a taking store hold its lock too.

func (s taking) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	defer s.hold()()
	return s.Store.Keys(ctx, prefix, after, limit)
}

func (s taking) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	defer s.hold()()
	return s.Store.RaiseTo(ctx, key, next)
}

func (s taking) Delete(ctx context.Context, key string) error {
	defer s.hold()()
	return s.Store.Delete(ctx, key)
}

func (s taking) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	defer s.hold()()
	return s.Store.Slots(ctx, namespace)
}

func (s taking) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	defer s.hold()()
	return s.Store.RaiseFloor(ctx, req)
}

func (s taking) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	defer s.hold()()
	return s.Store.LeaseOf(ctx, namespace, ownerKey)
}

// TestKeys_OneBoundedFindPerPage checks how a listing streams: each page is one find
// of the _id range, sorted on _id and limited to the page, whose first batch holds
// the whole page (no getMore), so that a listing of millions of keys holds one page
// at a time and reads no key twice.
func TestKeys_OneBoundedFindPerPage(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	client, w := watch(t, uri, nil)
	st, err := mongostore.New(client.Database(db), mongostore.WithTimeout(testTimeout), mongostore.WithFerretDB(), mongostore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	const keys, page = 400, 150
	docs := []any{bson.D{{Key: "_id", Value: "p."}, {Key: "next", Value: int64(1)}}, bson.D{{Key: "_id", Value: "p0"}, {Key: "next", Value: int64(1)}}}
	for i := range keys {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("p/%04d", i)}, {Key: "next", Value: int64(i)}})
	}
	if _, err := client.Database(db).Collection(mongostore.RangeCollection).InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	w.commands, w.replies = nil, map[string][]bson.Raw{}
	w.mu.Unlock()
	n := 0
	for ki, err := range store.AllKeys(t.Context(), st, "p/", page) {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("p/%04d", n); ki.Key != want || ki.Next != int64(n) {
			t.Fatalf("key %d = %+v, want %s at %d", n, ki, want, n)
		}
		n++
	}
	if n != keys {
		t.Fatalf("listed %d keys, want %d", n, keys)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var finds []bson.Raw
	for _, cmd := range w.commands {
		switch cmd.Index(0).Key() {
		case "find":
			finds = append(finds, cmd)
		case "getMore":
			t.Errorf("a page needed a getMore: %v", cmd)
		}
	}
	if want := keys/page + 1; len(finds) != want {
		t.Fatalf("listing %d keys in pages of %d sent %d finds, want %d", keys, page, len(finds), want)
	}
	for i, f := range finds {
		limit, _ := f.Lookup("limit").AsInt64OK()
		sort, _ := f.Lookup("sort").DocumentOK()
		single, _ := f.Lookup("singleBatch").BooleanOK()
		_, upper := f.Lookup("filter", "_id", "$lt").StringValueOK()
		if limit != page || !single || sort.String() != `{"_id": {"$numberInt":"1"}}` || !upper {
			t.Errorf("find %d = %v; want a single batch limited to %d, a sort on _id and an upper bound of _id", i, f, page)
		}
	}
	for i, r := range w.replies["find"] {
		batch, _ := r.Lookup("cursor", "firstBatch").Array().Values()
		if want := min(page, keys-i*page); len(batch) != want {
			t.Errorf("find %d returned %d documents, want %d", i, len(batch), want)
		}
	}
}

// TestRaiseTo_OneAtomicUpdate checks what a raise asks the server: one
// findAndModify of the key with upsert and $max of next, which MongoDB applies
// atomically, whether the key exists or not. The kit cannot check that atomicity on
// FerretDB (see turns).
func TestRaiseTo_OneAtomicUpdate(t *testing.T) {
	uri := server(t)
	client, w := watch(t, uri, nil)
	st, err := mongostore.New(client.Database(testDatabase(t, uri)), mongostore.WithTimeout(testTimeout), mongostore.WithFerretDB(), mongostore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Keys(t.Context(), "", "", 1); err != nil { // the first call checks the server (buildInfo)
		t.Fatal(err)
	}
	for _, to := range []int64{50, 40, 70} {
		w.mu.Lock()
		w.commands = nil
		w.mu.Unlock()
		if _, err := st.RaiseTo(t.Context(), "k", to); err != nil {
			t.Fatal(err)
		}
		w.mu.Lock()
		cmds := w.commands
		w.mu.Unlock()
		if len(cmds) != 1 || cmds[0].Index(0).Key() != "findAndModify" {
			t.Fatalf("RaiseTo(%d) sent %v, want one findAndModify", to, cmds)
		}
		cmd := cmds[0]
		id, _ := cmd.Lookup("query", "_id").StringValueOK()
		upsert, _ := cmd.Lookup("upsert").BooleanOK()
		max, _ := cmd.Lookup("update", "$max", "next").AsInt64OK()
		update, _ := cmd.Lookup("update").DocumentOK()
		fields, _ := update.Elements()
		if id != "k" || !upsert || max != to || len(fields) != 1 {
			t.Errorf("RaiseTo(%d) sent %v; want an upsert of _id k with only $max of next %d", to, cmd, to)
		}
	}
}

// TestKeys_MaxPageOfLongestKeys checks that a page of store.MaxPage keys of
// store.MaxKeyLen bytes comes whole in the single batch Keys asks for: a page cut
// short would end a listing early.
func TestKeys_MaxPageOfLongestKeys(t *testing.T) {
	t.Parallel()
	uri := server(t)
	db := testDatabase(t, uri)
	st := openStore(t, uri, db)
	docs := make([]any, store.MaxPage+1)
	for i := range docs {
		key := fmt.Sprintf("long/%06d/", i)
		docs[i] = bson.D{{Key: "_id", Value: key + strings.Repeat("k", store.MaxKeyLen-len(key))}, {Key: "next", Value: int64(math.MaxInt64)}}
	}
	if _, err := connect(t, uri).Database(db).Collection(mongostore.RangeCollection).InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	keys, err := st.Keys(t.Context(), "long/", "", store.MaxPage)
	if err != nil || len(keys) != store.MaxPage {
		t.Fatalf("Keys of a full page = %d keys, %v; want %d", len(keys), err, store.MaxPage)
	}
}

// TestAdminCorrupt_Refused checks that the admin calls refuse documents the store
// never writes with ErrCorrupt naming them, and that of the slot rows of fence 0
// only the one RaiseFloor writes (no lease, a next floor) passes.
func TestAdminCorrupt_Refused(t *testing.T) {
	uri := server(t)
	db := testDatabase(t, uri)
	st := openStore(t, uri, db)
	raw := connect(t, uri).Database(db)
	ranges := []any{
		bson.D{{Key: "_id", Value: "bad/text"}, {Key: "next", Value: "12"}},
		bson.D{{Key: "_id", Value: "bad/negative"}, {Key: "next", Value: int64(-4)}},
	}
	if _, err := raw.Collection(mongostore.RangeCollection).InsertMany(t.Context(), ranges); err != nil {
		t.Fatal(err)
	}
	row := func(ns string, extra ...bson.E) []any {
		return []any{
			bson.D{{Key: "_id", Value: ns + "#meta"}, {Key: "ns", Value: ns}, {Key: "limit", Value: 2}, {Key: "toleranceMs", Value: int64(0)}},
			append(bson.D{{Key: "_id", Value: ns + "#1"}, {Key: "ns", Value: ns}, {Key: "slot", Value: 1}, {Key: "fence", Value: int64(0)}}, extra...),
		}
	}
	tests := []struct {
		name, doc string
		call      func() error
	}{
		{"KeysText", `"bad/text"`, func() error { _, err := st.Keys(t.Context(), "bad/t", "", 10); return err }},
		{"KeysNegative", `"bad/negative"`, func() error { _, err := st.Keys(t.Context(), "bad/", "bad/f", 10); return err }},
		{"RaiseText", `"bad/text"`, func() error { _, err := st.RaiseTo(t.Context(), "bad/text", 1); return err }},
		{"SlotsNoFloor", `"nofloor#1"`, func() error { _, err := st.Slots(t.Context(), "nofloor"); return err }},
		{"SlotsOwnerAtFenceZero", `"owned#1"`, func() error { _, err := st.Slots(t.Context(), "owned"); return err }},
		{"LeaseOfLastOwnerAtFenceZero", `"lastowner#1"`, func() error { _, err := st.LeaseOf(t.Context(), "lastowner", "o"); return err }},
		{"RaiseFloorExpiryAtFenceZero", `"expiry#1"`, func() error {
			_, err := st.RaiseFloor(t.Context(), store.FloorRequest{Namespace: "expiry", Slot: 1, FloorMs: 9})
			return err
		}},
	}
	for ns, extra := range map[string][]bson.E{
		"nofloor":   nil,
		"owned":     {{Key: "nextFloorMs", Value: int64(5)}, {Key: "owner", Value: "o"}, {Key: "incarnation", Value: "i"}},
		"lastowner": {{Key: "nextFloorMs", Value: int64(5)}, {Key: "lastOwner", Value: "o"}},
		"expiry":    {{Key: "nextFloorMs", Value: int64(5)}, {Key: "expiresMs", Value: int64(5)}},
		"raised":    {{Key: "nextFloorMs", Value: int64(5)}},
	} {
		if _, err := raw.Collection(mongostore.SlotCollection).InsertMany(t.Context(), row(ns, extra...)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, mongostore.ErrCorrupt) || !strings.Contains(err.Error(), tt.doc) {
				t.Errorf("%v, want ErrCorrupt naming %s", err, tt.doc)
			}
		})
	}
	if info, err := st.Slots(t.Context(), "raised"); err != nil || len(info.Slots) != 1 || info.Slots[0].NextFloor != 5 {
		t.Errorf("Slots of a namespace with a raised row = %+v, %v; want slot 1 with next floor 5", info, err)
	}
}

// TestRaiseFloor_L2_FirstOwnerTakesFenceOne checks that the row RaiseFloor writes
// for a slot never taken has fence 0, so that its first owner takes fence 1 as
// from no row, and the raised floor.
func TestRaiseFloor_L2_FirstOwnerTakesFenceOne(t *testing.T) {
	uri := server(t)
	st := openStore(t, uri, testDatabase(t, uri))
	const floor = 1 << 50
	info, err := st.RaiseFloor(t.Context(), store.FloorRequest{Namespace: "n", Limit: 2, Slot: 1, FloorMs: floor})
	if err != nil || info.Fence != 0 || info.NextFloor != floor {
		t.Fatalf("RaiseFloor = %+v, %v; want fence 0 and next floor %d", info, err, floor)
	}
	l, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: "n", OwnerKey: "o", Limit: 2, TTL: time.Minute, Preferred: 1})
	if err != nil || l.Slot != 1 || l.Fence != 1 || l.Floor != floor {
		t.Errorf("Acquire after RaiseFloor = %+v, %v; want slot 1 at fence 1 with floor %d", l, err, floor)
	}
}
