package cosid_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

func TestConfigOpenStore_OpensTheNamedStore(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n" + memStore))
	if err != nil {
		t.Fatal(err)
	}
	st, err := cfg.OpenStore(t.Context(), "mem", cosid.WithLogger(nil))
	if err != nil {
		t.Fatalf("OpenStore(mem): %v", err)
	}
	defer st.Close()
	if _, ok := st.(store.Admin); !ok {
		t.Errorf("OpenStore(mem) = %T; want the memory store, which has admin operations", st)
	}
	r, err := st.Reserve(t.Context(), "app/order", 10, 1)
	if err != nil || r.Start != 1 {
		t.Errorf("Reserve on the opened store = %+v, %v; want a first range from 1", r, err)
	}
}

func TestConfigOpenStore_RefusesWhatOpenWouldRefuse(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, store string
		is                error
		mention           string
	}{
		{"UnknownName", "cosid:\n" + memStore, "db", cosid.ErrUnknownStore, `"db"; configured: mem`},
		{"BadSettings", "cosid: {stores: {mem: {type: memory, size: 3}}}\n", "mem", cosid.ErrConfig, "cosid.stores.mem.size: unknown key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := cosid.ParseConfig([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			for op, err := range map[string]error{
				"CheckStore": func() error { _, err := cfg.CheckStore(tt.store); return err }(),
				"OpenStore":  func() error { _, err := cfg.OpenStore(t.Context(), tt.store); return err }(),
			} {
				if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.mention) {
					t.Errorf("%s(%s) = %v; want %v naming %q", op, tt.store, err, tt.is, tt.mention)
				}
			}
		})
	}
}

func TestConfigCheckStore_GivesTheTypesFacts(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n" + memStore))
	if err != nil {
		t.Fatal(err)
	}
	facts, err := cfg.CheckStore("mem")
	if err != nil || facts.Timeout != 0 || !facts.Leases {
		t.Errorf("CheckStore(mem) = %+v, %v; want the memory store's facts: no timeout, leases slots", facts, err)
	}
}
