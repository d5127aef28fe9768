package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
)

const memConfig = `
cosid:
  namespace: app
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem, step: 10, lookahead: 0s }
    code:
      strategy: segment
      store: mem
      initial-offset: 1000
      codec:
        - prefix: { value: "C-" }
        - radix: { radix: 62, width: 6, pad-start: true }
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: Asia/Shanghai
      codec:
        - date-prefix: { delimiter: "-" }
        - radix: { radix: 10, width: 6, pad-start: true }
    event:
      strategy: snowflake
      store: mem
      slots: 4
      owner-key: test-host
      codec:
        - friendly: { zone: UTC }
    fixed: { strategy: snowflake, machine-id: 3 }
`

func mustOpen(t *testing.T, text string) *cosid.Runtime {
	t.Helper()
	rt, err := openYAML(t, text)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return rt
}

func TestRuntime_NextGivesEachGeneratorsText(t *testing.T) {
	rt := mustOpen(t, memConfig)
	today := time.Now().In(mustZone(t, "Asia/Shanghai")).Format("20060102")
	tests := []struct {
		name string
		want *regexp.Regexp
	}{
		{"order", regexp.MustCompile(`^1$`)},
		{"code", regexp.MustCompile(`^C-0000G8$`)}, // 1000 in radix 62
		{"bill", regexp.MustCompile(`^(` + today + `|\d{8})-000001$`)},
		{"event", regexp.MustCompile(`^\d{17}-[0-3]-\d+$`)},
		{"fixed", regexp.MustCompile(`^\d+$`)},
	}
	for _, tc := range tests {
		text, err := rt.Next(t.Context(), tc.name)
		if err != nil || !tc.want.MatchString(text) {
			t.Errorf("Next(%q) = %q, %v; want %v", tc.name, text, err, tc.want)
		}
	}
	if _, err := rt.Next(t.Context(), "nope"); !errors.Is(err, cosid.ErrUnknownGenerator) || !strings.Contains(err.Error(), "configured: bill, code, event, fixed, order") {
		t.Errorf("Next(nope) = %v; want ErrUnknownGenerator listing the generators", err)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	return loc
}

func TestRuntime_TypedPartsAndCodecs(t *testing.T) {
	rt := mustOpen(t, memConfig)
	seg, err := rt.Segment(t.Context(), "order")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := seg.Next()
	c, err := rt.Codec("order")
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := c.Encode(id); text != "1" {
		t.Errorf("order's text of %d = %q", id, text)
	}
	per, err := rt.Periodic(t.Context(), "bill")
	if err != nil {
		t.Fatal(err)
	}
	gid, _ := per.Next()
	gc, err := rt.GroupedCodec("bill")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := gc.Encode(gid)
	if back, err := gc.Decode(text); err != nil || back != gid {
		t.Errorf("bill: %v → %q → %v, %v", gid, text, back, err)
	}
	snow, err := rt.Snowflake(t.Context(), "event")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snow.Next(); err != nil {
		t.Errorf("event: %v", err)
	}
	for _, f := range []func() error{
		func() error { _, err := rt.Segment(t.Context(), "bill"); return err },
		func() error { _, err := rt.Periodic(t.Context(), "order"); return err },
		func() error { _, err := rt.Snowflake(t.Context(), "order"); return err },
		func() error { _, err := rt.Codec("bill"); return err },
		func() error { _, err := rt.GroupedCodec("event"); return err },
	} {
		if err := f(); !errors.Is(err, cosid.ErrUnknownGenerator) {
			t.Errorf("wrong kind: %v, want ErrUnknownGenerator", err)
		}
	}
	infos := rt.Generators()
	if len(infos) != 5 || infos[0] != (cosid.GeneratorInfo{Name: "bill", Strategy: "periodic-segment", Key: "app/bill", Store: "mem", Stride: 1}) {
		t.Errorf("Generators() = %+v", infos)
	}
}

type order struct {
	ID     int64  `cosid:"order"`
	Code   string `cosid:"code"`
	BillNo string `cosid:"bill"`
	Event  int64  `cosid:"event"`
	Note   string
}

func TestRuntime_FillSetsTaggedZeroFields(t *testing.T) {
	rt := mustOpen(t, memConfig)
	var o order
	if err := rt.Fill(t.Context(), &o); err != nil {
		t.Fatalf("Fill: %v", err)
	}
	if o.ID != 1 || o.Code != "C-0000G8" || !regexp.MustCompile(`^\d{8}-000001$`).MatchString(o.BillNo) || o.Event <= 0 || o.Note != "" {
		t.Errorf("Fill = %+v", o)
	}
	kept := order{ID: 99, Code: "mine"}
	if err := rt.Fill(t.Context(), &kept); err != nil || kept.ID != 99 || kept.Code != "mine" || kept.BillNo == "" {
		t.Errorf("Fill over set fields = %+v, %v; want them kept", kept, err)
	}
}

func TestRuntime_FillRefusesWrongFieldsBeforeTakingIds(t *testing.T) {
	rt := mustOpen(t, memConfig)
	tests := []struct {
		name string
		ptr  any
		want string
	}{
		{"NotAPointer", order{}, "Fill needs a non-nil pointer to a struct"},
		{"NilPointer", (*order)(nil), "non-nil pointer"},
		{"WrongType", &struct {
			ID  int64 `cosid:"order"`
			Bad int32 `cosid:"order"`
		}{}, "field Bad has type int32; want int64 or string"},
		{"PeriodicIntoInt64", &struct {
			ID   int64 `cosid:"order"`
			Bill int64 `cosid:"bill"`
		}{}, `field Bill is an int64, but "bill" is a periodic-segment generator`},
		{"UnknownGenerator", &struct {
			ID int64 `cosid:"order"`
			X  int64 `cosid:"nope"`
		}{}, `field X: cosid: unknown generator "nope"`},
		{"Unexported", &struct {
			ID int64 `cosid:"order"`
			x  int64 `cosid:"order"`
		}{}, "field x is not exported"},
	}
	for _, tc := range tests {
		if err := rt.Fill(t.Context(), tc.ptr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Fill = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if text, _ := rt.Next(t.Context(), "order"); text != "1" {
		t.Errorf("the next order id is %s: a refused Fill took ids", text)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := rt.Fill(ctx, &order{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Fill with a canceled context: %v", err)
	}
}

func TestRuntime_CloseClosesGenerators(t *testing.T) {
	rt, err := openYAML(t, memConfig)
	if err != nil {
		t.Fatal(err)
	}
	seg, _ := rt.Segment(t.Context(), "order")
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := seg.Next(); !errors.Is(err, segment.ErrClosed) {
		t.Errorf("Next after Close: %v, want segment.ErrClosed", err)
	}
}

func TestOpen_ProgrammaticConfig(t *testing.T) {
	step := int64(5)
	cfg := cosid.Config{
		Stores:     map[string]cosid.StoreConfig{"m": {Type: "memory"}},
		Generators: map[string]cosid.GeneratorConfig{"n": {Strategy: "segment", Store: "m", Step: &step}},
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if infos := rt.Generators(); len(infos) != 1 || infos[0].Key != "cosid/n" {
		t.Errorf("Generators() = %+v; want n under the default namespace", infos)
	}
	cfg.Stores["m"] = cosid.StoreConfig{Type: "memory", Settings: map[string]any{"x": 1}}
	if _, err := cosid.Open(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "cosid.stores.m.x: unknown key") {
		t.Errorf("Settings with an unknown key: %v", err)
	}
}

// TestLoad_MissingFileIsAnError checks that a path that names no file is an error,
// not the default: a typo must not hand out ids from a new ./cosid.db.
func TestLoad_MissingFileIsAnError(t *testing.T) {
	t.Chdir(t.TempDir())
	rt, err := cosid.Load(t.Context(), "cosid.yml", cosid.WithLogger(nil))
	if err == nil {
		rt.Close()
		t.Fatal("Load of a missing file succeeded")
	}
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "cosid.yml") {
		t.Errorf("Load: %v; want fs.ErrNotExist naming the file", err)
	}
	if _, err := os.Stat("cosid.db"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a missing file made cosid.db: %v", err)
	}
}

func TestConfig_ValidateAndCodecsWithoutOpening(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(memConfig))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	gc, err := cfg.GroupedCodec("bill")
	if err != nil {
		t.Fatal(err)
	}
	if text, err := gc.Encode(segment.GroupedID{Period: "20261027", Value: 42}); err != nil || text != "20261027-000042" {
		t.Errorf("bill's text = %q, %v", text, err)
	}
	if c, err := cfg.Codec("code"); err != nil {
		t.Error(err)
	} else if v, err := c.Decode("C-0000G8"); err != nil || v != 1000 {
		t.Errorf("Decode = %d, %v", v, err)
	}
	if _, err := cfg.Codec("bill"); !errors.Is(err, cosid.ErrUnknownGenerator) {
		t.Errorf("Codec(bill) = %v", err)
	}
	if _, err := cfg.GroupedCodec("nope"); !errors.Is(err, cosid.ErrUnknownGenerator) {
		t.Errorf("GroupedCodec(nope) = %v", err)
	}
}

// TestRuntime_NextIntByName_FindsEachGeneratorFewOrMany looks up every generator by
// name, and one that is not configured, in a configuration of a few generators
// (scanned) and in one of many (a map): each name gets its own sequence.
func TestRuntime_NextIntByName_FindsEachGeneratorFewOrMany(t *testing.T) {
	for _, n := range []int{1, 8, 9, 20} {
		t.Run(strconv.Itoa(n)+" generators", func(t *testing.T) {
			var cfg strings.Builder
			cfg.WriteString("cosid:\n  stores: {mem: {type: memory}}\n  generators:\n")
			for i := range n {
				fmt.Fprintf(&cfg, "    g%d: {strategy: segment, store: mem, initial-offset: %d}\n", i, 1000*i)
			}
			c, err := cosid.ParseConfig([]byte(cfg.String()))
			if err != nil {
				t.Fatal(err)
			}
			rt, err := cosid.Open(t.Context(), c, cosid.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			for i := range n {
				// A name that is not the configuration's string, as a caller's is.
				name := string([]byte("g" + strconv.Itoa(i)))
				if v, err := rt.NextInt(t.Context(), name); err != nil || v != int64(1000*i) {
					t.Errorf("NextInt(%q) = %d, %v; want %d", name, v, err, 1000*i)
				}
			}
			if _, err := rt.NextInt(t.Context(), "g"); !errors.Is(err, cosid.ErrUnknownGenerator) {
				t.Errorf("NextInt(g) = %v; want ErrUnknownGenerator", err)
			}
		})
	}
}
