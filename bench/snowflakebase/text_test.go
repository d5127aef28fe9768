package snowflakebase_test

import (
	"strconv"
	"testing"

	"github.com/google/uuid"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/snowflake"
)

var sinkText string

// BenchmarkText compares the text forms of a Snowflake id, all in one run, on the
// layout whose ceiling does not bind (wide): the int path (Next alone, the
// baseline), its decimal (strconv), its UUIDv7 (the uuidv7 codec item), and
// google/uuid's random UUIDv7 as text, uuid.NewV7().String().
func BenchmarkText(b *testing.B) {
	g := benchFixed(b, wide())
	uuidv7, err := codec.New(codec.UUIDv7(wide()))
	if err != nil {
		b.Fatal(err)
	}
	next := nextOf(b, g)
	b.Run("int", func(b *testing.B) { runNext(b, next) })
	run := func(name string, text func() string) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkText = text()
			}
			reportRate(b)
		})
	}
	run("decimal", func() string { return strconv.FormatInt(next(), 10) })
	run("uuidv7", func() string {
		text, err := uuidv7.Encode(next())
		if err != nil {
			b.Fatal(err)
		}
		return text
	})
	run("google-uuid.NewV7.String", func() string {
		u, err := uuid.NewV7()
		if err != nil {
			b.Fatal(err)
		}
		return u.String()
	})
}

// BenchmarkUUIDv7_Decode compares decoding a UUIDv7 of ours to its id with
// google/uuid's uuid.Parse of the same text, the baseline.
func BenchmarkUUIDv7_Decode(b *testing.B) {
	c, err := codec.New(codec.UUIDv7(snowflake.DefaultLayout()))
	if err != nil {
		b.Fatal(err)
	}
	const text = "01a17afa-bcd3-7000-8000-00000000702a"
	b.Run("google-uuid.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := uuid.Parse(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uuidv7.Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := c.Decode(text)
			if err != nil {
				b.Fatal(err)
			}
			sink = v
		}
	})
}
