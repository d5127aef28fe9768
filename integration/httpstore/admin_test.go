package httpstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestAdminContract runs the admin kit with every other store instance behind a
// second server of the same backend, both behind a token. The server's lease-of
// answers no incarnation (C1).
func TestAdminContract(t *testing.T) {
	shared := memstore.New()
	urls := []string{serve(t, shared, server.WithToken("s3cret")), serve(t, shared.Sibling(), server.WithToken("s3cret"))}
	n := 0
	storetest.RunAdmin(t, func(t *testing.T) store.Admin {
		n++
		return newStore(t, urls[n%2], httpstore.WithToken("s3cret"))
	}, storetest.LeaseOfHidesIncarnation())
}

// TestAdmin_BehindTheToken checks that the admin routes refuse a call without the
// server's token, and that a store without admin operations answers unsupported.
func TestAdmin_BehindTheToken(t *testing.T) {
	url := serve(t, memstore.New(), server.WithToken("s3cret"))
	if _, err := newStore(t, url).Keys(t.Context(), "", "", 10); !errors.Is(err, wire.ErrRemote) || !strings.Contains(err.Error(), "401") {
		t.Errorf("Keys without the token = %v, want a 401", err)
	}
	if _, err := newStore(t, url, httpstore.WithToken("wrong")).RaiseTo(t.Context(), "k", 5); err == nil {
		t.Error("RaiseTo with a wrong token succeeded")
	}
	if err := newStore(t, url, httpstore.WithToken("s3cret")).Delete(t.Context(), "k"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Delete through the server = %v, want ErrUnsupported: it is offline only", err)
	}
	plain := serve(t, rangeOnly{memstore.New()}, server.WithToken("s3cret"))
	if _, err := newStore(t, plain, httpstore.WithToken("s3cret")).Keys(t.Context(), "", "", 10); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Keys of a store without admin operations = %v, want ErrUnsupported", err)
	}
}

// rangeOnly hides every method of its store but those of store.RangeStore.
type rangeOnly struct{ store.RangeStore }
