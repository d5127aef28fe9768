package main

import "strings"

// The COSID_TEST_ variables of the stores' benchmarks (internal/testkit/testenv).
const (
	envPostgres     = "COSID_TEST_POSTGRES"
	envMySQL        = "COSID_TEST_MYSQL"
	envRedis        = "COSID_TEST_REDIS"
	envRedisDurable = "COSID_TEST_REDIS_DURABLE"
	envEtcd         = "COSID_TEST_ETCD"
)

// Sections of the page, in its order.
const (
	secHot       = "hot"
	secSnowflake = "snowflake"
	secText      = "text"
	secStores    = "stores"
	secServer    = "server"
)

// fixed returns a rows func of rows that do not depend on the results.
func fixed(rows ...row) func(results) []row {
	return func(results) []row { return rows }
}

// runs are the benchmarks of the page, each a run of its own, whose figures each
// compare with a baseline of the same run.
func runs() []run {
	const rt = "BenchmarkRuntime/"
	const lk = "BenchmarkKeyed_LiveKey/"
	const mk = "BenchmarkKeyed_MemoryPerKey/"
	const sb = "./bench/snowflakebase"
	return []run{
		{section: secHot, pkg: "./segment", bench: "^Benchmark(AtomicAdd|Next|PeriodicNext|TimeNow)$", rows: fixed(
			row{what: "`segment.Generator.Next`", unit: "ns/op", ours: []string{"BenchmarkNext"}, base: []string{"BenchmarkAtomicAdd"}, baseWhat: "atomic add", goal: 1.2},
			row{what: "periodic `Next`", unit: "ns/op", ours: []string{"BenchmarkPeriodicNext"}, base: []string{"BenchmarkTimeNow", "BenchmarkNext"}, baseWhat: "`time.Now` + `segment.Generator.Next`", goal: 1.1},
		)},
		{section: secHot, pkg: ".", bench: "^BenchmarkRuntime$", rows: fixed(
			row{what: "`Source.NextInt`, a held Source", unit: "ns/op", ours: []string{rt + "SourceNextInt"}, base: []string{rt + "SegmentNext"}, baseWhat: "`segment.Generator.Next`", goal: 1.2},
			row{what: "`rt.NextInt(ctx, name)`", unit: "ns/op", ours: []string{rt + "RuntimeNextInt"}, base: []string{rt + "SegmentNext"}, baseWhat: "`segment.Generator.Next`", goal: 2},
			row{what: "`Source.Next`, text", unit: "ns/op", ours: []string{rt + "SourceNext"}, base: []string{rt + "AtomicAddFormat"}, baseWhat: "`strconv` of an atomic add", goal: 1.5},
			row{what: "`rt.Next(ctx, name)`, text", unit: "ns/op", ours: []string{rt + "RuntimeNext"}, base: []string{rt + "AtomicAddFormat"}, baseWhat: "`strconv` of an atomic add", goal: 1.5},
		)},
		{section: secHot, pkg: ".", bench: "^BenchmarkKeyed_LiveKey$/^(baseline|NextInt|Next)$", rows: fixed(
			row{what: "keyed `NextInt` by name, one live key of 100,000", unit: "ns/op", ours: []string{lk + "NextInt/by-name/one-key"}, base: []string{lk + "baseline/MapAtomicAdd"}, baseWhat: "map of 100,000 + atomic add", goal: 2},
			row{what: "keyed `NextInt`, a held Source", unit: "ns/op", ours: []string{lk + "NextInt/held-source"}, base: []string{lk + "baseline/MapAtomicAdd"}, baseWhat: "map of 100,000 + atomic add"},
			row{what: "keyed `NextInt` by name, 100,000 keys in turn", unit: "ns/op", ours: []string{lk + "NextInt/by-name/all-keys"}, base: []string{lk + "baseline/MapAtomicAdd"}, baseWhat: "map of 100,000 + atomic add"},
		)},
		{section: secHot, pkg: ".", bench: "^BenchmarkKeyed_MemoryPerKey$", rows: fixed(
			row{what: "keyed memory per live key, segment", unit: "bytes/key", ours: []string{mk + "Next/tenant"}, base: []string{mk + "baseline/MapAtomicInt64"}, baseWhat: "map entry of an atomic int64"},
			row{what: "keyed memory per live key, periodic segment", unit: "bytes/key", ours: []string{mk + "Next/bill"}, base: []string{mk + "baseline/MapAtomicInt64"}, baseWhat: "map entry of an atomic int64"},
		)},
		{section: secSnowflake, pkg: sb, bench: "^Benchmark(Next_Default|Bwmarrin_Default|Sonyflake)$", rows: fixed(
			row{what: "Snowflake `Next`, 12 sequence bits", unit: "ids/ms", ours: []string{"BenchmarkNext_Default"}, baseConst: 4096, baseWhat: "the layout's ceiling, 4,096 ids/ms", higher: true},
			row{what: "Snowflake `Next`, 12 sequence bits", unit: "ids/ms", ours: []string{"BenchmarkNext_Default"}, base: []string{"BenchmarkBwmarrin_Default"}, baseWhat: "bwmarrin/snowflake, same layout", higher: true},
			row{what: "Snowflake `Next`, 12 sequence bits", unit: "ids/ms", ours: []string{"BenchmarkNext_Default"}, base: []string{"BenchmarkSonyflake"}, baseWhat: "sony/sonyflake (256 ids / 10 ms)", higher: true},
		)},
		{section: secText, pkg: sb, bench: "^BenchmarkText$", rows: fixed(
			row{what: "Snowflake id as decimal text", unit: "ns/op", ours: []string{"BenchmarkText/decimal"}, base: []string{"BenchmarkText/google-uuid.NewV7.String"}, baseWhat: "`uuid.NewV7().String()`"},
			row{what: "Snowflake id as UUIDv7 text", unit: "ns/op", ours: []string{"BenchmarkText/uuidv7"}, base: []string{"BenchmarkText/google-uuid.NewV7.String"}, baseWhat: "`uuid.NewV7().String()`"},
		)},
		sqlRun("postgresql", envPostgres),
		sqlRun("mariadb", envMySQL),
		{section: secStores, pkg: "./store/redisstore", bench: "^BenchmarkReserve$", env: []string{envRedis, envRedisDurable}, rows: fixed(
			row{what: "Redis (appendfsync always) `Reserve`", unit: "ns/op", ours: []string{"BenchmarkReserve/durable/store=Reserve"}, base: []string{"BenchmarkReserve/durable/bare=EVALSHA-empty"}, baseWhat: "EVALSHA of an empty script"},
			row{what: "Redis (volatile) `Reserve`", unit: "ns/op", ours: []string{"BenchmarkReserve/volatile/store=Reserve"}, base: []string{"BenchmarkReserve/volatile/bare=EVALSHA-empty"}, baseWhat: "EVALSHA of an empty script"},
		)},
		{section: secStores, pkg: "./store/etcdstore", bench: "^BenchmarkReserve$", env: []string{envEtcd}, rows: fixed(
			row{what: "etcd `Reserve`, 1 goroutine", unit: "ns/op", ours: []string{"BenchmarkReserve/g=1/impl=store"}, base: []string{"BenchmarkReserve/g=1/impl=bare"}, baseWhat: "one bare transaction of its shape"},
			row{what: "etcd `Reserve`, 16 goroutines", unit: "ns/op", ours: []string{"BenchmarkReserve/g=16/impl=store"}, base: []string{"BenchmarkReserve/g=16/impl=bare"}, baseWhat: "one bare transaction of its shape"},
		)},
		{section: secServer, pkg: "./server", bench: "^BenchmarkGRPCNext$", rows: grpcRows},
		{section: secServer, pkg: "./server", bench: "^BenchmarkStreamRanges$", rows: streamRows},
	}
}

// sqlRun is the run of the SQL store's Reserve on the database db.
func sqlRun(db, env string) run {
	p := "BenchmarkReserve/db=" + db + "/"
	return run{section: secStores, pkg: "./integration/sqldb", bench: "^BenchmarkReserve$/^db=" + db + "$", env: []string{env}, rows: fixed(
		row{what: db + " `Reserve`, 1 goroutine", unit: "ns/op", ours: []string{p + "g=1/impl=store"}, base: []string{p + "g=1/impl=bare"}, baseWhat: "its bare upsert statement"},
		row{what: db + " `Reserve`, 16 goroutines", unit: "ns/op", ours: []string{p + "g=16/impl=store"}, base: []string{p + "g=16/impl=bare"}, baseWhat: "its bare upsert statement"},
	)}
}

// grpcRows sets every sub-benchmark of BenchmarkGRPCNext, whatever its name, beside
// bare (grpc-go answering a constant); cosid's goal is 85% of it.
func grpcRows(r results) []row {
	const p = "BenchmarkGRPCNext/"
	var rows []row
	for _, sub := range r.subs("BenchmarkGRPCNext", "calls/s") {
		if sub == "bare" {
			continue
		}
		rw := row{what: "gRPC `Next` calls/s, " + sub, unit: "calls/s", ours: []string{p + sub}, base: []string{p + "bare"}, baseWhat: "bare grpc-go answering a constant", higher: true}
		if sub == "cosid" {
			rw.goal = 0.85
		}
		rows = append(rows, rw)
	}
	return rows
}

// streamRows sets each size of BenchmarkStreamRanges over gRPC beside the same
// ranges taken in the server's process, and each ReadRanges read-ahead beside
// StreamRanges of its size: what a read-ahead bounded by the client's asks costs.
func streamRows(r results) []row {
	const p = "BenchmarkStreamRanges/"
	var rows []row
	for _, sub := range r.subs("BenchmarkStreamRanges", "ids/s") {
		if size, ok := strings.CutSuffix(sub, "/grpc"); ok {
			rows = append(rows, row{what: "StreamRanges ids/s, " + size, unit: "ids/s", ours: []string{p + sub}, base: []string{p + size + "/inprocess"}, baseWhat: "the same ranges in the server's process", higher: true})
		}
	}
	for _, sub := range r.subs("BenchmarkStreamRanges", "ids/s") {
		if size, ahead, ok := strings.Cut(sub, "/grpc-readranges-ahead="); ok {
			rows = append(rows, row{what: "ReadRanges ids/s, " + size + ", " + ahead + " ranges ahead", unit: "ids/s", ours: []string{p + sub}, base: []string{p + size + "/grpc"}, baseWhat: "StreamRanges of that size", higher: true})
		}
	}
	return rows
}
