package cosid_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
)

// FuzzParseConfig checks that no text makes ParseConfig or Validate panic, and that
// every error they give is a configuration error.
func FuzzParseConfig(f *testing.F) {
	f.Add(memConfig)
	f.Add("cosid:\n  stores: {db: {type: sql, driver: sqlite, dsn: x.db, timeout: 1s}}\n  generators:\n    o: {strategy: segment, store: db, reserve-timeout: 500ms}\n")
	f.Add("cosid:\n  generators:\n    ev: {strategy: snowflake, machine-id: from-hostname, epoch: 2020-01-01}\n")
	f.Add("cosid:\n  serve: {store: nope}\n")
	f.Fuzz(func(t *testing.T, text string) {
		t.Chdir(t.TempDir())
		cfg, err := cosid.ParseConfig([]byte(text))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil && !errors.Is(err, cosid.ErrConfig) {
			t.Errorf("ParseConfig/Validate(%q): %v, not an ErrConfig", text, err)
		}
		if entries, _ := os.ReadDir("."); len(entries) != 0 {
			t.Errorf("checking %q made files: %v", text, entries)
		}
	})
}

// FuzzMachineIDFromHostname checks the ordinal of any host name: no panic, and an
// ordinal accepted is the decimal after the last "-".
func FuzzMachineIDFromHostname(f *testing.F) {
	for _, host := range []string{"web-3", "web", "web-", "a-b-1023", "web-+1", "web--1", "-7", "web-01", "web-99999999999999999999"} {
		f.Add(host)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if strings.IndexByte(host, 0) >= 0 {
			t.Skip("no environment variable holds a NUL")
		}
		t.Setenv("HOSTNAME", host)
		cfg := cosid.Config{Generators: map[string]cosid.GeneratorConfig{"ev": {
			Strategy: "snowflake", MachineID: ptr(cosid.MachineIDFromHostname),
		}}}
		err := cfg.Validate()
		if host == "" {
			return // the system's host name
		}
		suffix := host[strings.LastIndexByte(host, '-')+1:]
		n, perr := strconv.Atoi(suffix)
		valid := strings.Contains(host, "-") && perr == nil && n >= 0 && n < 1024 && suffix[0] != '+'
		if valid != (err == nil) {
			t.Errorf("host %q: Validate = %v; want ok=%v", host, err, valid)
		}
	})
}

// FuzzConfig_Decode checks that decoding any text of any kind of generator neither
// panics nor accepts a text that its codec would not make.
func FuzzConfig_Decode(f *testing.F) {
	cfg, err := cosid.ParseConfig([]byte(memConfig))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][2]string{{"order", "42"}, {"code", "C-0000G8"}, {"bill", "20261027-000042"}, {"event", "20261027013015123-3-42"}, {"fixed", "918254194220072962"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, name, text string) {
		d, err := cfg.Decode(name, text)
		if err != nil {
			return
		}
		var again string
		if d.Period != "" {
			gc, _ := cfg.GroupedCodec(name)
			again, err = gc.Encode(segment.GroupedID{Period: d.Period, Value: d.Value})
		} else {
			c, _ := cfg.Codec(name)
			again, err = c.Encode(d.Value)
		}
		if err != nil || again != text {
			t.Errorf("Decode(%s, %q) = %+v, which encodes to %q, %v", name, text, d, again, err)
		}
	})
}

func ptr[T any](v T) *T { return &v }
