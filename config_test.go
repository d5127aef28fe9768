package cosid_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// openYAML parses and opens a configuration.
func openYAML(t *testing.T, text string) (*cosid.Runtime, error) {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		return nil, err
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err == nil {
		t.Cleanup(func() { rt.Close() })
	}
	return rt, err
}

const memStore = "  stores: {mem: {type: memory}}\n"

// TestConfig_BadConfigsNameThePath opens bad configurations: each fails with an error
// that names the YAML path of the mistake and what is allowed.
func TestConfig_BadConfigsNameThePath(t *testing.T) {
	gen := func(body string) string { return "cosid:\n" + memStore + "  generators:\n" + body }
	tests := []struct {
		name, yaml, want string
	}{
		{"EmptyFile", "", "cosid: missing"},
		{"NoCosidSection", "other: 1\n", "other: unknown key; want one of: cosid"},
		{"CosidNull", "cosid:\n", "cosid: missing"},
		{"CosidList", "cosid: [a]\n", "cosid: want a mapping"},
		{"UnknownTopKey", "cosid: {namspace: x}\n", "cosid.namspace: unknown key; did you mean namespace? want one of: generators, namespace, serve, stores"},
		{"NamespaceTooLong", "cosid: {namespace: " + strings.Repeat("n", 256) + "}\n", "cosid.namespace: "},
		{"NotYAML", "cosid: {a: [}\n", "yaml"},
		{"StoreWithoutType", "cosid: {stores: {db: {dsn: x}}}\n", "cosid.stores.db.type: missing; want one of:"},
		{"StoreUnknownType", "cosid: {stores: {db: {type: mongo}}}\n", `cosid.stores.db.type: unknown store type "mongo"; this binary has:`},
		{"StoreNotAMapping", "cosid: {stores: {db: memory}}\n", "cosid.stores.db: want a mapping with a type"},
		{"MemoryStoreSettings", "cosid: {stores: {mem: {type: memory, size: 3}}}\n", "cosid.stores.mem.size: unknown key; cosid.stores.mem takes no settings"},
		{"StoreTypeList", "cosid: {stores: {db: {type: [sql]}}}\n", "cosid.stores.db.type: want a store type"},
		{"GeneratorsList", "cosid:\n" + memStore + "  generators: [order]\n", "cosid.generators: want a mapping"},
		{"MissingStrategy", gen("    order: {store: mem}\n"), "cosid.generators.order.strategy: missing; want one of: segment, periodic-segment, snowflake"},
		{"UnknownStrategy", gen("    order: {strategy: segmnet, store: mem}\n"), `cosid.generators.order.strategy: unknown strategy "segmnet"; did you mean segment? want one of: segment, periodic-segment, snowflake`},
		{"UnknownGeneratorKey", gen("    order: {strategy: segment, store: mem, stpe: 10}\n"), "cosid.generators.order.stpe: unknown key; did you mean step? want one of: codec, epoch,"},
		{"DuplicateGenerator", gen("    order: {strategy: segment, store: mem}\n    order: {strategy: segment, store: mem}\n"), "cosid.generators.order: defined twice"},
		{"MissingStore", gen("    order: {strategy: segment}\n"), "cosid.generators.order.store: missing; want one of the configured stores: mem"},
		{"UnknownStore", gen("    order: {strategy: segment, store: db}\n"), `cosid.generators.order.store: no store "db"; want one of: mem`},
		{"StoreMisspelt", gen("    order: {strategy: segment, store: mme}\n"), `cosid.generators.order.store: no store "mme"; did you mean mem? want one of: mem`},
		{"StepZero", gen("    order: {strategy: segment, store: mem, step: 0}\n"), "cosid.generators.order.step: step is 0, want ≥ 1"},
		{"StepNotANumber", gen("    order: {strategy: segment, store: mem, step: ten}\n"), `cosid.generators.order.step: "ten" is not an integer`},
		{"InitialOffsetNegative", gen("    order: {strategy: segment, store: mem, initial-offset: -1}\n"), "cosid.generators.order.initial-offset: initial-offset is -1, want ≥ 0"},
		{"LookaheadWithoutUnit", gen("    order: {strategy: segment, store: mem, lookahead: 1}\n"), `cosid.generators.order.lookahead: "1" is not a duration; write one like "500ms", "2s", "48h"`},
		{"LookaheadNegative", gen("    order: {strategy: segment, store: mem, lookahead: -1s}\n"), "cosid.generators.order.lookahead: lookahead is -1s, want ≥ 0"},
		{"MaxBatchBelowStep", gen("    order: {strategy: segment, store: mem, step: 100, max-batch: 10}\n"), "cosid.generators.order.max-batch: max-batch is 10, want 0 (the default) or ≥ Step (100)"},
		{"ReserveTimeoutZero", gen("    order: {strategy: segment, store: mem, reserve-timeout: 0s}\n"), "cosid.generators.order.reserve-timeout: reserve-timeout is 0s, want > 0"},
		{"RangeTTLNegative", gen("    order: {strategy: segment, store: mem, range-ttl: -5s}\n"), "cosid.generators.order.range-ttl: range-ttl is -5s"},
		{"DaysAreNotADuration", gen("    order: {strategy: segment, store: mem, range-ttl: 1d}\n"), `cosid.generators.order.range-ttl: "1d" is not a duration`},
		{"PeriodOnSegment", gen("    order: {strategy: segment, store: mem, period: YEAR}\n"), "cosid.generators.order.period: not a setting of strategy segment; it takes: store, step,"},
		{"PeriodMissing", gen("    bill: {strategy: periodic-segment, store: mem, zone: UTC}\n"), "cosid.generators.bill.period: missing; want YEAR, YEAR_MONTH or YEAR_MONTH_DAY"},
		{"PeriodUnknown", gen("    bill: {strategy: periodic-segment, store: mem, zone: UTC, period: DAY}\n"), `cosid.generators.bill.period: "DAY" is not a period; want one of: YEAR, YEAR_MONTH, YEAR_MONTH_DAY`},
		{"ZoneMissing", gen("    bill: {strategy: periodic-segment, store: mem, period: YEAR}\n"), "cosid.generators.bill.zone: missing; the zone is explicit"},
		{"ZoneLocal", gen("    bill: {strategy: periodic-segment, store: mem, period: YEAR, zone: Local}\n"), `cosid.generators.bill.zone: "Local" depends on the host's settings; want an IANA name`},
		{"FriendlyZoneLocal", gen("    ev:\n      strategy: snowflake\n      machine-id: 1\n      codec: [{friendly: {zone: Local}}]\n"), `cosid.generators.ev.codec[0].friendly.zone: "Local" depends on the host's settings`},
		{"FriendlyZoneThatChangesItsOffset", gen("    ev:\n      strategy: snowflake\n      machine-id: 1\n      codec: [{friendly: {zone: Europe/Berlin}}]\n"), `cosid.generators.ev.codec[0].friendly.zone: Europe/Berlin changes its offset on`},
		{"PeriodLowercase", gen("    bill: {strategy: periodic-segment, store: mem, period: year_month, zone: UTC}\n"), `cosid.generators.bill.period: "year_month" is not a period; did you mean YEAR_MONTH? want one of: YEAR, YEAR_MONTH, YEAR_MONTH_DAY`},
		{"ZoneUnknown", gen("    bill: {strategy: periodic-segment, store: mem, period: YEAR, zone: Asia/Shanghia}\n"), `cosid.generators.bill.zone: "Asia/Shanghia" is not a known time zone`},
		{"PrewarmNegative", gen("    bill: {strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, prewarm: -1m}\n"), "cosid.generators.bill.prewarm: prewarm is -1m0s, want ≥ 0"},
		{"CodecTwoKinds", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{radix: {radix: 62}, prefix: {value: A}}]\n"), "cosid.generators.order.codec[0]: want exactly one item"},
		{"CodecUnknownKind", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{radx: {radix: 62}}]\n"), "cosid.generators.order.codec[0].radx: unknown key; did you mean radix? want one of: date-prefix, friendly, period, prefix, radix, suffix, to-string"},
		{"CodecRadixTooBig", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{radix: {radix: 63}}]\n"), "cosid.generators.order.codec[0].radix.radix: 63 is not in 2–62"},
		{"CodecWidthNotANumber", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{radix: {radix: 10, width: six}}]\n"), `cosid.generators.order.codec[0].radix.width: "six" is not an integer`},
		{"CodecDatePrefixOnSegment", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{date-prefix: {delimiter: '-'}}]\n"), "cosid.generators.order.codec[0].date-prefix"},
		{"CodecDatePrefixNotFirst", gen("    bill:\n      strategy: periodic-segment\n      store: mem\n      period: YEAR\n      zone: UTC\n      codec: [{prefix: {value: B}}, {date-prefix: {}}]\n"), "cosid.generators.bill.codec[1].date-prefix"},
		{"CodecPatternWrongPeriod", gen("    bill:\n      strategy: periodic-segment\n      store: mem\n      period: YEAR_MONTH\n      zone: UTC\n      codec: [{date-prefix: {pattern: yyyyMMdd}}]\n"), "cosid.generators.bill.codec[0].date-prefix.pattern"},
		{"FriendlyOnSegment", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{friendly: {}}]\n"), "cosid.generators.order.codec[0].friendly: only a snowflake generator's ids have a friendly form"},
		{"UUIDv7OnSegment", gen("    order:\n      strategy: segment\n      store: mem\n      codec: [{uuidv7: {}}]\n"), "cosid.generators.order.codec[0].uuidv7: only a snowflake generator's ids have a UUIDv7 form"},
		{"UUIDv7OnSeconds", gen("    ev: {strategy: snowflake, machine-id: 1, layout: javascript, codec: [{uuidv7: {}}]}\n"), "cosid.generators.ev.codec[0].uuidv7: a UUIDv7 holds Unix milliseconds, and this generator's unit is 1s; set unit: 1ms"},
		{"UUIDv7On10ms", gen("    ev: {strategy: snowflake, machine-id: 1, unit: 10ms, codec: [{uuidv7: {}}]}\n"), "cosid.generators.ev.codec[0].uuidv7: a UUIDv7 holds Unix milliseconds, and this generator's unit is 10ms"},
		{"UUIDv7AfterAPrefix", gen("    ev: {strategy: snowflake, machine-id: 1, codec: [{prefix: {value: e_}}, {uuidv7: {}}]}\n"), "cosid.generators.ev.codec[1].uuidv7: is item 1; a uuidv7 stands alone in its list"},
		{"UUIDv7PastItsTime", gen("    ev: {strategy: snowflake, machine-id: 1, timestamp-bits: 50, machine-bits: 3, sequence-bits: 10, codec: [{uuidv7: {}}]}\n"), "cosid.generators.ev.codec[0].uuidv7: needs a layout whose times end before 10889-08-02"},
		{"UUIDv7TakesNoSettings", gen("    ev: {strategy: snowflake, machine-id: 1, codec: [{uuidv7: {zone: UTC}}]}\n"), "cosid.generators.ev.codec[0].uuidv7.zone: unknown key"},
		{"StepOnSnowflake", gen("    event: {strategy: snowflake, store: mem, step: 10}\n"), "cosid.generators.event.step: not a setting of strategy snowflake"},
		{"SnowflakeLayoutUnknown", gen("    event: {strategy: snowflake, store: mem, layout: twitter}\n"), `cosid.generators.event.layout: unknown layout "twitter"; want default or javascript`},
		{"SnowflakeTooManyBits", gen("    event: {strategy: snowflake, store: mem, sequence-bits: 20}\n"), "cosid.generators.event: layout:"},
		{"SnowflakeEpochBad", gen("    event: {strategy: snowflake, store: mem, epoch: yesterday}\n"), `cosid.generators.event.epoch: "yesterday" is not a date like 2026-01-01`},
		{"SnowflakeLeaseTTLNegative", gen("    event: {strategy: snowflake, store: mem, lease-ttl: -1m}\n"), "cosid.generators.event.lease-ttl: -1m0s; want a duration of at least 1ms"},
		{"SnowflakeToleranceNegative", gen("    event: {strategy: snowflake, store: mem, tolerance: -1s}\n"), "cosid.generators.event.tolerance: -1s; want a duration ≥ 0"},
		{"SnowflakeEpochInTheFuture", gen("    event: {strategy: snowflake, store: mem, epoch: 2999-01-01}\n"), "cosid.generators.event.epoch: 2999-01-01 is in the future"},
		{"SnowflakeMachineIDAndStore", gen("    event: {strategy: snowflake, store: mem, machine-id: 3}\n"), "cosid.generators.event.machine-id: a fixed machine id takes no store"},
		{"SnowflakeMachineIDTooBig", gen("    event: {strategy: snowflake, machine-id: 5000}\n"), "cosid.generators.event.machine-id:"},
		{"SnowflakeWithoutStore", gen("    event: {strategy: snowflake}\n"), "cosid.generators.event.store: missing; want one of the configured stores: mem (or set machine-id)"},
		{"GeneratorKeyTooLong", gen("    " + strings.Repeat("g", 255) + ": {strategy: segment, store: mem}\n"), "cosid.generators." + strings.Repeat("g", 255) + ": the generator's key: key "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := openYAML(t, tc.yaml)
			if err == nil {
				t.Fatalf("opened %q; want an error containing %q (generators %v)", tc.yaml, tc.want, rt.Generators())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n  %v\nwant it to contain:\n  %s", err, tc.want)
			}
		})
	}
}

func TestOpen_ErrorsWrapErrConfig(t *testing.T) {
	_, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"db": {Type: "nope"}}})
	if !errors.Is(err, cosid.ErrConfig) {
		t.Errorf("Open: %v, want an error wrapping ErrConfig", err)
	}
}

// TestConfig_ServeNamesALeaseStore checks the serve section at Load: it names a
// configured store that can serve every operation of the store API.
func TestConfig_ServeNamesALeaseStore(t *testing.T) {
	tests := []struct{ name, serve, want string }{
		{"Ok", "{store: mem}", ""},
		{"NoStore", "{store: db}", `cosid.serve.store: no store "db"; want one of: mem`},
		{"UnknownKey", "{stroe: mem}", "cosid.serve.stroe: unknown key; did you mean store? want one of: allowed-hosts, cosid4x, grpc-addr, h2c, leaf, limits, max-connections, store, tinyid, tokens"},
		{"NotAMapping", "mem", "cosid.serve: want a mapping"},
		{"Cosid4xAndLimits", "{store: mem, cosid4x: true, limits: {max-reserve: 5, max-slots: 1024, max-lease-ttl: 1m}}", ""},
		{"Cosid4xWithoutStore", "{cosid4x: true}", "cosid.serve.cosid4x: the 4.x API serves the store of cosid.serve.store"},
		{"MaxSlotsOver2to22", "{store: mem, limits: {max-slots: 4194305}}", "cosid.serve.limits.max-slots: 4194305, want 1–4194304"},
		{"MaxReserveNegative", "{store: mem, limits: {max-reserve: -1}}", "cosid.serve.limits.max-reserve: -1"},
		{"MaxLeaseTTLNegative", "{store: mem, limits: {max-lease-ttl: -1s}}", "cosid.serve.limits.max-lease-ttl: -1s"},
		{"StreamLimits", "{store: mem, limits: {max-streams: 10, stream-idle: 5s}}", ""},
		{"MaxStreamsNegative", "{store: mem, limits: {max-streams: -1}}", "cosid.serve.limits.max-streams: -1, want ≥ 1"},
		{"MaxStreamsNotANumber", "{store: mem, limits: {max-streams: many}}", "cosid.serve.limits.max-streams"},
		{"StreamIdleNegative", "{store: mem, limits: {stream-idle: -1s}}", "cosid.serve.limits.stream-idle: -1s, want 1s or more"},
		{"StreamIdleUnderASecond", "{store: mem, limits: {stream-idle: 30ms}}", "cosid.serve.limits.stream-idle: 30ms, want 1s or more (or leave it out for 30s)"},
		{"StreamIdleASecond", "{store: mem, limits: {stream-idle: 1s, max-streams: 1}}", ""},
		{"MaxStreamsHuge", "{limits: {max-streams: 99999999999999999999}}", "cosid.serve.limits.max-streams"},
		{"StreamIdleNoUnit", "{store: mem, limits: {stream-idle: 30}}", "cosid.serve.limits.stream-idle"},
		{"GRPCAddr", "{store: mem, grpc-addr: \"127.0.0.1:8687\"}", ""},
		{"GRPCAddrAnyHost", "{store: mem, grpc-addr: \":8687\"}", ""},
		{"GRPCAddrNoPort", "{store: mem, grpc-addr: localhost}", `cosid.serve.grpc-addr: "localhost": address localhost: missing port in address; want host:port`},
		{"GRPCAddrBadPort", "{store: mem, grpc-addr: \"127.0.0.1:http2\"}", `cosid.serve.grpc-addr: "127.0.0.1:http2": port "http2" is not a number`},
		{"UnknownLimit", "{store: mem, limits: {max-step: 5}}", "cosid.serve.limits.max-step: unknown key"},
		{"OwnerKey4x", "{store: mem}\n  generators:\n    ev: {strategy: snowflake, store: mem, owner-key: \"cosid4x:host-a\"}",
			`owner-key: "cosid4x:host-a": the prefix "cosid4x:" is reserved`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := cosid.ParseConfig([]byte("cosid:\n" + memStore + "  serve: " + tc.serve + "\n"))
			if err == nil {
				err = cfg.Validate()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want == "" && cfg.Serve.Store != "mem":
				t.Errorf("Serve = %+v, want store mem", cfg.Serve)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate: %v; want an error containing %q", err, tc.want)
			case tc.want != "" && !errors.Is(err, cosid.ErrConfig):
				t.Errorf("Validate: %v; want it to wrap ErrConfig", err)
			}
		})
	}
}

// TestConfig_EpochAsAPlainDate checks that an unquoted date, which YAML reads as a
// timestamp, is an epoch as written.
func TestConfig_EpochAsAPlainDate(t *testing.T) {
	rt := mustOpen(t, "cosid:\n  generators:\n    ev: {strategy: snowflake, machine-id: 1, epoch: 2020-01-01}\n")
	if _, err := rt.Next(t.Context(), "ev"); err != nil {
		t.Errorf("Next: %v", err)
	}
}

// TestReadConfig_ErrorsSayFileLineAndPath checks the one format of every
// configuration error, whichever check finds it (the decoder, a generator's, a
// store type's, the serve section's): FILE:LINE: yaml.path: what is wrong; what is
// allowed, with a "did you mean" for a misspelt value as for a key, and no
// "invalid argument:" inside.
func TestReadConfig_ErrorsSayFileLineAndPath(t *testing.T) {
	head := "cosid:\n  stores:\n    db: {type: memory}\n  generators:\n"
	tests := []struct{ name, yaml, want string }{
		{"UnknownKey", head + "    o:\n      strategy: segment\n      stpe: 10\n", "c.yaml:7: cosid.generators.o.stpe: unknown key; did you mean step? want one of: "},
		{"Strategy", head + "    o:\n      store: db\n      strategy: segmnt\n", `c.yaml:7: cosid.generators.o.strategy: unknown strategy "segmnt"; did you mean segment? want one of: segment, `},
		{"MissingStrategy", head + "    o:\n      store: db\n", "c.yaml:5: cosid.generators.o.strategy: missing; want one of: segment, "},
		{"StoreName", head + "    o:\n      strategy: segment\n      store: dbb\n", `c.yaml:7: cosid.generators.o.store: no store "dbb"; did you mean db? want one of: db`},
		{"Period", head + "    b:\n      strategy: periodic-segment\n      store: db\n      zone: UTC\n      period: YEAR_MONTH_DY\n", `c.yaml:9: cosid.generators.b.period: "YEAR_MONTH_DY" is not a period; did you mean YEAR_MONTH_DAY? want one of: YEAR, YEAR_MONTH, YEAR_MONTH_DAY`},
		{"SettingOfAnotherStrategy", head + "    o:\n      strategy: segment\n      store: db\n      period: YEAR\n", "c.yaml:8: cosid.generators.o.period: not a setting of strategy segment; it takes: "},
		{"MachineID", head + "    e:\n      strategy: snowflake\n      machine-id: one\n", `c.yaml:7: cosid.generators.e.machine-id: "one" is not a machine id; want a number ≥ 0 or from-hostname`},
		{"StoreDuration", "cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: c.db,\n         timeout: 2d}\n", `c.yaml:4: cosid.stores.db.timeout: "2d" is not a duration; write one like "500ms", "2s", "48h"`},
		{"StoreSetting", "cosid:\n  stores:\n    db:\n      type: sql\n      driver: sqlite3x\n      dsn: c.db\n", `c.yaml:5: cosid.stores.db.driver: `},
		{"StoreType", "cosid:\n  stores:\n    db:\n      type: sqll\n", `c.yaml:4: cosid.stores.db.type: unknown store type "sqll"`},
		{"ServeStore", "cosid:\n  stores:\n    db: {type: memory}\n  serve:\n    store: dbb\n", `c.yaml:5: cosid.serve.store: no store "dbb"; did you mean db? want one of: db`},
		{"Namespace", "cosid:\n  namespace: \"\\0\"\n", "c.yaml:2: cosid.namespace: key "},
		{"NotYAML", "cosid:\n\tstores: {}\n", "c.yaml:2: yaml: found character that cannot start any token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Chdir(filepath.Dir(path)) // the file as a user names it: c.yaml
			cfg, err := cosid.ReadConfig("c.yaml")
			if err == nil {
				err = cfg.Validate()
			}
			if !errors.Is(err, cosid.ErrConfig) {
				t.Fatalf("error %v, want one wrapping ErrConfig", err)
			}
			msg := strings.TrimPrefix(err.Error(), "cosid: invalid configuration: ")
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("error:\n  %v\nwant, after its prefix:\n  %s…", err, tc.want)
			}
			if strings.Contains(msg, "invalid argument") {
				t.Errorf("error %q says invalid argument inside", err)
			}
		})
	}
}

// TestRuntime_UnknownGeneratorSaysDidYouMean checks the one wording of an unknown
// generator or store: the name, a "did you mean" for a slip, what is configured.
func TestRuntime_UnknownGeneratorSaysDidYouMean(t *testing.T) {
	rt, err := openYAML(t, "cosid:\n"+memStore+"  generators:\n    bill: {strategy: segment, store: mem}\n    order: {strategy: segment, store: mem}\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.Next(t.Context(), "bil")
	if want := `cosid: unknown generator "bil"; did you mean bill? configured: bill, order`; !errors.Is(err, cosid.ErrUnknownGenerator) || err.Error() != want {
		t.Errorf("Next(bil) = %v, want %q", err, want)
	}
	_, err = rt.Next(t.Context(), "invoice")
	if want := `cosid: unknown generator "invoice"; configured: bill, order`; err == nil || err.Error() != want {
		t.Errorf("Next(invoice) = %v, want %q", err, want)
	}
	_, err = rt.Store(t.Context(), "men")
	if want := `cosid: unknown store "men"; did you mean mem? configured: mem`; !errors.Is(err, cosid.ErrUnknownStore) || err.Error() != want {
		t.Errorf("Store(men) = %v, want %q", err, want)
	}
}
