package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// TestConnectKeyed_ListGeneratorsHasKeyedAndLiveKeys: ListGenerators says, as
// GET /v1/generators does, which generators are keyed and how many keys each has
// open; a plain one has neither.
func TestConnectKeyed_ListGeneratorsHasKeyedAndLiveKeys(t *testing.T) {
	s, _ := newKeyedServer(t)
	ids := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
	ctx := t.Context()
	for _, key := range []string{"acme", "globex"} {
		if _, err := ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "invoice", Key: key})); err != nil {
			t.Fatal(err)
		}
	}
	list, err := ids.ListGenerators(ctx, connect.NewRequest(&cosidv1.ListGeneratorsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	_, _, v1 := do(t, s, "GET", "/v1/generators", "")
	var want struct {
		Generators []struct {
			Name     string
			Keyed    bool
			LiveKeys *int64
		}
	}
	if err := json.Unmarshal([]byte(v1), &want); err != nil {
		t.Fatal(err)
	}
	if len(list.Msg.Generators) != len(want.Generators) {
		t.Fatalf("ListGenerators has %d generators, /v1/generators %d", len(list.Msg.Generators), len(want.Generators))
	}
	sawKeyed := false
	for i, g := range list.Msg.Generators {
		w := want.Generators[i]
		if g.Name != w.Name || g.Keyed != w.Keyed || (g.LiveKeys == nil) != (w.LiveKeys == nil) || g.LiveKeys != nil && *g.LiveKeys != *w.LiveKeys {
			t.Errorf("ListGenerators: %v, want as /v1/generators: %+v", g, w)
		}
		if g.Name == "invoice" {
			sawKeyed = g.Keyed && g.GetLiveKeys() == 2
		}
	}
	if !sawKeyed {
		t.Errorf("ListGenerators = %v, want invoice keyed with 2 live keys", list.Msg.Generators)
	}
}

// TestConnectKeyed_EachKeyIsASequence checks that the Connect API resolves a name and
// a key as /v1 does (Server.lookup): each key of a keyed template is its own sequence
// through Next, NextRange and StreamRanges, and a keyed template without a key, or a
// bad key, is refused with InvalidArgument saying what to send.
func TestConnectKeyed_EachKeyIsASequence(t *testing.T) {
	s, _ := newKeyedServer(t)
	ids := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
	ctx := t.Context()
	for _, tt := range []struct {
		key  string
		want []string
	}{
		{"acme", []string{"INV-1", "INV-2"}},
		{"globex", []string{"INV-1", "INV-2"}},
		{"acme", []string{"INV-3", "INV-4"}},
	} {
		res, err := ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "invoice", Key: tt.key, Count: 2}))
		if err != nil || !slices.Equal(res.Msg.Ids, tt.want) {
			t.Fatalf("Next(invoice, %s) = %v, %v; want %q", tt.key, res, err, tt.want)
		}
	}
	rg, err := ids.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "tenant", Key: "acme", Count: 10}))
	if err != nil || rg.Msg.Start != 1 || rg.Msg.End != 11 {
		t.Fatalf("NextRange(tenant, acme) = %v, %v; want [1, 11)", rg, err)
	}
	stream, err := ids.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "tenant", Key: "acme", Size: 5, MaxRanges: 2}))
	if err != nil {
		t.Fatal(err)
	}
	var starts []int64
	for stream.Receive() {
		starts = append(starts, stream.Msg().Start)
	}
	if err := stream.Err(); err != nil || !slices.Equal(starts, []int64{11, 16}) {
		t.Fatalf("StreamRanges(tenant, acme) started at %v, %v; want 11 and 16, after NextRange's range", starts, err)
	}
	for _, tt := range []struct{ name, key, mention string }{
		{"invoice", "", "is keyed, a sequence per key: name one"},
		{"invoice", "a/b", "key:"},
		{"order", "acme", "is not keyed"},
	} {
		_, err := ids.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: tt.name, Key: tt.key}))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || !strings.Contains(ce.Message(), tt.mention) {
			t.Errorf("Next(%s, %q) = %v; want InvalidArgument saying %q", tt.name, tt.key, err, tt.mention)
		}
	}
}
