package cosid_test

import (
	"regexp"
	"slices"
	"testing"
)

// uuidConfig is a Snowflake generator on a fixed machine whose text is a UUIDv7.
const uuidConfig = `
cosid:
  generators:
    ev: { strategy: snowflake, machine-id: 7, codec: [ { uuidv7: {} } ] }
`

// TestRuntime_UUIDv7TextDecodesToTheSnowflakeState checks a Snowflake generator
// with a uuidv7 codec: its texts are canonical UUIDv7s that ascend as they are
// handed out, Decode gives back the id and its time, machine and sequence, and
// NextInt's ids are those the texts stand for.
func TestRuntime_UUIDv7TextDecodesToTheSnowflakeState(t *testing.T) {
	rt := mustOpen(t, uuidConfig)
	canonical := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7000-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	src, err := rt.Source("ev", "")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for range 2000 {
		text, err := src.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !canonical.MatchString(text) {
			t.Fatalf("Next = %q, not a canonical UUIDv7 of ours", text)
		}
		texts = append(texts, text)
	}
	if !slices.IsSorted(texts) || len(slices.Compact(slices.Clone(texts))) != len(texts) {
		t.Errorf("the texts are not strictly ascending in issue order")
	}
	id, err := src.NextInt(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Codec("ev")
	if err != nil {
		t.Fatal(err)
	}
	text, err := c.Encode(id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := rt.Decode("ev", text)
	if err != nil {
		t.Fatal(err)
	}
	if d.Value != id || d.Snowflake == nil || d.Snowflake.Machine != 7 || text <= texts[len(texts)-1] {
		t.Errorf("Decode(%q) = %+v (%+v); want id %d of machine 7, after the texts before it", text, d, d.Snowflake, id)
	}
	if got, err := d.MarshalJSON(); err != nil || !regexp.MustCompile(`^\{"value":"\d+","time":"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","machine":7,"sequence":\d+\}$`).Match(got) {
		t.Errorf("Decoded JSON = %s, %v", got, err)
	}
	if _, err := rt.Decode("ev", "01a17afa-bcd3-7cc3-8000-00000000702a"); err == nil {
		t.Errorf("Decode accepted a random UUIDv7's rand_a")
	}
}
