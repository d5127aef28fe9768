package cosid_test

import (
	"encoding/json"
	"testing"

	"github.com/cosid-go/cosid"
)

// TestDecoded_JSONKeepsBigValuesExact checks that a value that a float64 cannot
// hold is written as a string, and one it can as a number.
func TestDecoded_JSONKeepsBigValuesExact(t *testing.T) {
	tests := []struct {
		d    cosid.Decoded
		want string
	}{
		{cosid.Decoded{Value: 42}, `{"value":42}`},
		{cosid.Decoded{Period: "20261027", Value: 42}, `{"period":"20261027","value":42}`},
		{cosid.Decoded{Value: 1 << 53}, `{"value":9007199254740992}`},
		{cosid.Decoded{Value: 1<<53 + 1}, `{"value":"9007199254740993"}`},
	}
	for _, tc := range tests {
		data, err := json.Marshal(tc.d)
		if err != nil || string(data) != tc.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tc.d, data, err, tc.want)
		}
	}
}

func TestConfig_DecodeRefusesWhatTheCodecCannotMake(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(memConfig))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, text string }{{"order", "042"}, {"bill", "20261032-000001"}, {"event", "x"}, {"fixed", "-1"}} {
		if d, err := cfg.Decode(tc.name, tc.text); err == nil {
			t.Errorf("Decode(%s, %q) = %+v; want an error", tc.name, tc.text, d)
		}
	}
}
