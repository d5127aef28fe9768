package main

import (
	"strings"
	"testing"
	"time"
)

const benchOutput = `goos: linux
goarch: amd64
pkg: github.com/cosid-go/cosid/bench/snowflakebase
BenchmarkText/int-2                     	 1000000	        25.00 ns/op	     40000 ids/ms	       0 B/op	       0 allocs/op
BenchmarkText/google-uuid.NewV7.String-2	 1000000	       300.0 ns/op	      3333 ids/ms	      64 B/op	       2 allocs/op
BenchmarkText/google-uuid.NewV7.String-2	 1000000	       310.0 ns/op	      3225 ids/ms	      64 B/op	       2 allocs/op
BenchmarkText/google-uuid.NewV7.String-2	 1000000	       290.0 ns/op	      3448 ids/ms	      64 B/op	       2 allocs/op
BenchmarkReserve/g=16/impl=bare-2       	    1000	   1000000 ns/op
BenchmarkGRPCNext/cosid-2               	   10000	    100000 ns/op	     9000 calls/s
BenchmarkGRPCNext/bare-2                	   10000	     50000 ns/op	    18000 calls/s
    bench_test.go:12: a log line
PASS
ok  	github.com/cosid-go/cosid/bench/snowflakebase	3.1s
`

func TestParseBench_NamesWithoutProcsAndEveryUnit(t *testing.T) {
	res, err := parseBench(strings.NewReader(benchOutput))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		unit  string
		names []string
		want  float64
	}{
		{"ns/op", []string{"BenchmarkText/int"}, 25},
		{"ids/ms", []string{"BenchmarkText/int"}, 40000},
		{"ns/op", []string{"BenchmarkText/google-uuid.NewV7.String"}, 300}, // the median of 3
		{"ns/op", []string{"BenchmarkText/int", "BenchmarkText/google-uuid.NewV7.String"}, 325},
		{"ns/op", []string{"BenchmarkReserve/g=16/impl=bare"}, 1e6},
		{"allocs/op", []string{"BenchmarkText/google-uuid.NewV7.String"}, 2},
	}
	for _, tc := range tests {
		if got, ok := res.value(tc.unit, tc.names...); !ok || got != tc.want {
			t.Errorf("value(%s, %v) = %v, %v; want %v", tc.unit, tc.names, got, ok, tc.want)
		}
	}
	if _, ok := res.value("ns/op", "BenchmarkText/none"); ok {
		t.Error("value of a benchmark not in the output is ok; want missing")
	}
	if got := res.subs("BenchmarkGRPCNext", "calls/s"); strings.Join(got, ",") != "bare,cosid" {
		t.Errorf("subs(BenchmarkGRPCNext) = %v; want [bare cosid]", got)
	}
}

func TestGRPCRows_EverySubBesideBareAndCosidsGoal(t *testing.T) {
	res, err := parseBench(strings.NewReader(benchOutput))
	if err != nil {
		t.Fatal(err)
	}
	rows := grpcRows(res)
	if len(rows) != 1 || rows[0].ours[0] != "BenchmarkGRPCNext/cosid" || rows[0].base[0] != "BenchmarkGRPCNext/bare" || rows[0].goal != 0.85 {
		t.Fatalf("grpcRows = %+v; want cosid beside bare with the goal 0.85", rows)
	}
	got := table(secServer, []measured{{run: run{section: secServer, pkg: "./server", bench: "x"}, rows: rows, res: res}}, 3, "1s")
	if !strings.Contains(got, "| 9,000 calls/s | 18,000 calls/s (bare grpc-go answering a constant) | 0.50× | ≥ 0.85× **missed** | 1 |") {
		t.Errorf("table:\n%s\nwant cosid's row at 0.50× of bare, its goal missed", got)
	}
}

func TestParseLoad_RateAndQuantiles(t *testing.T) {
	out := `asked 1000000 req/s  sent 14586 req/s  ok 14585 req/s  success 1.0000
  from when sent  [50, 90, 99, 99.9, max]  2.422ms, 10ms, 31.905ms, 40ms, 50ms
  from when due   [50, 90, 99, 99.9, max]  1.5s, 2s, 2.5s, 2.6s, 2.7s
  sent late by    [50, 90, 99, 99.9, max]  1µs, 2µs, 3µs, 4µs, 5µs (the load generator's timers)
`
	l, err := parseLoad(out)
	if err != nil {
		t.Fatal(err)
	}
	want := load{okRate: 14585, sentP50: 2422 * time.Microsecond, sentP99: 31905 * time.Microsecond, dueP50: 1500 * time.Millisecond, dueP99: 2500 * time.Millisecond}
	if l != want {
		t.Errorf("parseLoad = %+v; want %+v", l, want)
	}
	if _, err := parseLoad("rate 10/s: no request succeeded"); err == nil {
		t.Error("parseLoad of a failed run: no error")
	}
}

func TestFormat_UnitsForAReader(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{7.44, "ns/op", "7.4 ns"},
		{1453, "ns/op", "1.5 µs"},
		{28_200_200, "ns/op", "28.20 ms"},
		{123_456_789, "ids/s", "123.5 M ids/s"},
		{146_924_700_000, "ids/s", "146.9 G ids/s"},
		{14585.4, "calls/s", "14,585 calls/s"},
		{4096, "ids/ms", "4,096 ids/ms"},
		{653, "bytes/key", "653 B"},
	} {
		if got := format(tc.v, tc.unit); got != tc.want {
			t.Errorf("format(%v, %s) = %q; want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

func TestStreamRows_ReadRangesBesideStreamRangesOfItsSize(t *testing.T) {
	res, err := parseBench(strings.NewReader(`BenchmarkStreamRanges/size=100000/grpc-2 	 1000	 1000 ns/op	 80000000000 ids/s
BenchmarkStreamRanges/size=100000/grpc-readranges-ahead=64-2 	 1000	 2000 ns/op	 40000000000 ids/s
BenchmarkStreamRanges/size=100000/inprocess-2 	 1000	 400 ns/op	 250000000000 ids/s
`))
	if err != nil {
		t.Fatal(err)
	}
	rows := streamRows(res)
	if len(rows) != 2 || rows[0].base[0] != "BenchmarkStreamRanges/size=100000/inprocess" ||
		rows[1].what != "ReadRanges ids/s, size=100000, 64 ranges ahead" || rows[1].base[0] != "BenchmarkStreamRanges/size=100000/grpc" {
		t.Fatalf("streamRows = %+v; want StreamRanges beside in-process, then ReadRanges beside StreamRanges", rows)
	}
}
