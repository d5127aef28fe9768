package codec_test

import (
	"strconv"
	"testing"

	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
)

// benchValue is a Snowflake-sized id: 18 decimal digits, 10 in radix 62.
const benchValue = 302_231_454_903_657_293

var (
	sinkString string
	sinkInt    int64
	sinkID     segment.GroupedID
)

func BenchmarkEncode(b *testing.B) {
	r62 := mustNew(b, codec.Radix(62, 0, false))
	padded := mustNew(b, codec.ToString(19, true))
	bill := mustNewGrouped(b, segment.YearMonthDay, billList...)
	id := segment.GroupedID{Period: "20261027", Value: 42}
	run := func(name string, encode func() (string, error)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s, err := encode()
				if err != nil {
					b.Fatal(err)
				}
				sinkString = s
			}
		})
	}
	run("strconv.FormatInt/10", func() (string, error) { return strconv.FormatInt(benchValue, 10), nil })
	run("strconv.FormatInt/36", func() (string, error) { return strconv.FormatInt(benchValue, 36), nil })
	run("radix62", func() (string, error) { return r62.Encode(benchValue) })
	run("padded10", func() (string, error) { return padded.Encode(benchValue) })
	run("bill", func() (string, error) { return bill.Encode(id) })
}

func BenchmarkDecode(b *testing.B) {
	r62 := mustNew(b, codec.Radix(62, 0, false))
	padded := mustNew(b, codec.ToString(19, true))
	bill := mustNewGrouped(b, segment.YearMonthDay, billList...)
	text62, _ := r62.Encode(benchValue)
	text10, _ := padded.Encode(benchValue)
	run := func(name string, decode func() (int64, error)) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v, err := decode()
				if err != nil {
					b.Fatal(err)
				}
				sinkInt = v
			}
		})
	}
	dec10 := strconv.FormatInt(benchValue, 10)
	dec36 := strconv.FormatInt(benchValue, 36)
	run("strconv.ParseInt/10", func() (int64, error) { return strconv.ParseInt(dec10, 10, 64) })
	run("strconv.ParseInt/36", func() (int64, error) { return strconv.ParseInt(dec36, 36, 64) })
	run("radix62", func() (int64, error) { return r62.Decode(text62) })
	run("padded10", func() (int64, error) { return padded.Decode(text10) })
	b.Run("bill", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			id, err := bill.Decode("20261027-000042")
			if err != nil {
				b.Fatal(err)
			}
			sinkID = id
		}
	})
}

// BenchmarkUUIDv7 times the uuidv7 item's Encode and Decode of a Snowflake id
// beside strconv's decimal of it, the baseline.
func BenchmarkUUIDv7(b *testing.B) {
	c := mustNew(b, codec.UUIDv7(snowflake.DefaultLayout()))
	b.Run("strconv.FormatInt/10", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkString = strconv.FormatInt(benchValue, 10)
		}
	})
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := c.Encode(benchValue)
			if err != nil {
				b.Fatal(err)
			}
			sinkString = s
		}
	})
	text, _ := c.Encode(benchValue)
	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := c.Decode(text)
			if err != nil {
				b.Fatal(err)
			}
			sinkInt = v
		}
	})
}
