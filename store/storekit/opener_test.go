package storekit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// dialed is what a dial of the tests saw.
type dialed struct {
	p        string
	deadline time.Duration // 0: none
	ctx      context.Context
}

// testSettings are the settings of the tests' type.
type testSettings struct {
	Addr     string     `yaml:"addr"`
	CertFile store.File `yaml:"cert-file"`
}

// testType returns the type of Opener on a parse that answers its settings' Addr,
// facts and parseErr, and a dial that records what it saw in got and answers
// dialErr.
func testType(facts store.Facts, parseErr, dialErr error, got *dialed) store.Type {
	return storekit.Opener(
		func(_ store.Spec, s testSettings) (string, store.Facts, error) { return s.Addr, facts, parseErr },
		func(ctx context.Context, _ store.Spec, p string) (store.RangeStore, error) {
			*got = dialed{p: p, ctx: ctx}
			if dl, ok := ctx.Deadline(); ok {
				got.deadline = time.Until(dl)
			}
			if dialErr != nil {
				return nil, dialErr
			}
			return memstore.New(), nil
		})
}

// testSpec is the Spec of an entry whose settings are s.
func testSpec(s testSettings) store.Spec {
	return store.Spec{Name: "ids", Path: "cosid.stores.ids", Dir: "/etc/cosid", Decode: func(v any) error {
		*v.(*testSettings) = s
		return nil
	}}
}

var settings = testSettings{Addr: "10.0.0.1:7000"}

func TestOpener_CheckIsParse(t *testing.T) {
	var got dialed
	facts := store.Facts{Timeout: 3 * time.Second, Leases: true, Checks: []string{"reach: on the first call"}}
	f, err := testType(facts, nil, nil, &got).Check(testSpec(settings))
	if err != nil || f.Timeout != facts.Timeout || !f.Leases || len(f.Checks) != 1 {
		t.Errorf("Check = %+v, %v; want parse's facts %+v", f, err, facts)
	}
	if got.ctx != nil {
		t.Error("Check dialed")
	}
	bad := errors.New("cosid.stores.ids.addr: missing")
	f, err = testType(facts, bad, nil, &got).Check(testSpec(settings))
	if !errors.Is(err, bad) || f.Timeout != 0 || f.Leases || f.Checks != nil {
		t.Errorf("Check of bad settings = %+v, %v; want no facts and parse's error", f, err)
	}
}

// TestOpener_DecodesSettings checks that parse gets the settings as
// Spec.DecodeSettings makes them, and that Check and Open refuse settings that do
// not decode, with an error wrapping store.ErrInvalidArgument, before parse.
func TestOpener_DecodesSettings(t *testing.T) {
	var seen testSettings
	typ := storekit.Opener(
		func(_ store.Spec, s testSettings) (testSettings, store.Facts, error) {
			seen = s
			return s, store.Facts{}, nil
		},
		func(context.Context, store.Spec, testSettings) (store.RangeStore, error) { return memstore.New(), nil })
	if _, err := typ.Check(testSpec(testSettings{Addr: "a:1", CertFile: "tls/cert.pem"})); err != nil {
		t.Fatal(err)
	}
	if seen.Addr != "a:1" || seen.CertFile != "/etc/cosid/tls/cert.pem" {
		t.Errorf("parse got %+v, want the settings with cert-file read from the configuration's directory", seen)
	}
	seen = testSettings{}
	unknown := errors.New("cosid.stores.ids.adr: unknown key")
	spec := store.Spec{Name: "ids", Path: "cosid.stores.ids", Decode: func(any) error { return unknown }}
	if _, err := typ.Check(spec); !errors.Is(err, unknown) || !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Check of settings that do not decode: %v, want the decoder's error wrapping store.ErrInvalidArgument", err)
	}
	if st, err := typ.Open(t.Context(), spec); st != nil || !errors.Is(err, unknown) || !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Open of settings that do not decode = %v, %v; want the decoder's error wrapping store.ErrInvalidArgument", st, err)
	}
	if seen != (testSettings{}) {
		t.Errorf("parse got %+v of settings that do not decode", seen)
	}
}

func TestOpener_OpenDialsWhatParseMade(t *testing.T) {
	var got dialed
	st, err := testType(store.Facts{Timeout: time.Minute}, nil, nil, &got).Open(t.Context(), testSpec(settings))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got.p != settings.Addr {
		t.Errorf("dial got %q, want parse's answer %q", got.p, settings.Addr)
	}
	if got.deadline <= 0 || got.deadline > time.Minute {
		t.Errorf("dial's ctx ends in %v, want within the facts' timeout of 1m", got.deadline)
	}
	if got.ctx.Err() == nil {
		t.Error("dial's ctx goes on after Open returned")
	}
}

func TestOpener_NoTimeoutNoDeadline(t *testing.T) {
	var got dialed
	st, err := testType(store.Facts{Leases: true}, nil, nil, &got).Open(t.Context(), testSpec(settings))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got.deadline != 0 {
		t.Errorf("dial's ctx ends in %v; a type without a timeout gets none", got.deadline)
	}
}

func TestOpener_Errors(t *testing.T) {
	var got dialed
	bad := errors.New("cosid.stores.ids.addr: missing")
	if _, err := testType(store.Facts{}, bad, nil, &got).Open(t.Context(), testSpec(settings)); err != bad {
		t.Errorf("Open of bad settings: %v, want parse's error as it is", err)
	}
	if got.ctx != nil {
		t.Error("Open dialed settings that parse refused")
	}
	refused := errors.New("memo: dialing 10.0.0.1:7000: connection refused")
	_, err := testType(store.Facts{}, nil, refused, &got).Open(t.Context(), testSpec(settings))
	if !errors.Is(err, refused) || !strings.HasPrefix(err.Error(), "cosid.stores.ids: memo: ") {
		t.Errorf("Open that cannot dial: %v, want dial's error after the entry's path", err)
	}
}

func TestOpener_NeedsBothHalves(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Opener without a dial did not panic")
		}
	}()
	storekit.Opener(func(store.Spec, testSettings) (int, store.Facts, error) { return 0, store.Facts{}, nil }, nil)
}
