package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fleetFile is a region's configuration with generators gens (YAML lines under
// generators:) on the stores db, a PostgreSQL database at dsn, and mem.
func fleetFile(dsn, gens string) string {
	return "cosid:\n  stores:\n    db: { type: sql, driver: pgx, dsn: \"" + dsn + "\" }\n    mem: { type: memory }\n  generators:\n" + gens
}

// TestConfigCheckFleet_RefusesGeneratorsThatCouldShareAnID checks pairs of
// regions' files: each refusal names the generator, both files and why; each pass
// exits 0.
func TestConfigCheckFleet_RefusesGeneratorsThatCouldShareAnID(t *testing.T) {
	const east, west = "postgres://east/ids", "postgres://west/ids"
	tests := []struct {
		name     string
		a, b     string
		dsnB     string
		want     string // "" passes
		genNamed string
		nsB      string // b's namespace, when not the default
	}{
		{"ResiduesDisjoint", "    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", west, "", "", ""},
		{"SameResidue", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", west, "≡ 1 (mod 2) and ≡ 1 (mod 2) meet (id 1 is in both)", "order", ""},
		{"NoStrideInEither", "    order: { strategy: segment, store: db }\n", "    order: { strategy: segment, store: db }\n", west, "every id of its store (no stride) and every id of its store (no stride) meet", "order", ""},
		{"StridesWhoseClassesMeet", "    order: { strategy: segment, store: db, stride: 4, residue: 1 }\n", "    order: { strategy: segment, store: db, stride: 6, residue: 3 }\n", west, "≡ 1 (mod 4) and ≡ 3 (mod 6) meet (id 9 is in both)", "order", ""},
		{"StridesWhoseClassesDoNotMeet", "    order: { strategy: segment, store: db, stride: 4, residue: 1 }\n", "    order: { strategy: segment, store: db, stride: 6, residue: 0 }\n", west, "", "", ""},
		{"PeriodicResidues", "    bill: { strategy: periodic-segment, store: db, period: YEAR, zone: UTC, stride: 3, residue: 2 }\n", "    bill: { strategy: periodic-segment, store: db, period: YEAR, zone: UTC, stride: 3, residue: 2 }\n", west, "meet", "bill", ""},
		{"KeyedResiduesDisjoint", "    biz: { strategy: segment, store: db, keyed: true, stride: 3, residue: 0 }\n", "    biz: { strategy: segment, store: db, keyed: true, stride: 3, residue: 2 }\n", west, "", "", ""},
		{"SharedStoreOneStride", "    order: { strategy: segment, store: db }\n", "    order: { strategy: segment, store: db }\n", east, "", "", ""},
		{"SharedStoreDifferentResidues", "    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", east, "they share one store (db) with different strides (≡ 0 (mod 2) and ≡ 1 (mod 2)): its values are counted once for both, so no id in both, but", "order", ""},
		{"SharedStoreDifferentStrides", "    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n", "    order: { strategy: segment, store: db, stride: 4, residue: 0 }\n", east, "they share one store (db) with different strides (≡ 0 (mod 2) and ≡ 0 (mod 4)): its values are counted once for both, so v·2 + 0 meets w·4 + 0 (id 4 is in both)", "order", ""},
		{"SharedStoreStrideAndNone", "    order: { strategy: segment, store: db }\n", "    order: { strategy: segment, store: db, stride: 3, residue: 1 }\n", east, "v·1 + 0 meets w·3 + 1 (id 1 is in both)", "order", ""},
		{"MemoryStoresAreTheirOwn", "    order: { strategy: segment, store: mem, stride: 2, residue: 0 }\n", "    order: { strategy: segment, store: mem, stride: 2, residue: 0 }\n", east, "meet", "order", ""},
		{"MachineIDsDisjoint", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 512] }\n", "    ev: { strategy: snowflake, store: db, machine-ids: [512, 1024] }\n", west, "", "", ""},
		{"MachineIDsOverlap", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 512] }\n", "    ev: { strategy: snowflake, store: db, machine-ids: [500, 1024] }\n", west, "their machine ids overlap (machine-ids [0, 512] and machine-ids [500, 1024]: 500–511 in both)", "ev", ""},
		{"LeasedWithoutRanges", "    ev: { strategy: snowflake, store: db }\n", "    ev: { strategy: snowflake, store: db }\n", west, "leased machine ids 0–1023 and leased machine ids 0–1023: 0–1023 in both", "ev", ""},
		{"SharedStoreOneRange", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", east, "", "", ""},
		{"FixedMachineInTheOthersRange", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", "    ev: { strategy: snowflake, machine-id: 7 }\n", west, "machine-ids [0, 8] and machine-id 7: 7–7 in both", "ev", ""},
		{"FromHostnameInBoth", "    ev: { strategy: snowflake, machine-id: from-hostname }\n", "    ev: { strategy: snowflake, machine-id: from-hostname }\n", west, "machine-id from-hostname: any of 0–1023", "ev", ""},
		{"CosidGeneratorRanges", "    tr: { strategy: cosid-generator, store: db, machine-ids: [0, 100] }\n", "    tr: { strategy: cosid-generator, store: db, machine-ids: [50, 200] }\n", west, "50–99 in both", "tr", ""},
		{"LayoutsDiffer", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", "    ev: { strategy: snowflake, store: db, machine-ids: [8, 16], epoch: 2020-01-01 }\n", west, "their bit layouts differ", "ev", ""},
		{"StrategiesDiffer", "    x: { strategy: segment, store: db, stride: 2, residue: 0 }\n", "    x: { strategy: snowflake, store: db }\n", west, "one is a segment generator, the other a snowflake one", "x", ""},
		{"SharedStoreOtherNamespace", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", east, "≡ 1 (mod 2) and ≡ 1 (mod 2) meet", "order", "shop"},
		{"SharedStoreOtherNamespaceNoStride", "    order: { strategy: segment, store: db }\n", "    order: { strategy: segment, store: db }\n", east, "every id of its store (no stride) and every id of its store (no stride) meet", "order", "shop"},
		{"SharedStoreOtherNamespaceResiduesDisjoint", "    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n", east, "", "", "shop"},
		{"SharedStoreOtherNamespaceOneRange", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", "    ev: { strategy: snowflake, store: db, machine-ids: [0, 8] }\n", east, "machine-ids [0, 8] and machine-ids [0, 8]: 0–7 in both", "ev", "shop"},
		{"OnlyInOneFile", "    order: { strategy: segment, store: db }\n", "    other: { strategy: segment, store: db }\n", west, "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "east.yaml"), filepath.Join(dir, "west.yaml")
			textB := fleetFile(tc.dsnB, tc.b)
			if tc.nsB != "" {
				textB = strings.Replace(textB, "cosid:\n", "cosid:\n  namespace: "+tc.nsB+"\n", 1)
			}
			for path, text := range map[string]string{a: fleetFile(east, tc.a), b: textB} {
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := checkFleet(&out, []string{a, b})
			if tc.want == "" {
				if err != nil || !strings.Contains(out.String(), "ok") {
					t.Errorf("checkFleet: %v\n%s\nwant ok", err, out.String())
				}
				return
			}
			line := out.String()
			if err == nil || !strings.Contains(line, tc.want) || !strings.Contains(line, `generator "`+tc.genNamed+`": `+a+" and "+b) {
				t.Errorf("checkFleet: %v\n%s\nwant a refusal of generator %q naming both files, containing %q", err, line, tc.genNamed, tc.want)
			}
		})
	}
}

// TestConfigCheckFleet_ExitCodes runs cosid config check --fleet: 1 with the
// findings, 0 with the summary; and refuses a fleet of one file, and --open.
func TestConfigCheckFleet_ExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"east.yaml": fleetFile("postgres://east/ids", "    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n"),
		"west.yaml": fleetFile("postgres://west/ids", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n"),
		"also.yaml": fleetFile("postgres://south/ids", "    order: { strategy: segment, store: db, stride: 2, residue: 1 }\n"),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, dir, "config", "check", "--fleet", "east.yaml", "west.yaml")
	if code != 0 || !strings.Contains(out, "fleet of 2 files: ok, 1 generator in more than one file") || !strings.Contains(out, "≡ 1 (mod 2)") {
		t.Errorf("disjoint fleet: exit %d, %q %q; want 0 and the summary", code, out, errOut)
	}
	out, errOut, code = runCLI(t, dir, "config", "check", "--fleet", "east.yaml", "west.yaml", "also.yaml")
	if code != 1 || !strings.Contains(out, `refused: generator "order": west.yaml and also.yaml`) || !strings.Contains(errOut, "1 finding") {
		t.Errorf("overlapping fleet: exit %d, %q %q; want 1 naming west.yaml and also.yaml", code, out, errOut)
	}
	for _, args := range [][]string{{"--fleet", "east.yaml"}, {"--fleet", "--open", "east.yaml", "west.yaml"}, {"east.yaml"}} {
		if _, errOut, code := runCLI(t, dir, append([]string{"config", "check"}, args...)...); code == 0 || errOut == "" {
			t.Errorf("config check %q: exit %d; want an error", args, code)
		}
	}
}

// TestConfigCheckFleet_StoreFilesAreReadFromTheirDirectory: a store named by a
// relative file (a SQLite file, as a name or a file: URI, a dsn-file) is the file
// of each configuration's own directory, and an in-memory SQLite is each process's
// own: two such stores count apart, so the same class in both is refused; one file
// named two ways is one store.
func TestConfigCheckFleet_StoreFilesAreReadFromTheirDirectory(t *testing.T) {
	const order = "  generators:\n    order: { strategy: segment, store: db, stride: 2, residue: %d }\n"
	tests := []struct {
		name         string
		dirA, dirB   string // the directories of the two files, under one temporary directory
		storeA       string // the store db of a
		storeB       string // of b; "" is storeA
		residueB     int
		want         string
		wantPassWith bool // the fleet passes
	}{
		{"SQLiteNameInTwoDirectories", "east", "west", `{ type: sql, driver: sqlite, dsn: ids.db }`, "", 0, "meet (id 2 is in both)", false},
		{"SQLiteURIInTwoDirectories", "east", "west", `{ type: sql, driver: sqlite, dsn: "file:ids.db?_pragma=busy_timeout(5000)" }`, "", 0, "meet (id 2 is in both)", false},
		{"SQLiteInMemory", "east", "east", `{ type: sql, driver: sqlite, dsn: ":memory:" }`, "", 0, "meet (id 2 is in both)", false},
		{"DSNFileInTwoDirectories", "east", "west", `{ type: sql, driver: pgx, dsn-file: pg.dsn }`, "", 0, "meet (id 2 is in both)", false},
		{"SQLiteOneFileNamedTwoWays", "east", "east", `{ type: sql, driver: sqlite, dsn: ids.db }`, `{ type: sql, driver: sqlite, dsn: "file:ids.db" }`, 1, "they share one store (db) with different strides", false},
		{"SQLiteOneFileOneClass", "east", "east", `{ type: sql, driver: sqlite, dsn: ids.db }`, `{ type: sql, driver: sqlite, dsn: "file:ids.db?_pragma=busy_timeout(5000)" }`, 0, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			storeB := tc.storeB
			if storeB == "" {
				storeB = tc.storeA
			}
			a, b := filepath.Join(dir, tc.dirA, "a.yaml"), filepath.Join(dir, tc.dirB, "b.yaml")
			for path, text := range map[string]string{
				a: "cosid:\n  stores:\n    db: " + tc.storeA + "\n" + fmt.Sprintf(order, 0),
				b: "cosid:\n  stores:\n    db: " + storeB + "\n" + fmt.Sprintf(order, tc.residueB),
			} {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := checkFleet(&out, []string{a, b})
			if tc.wantPassWith {
				if err != nil {
					t.Errorf("checkFleet: %v\n%s\nwant ok", err, out.String())
				}
				return
			}
			if err == nil || !strings.Contains(out.String(), tc.want) {
				t.Errorf("checkFleet: %v\n%s\nwant a refusal containing %q", err, out.String(), tc.want)
			}
		})
	}
}

// FuzzFleet_Meet checks meet, which decides whether two regions' classes of ids
// share one: for small strides it agrees with a search of every id below their
// product, and for any strides an id it names is above 0 and in both classes.
func FuzzFleet_Meet(f *testing.F) {
	f.Add(int64(2), int64(0), int64(2), int64(1))
	f.Add(int64(4), int64(1), int64(6), int64(3))
	f.Add(int64(4), int64(1), int64(6), int64(0))
	f.Add(int64(1), int64(0), int64(3), int64(2))
	f.Add(int64(2), int64(0), int64(4), int64(0)) // they meet at 0, which no generator hands out: 4
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64-1), int64(math.MaxInt64-1), int64(3))
	f.Add(int64(1<<40), int64(7), int64(1<<40+1), int64(9))
	f.Fuzz(func(t *testing.T, n1, r1, n2, r2 int64) {
		class := func(n, r int64) (int64, int64) { // a stride ≥ 1 and a residue of it, as load allows
			if n < 1 {
				n = 1 + (n & math.MaxInt32)
			}
			return n, (r%n + n) % n
		}
		n1, r1 = class(n1, r1)
		n2, r2 = class(n2, r2)
		x, ok := meet(n1, r1, n2, r2)
		if id, err := strconv.ParseInt(x, 10, 64); ok && err == nil && (id <= 0 || id%n1 != r1 || id%n2 != r2) {
			t.Fatalf("meet(%d, %d, %d, %d) names id %d, not in both classes above 0", n1, r1, n2, r2, id)
		}
		if n1 > 1000 || n2 > 1000 {
			return
		}
		want := false
		for id := int64(1); id <= n1*n2 && !want; id++ {
			want = id%n1 == r1 && id%n2 == r2
		}
		if ok != want {
			t.Fatalf("meet(%d, %d, %d, %d) = %q, %v; a search finds an id in both: %v", n1, r1, n2, r2, x, ok, want)
		}
		if _, err := strconv.ParseInt(x, 10, 64); ok && err != nil {
			t.Fatalf("meet(%d, %d, %d, %d) = %q: for small strides, want the id", n1, r1, n2, r2, x)
		}
	})
}

// FuzzConfigCheckFleet checks the fleet check on any two files: no panic, and the
// order of the files does not change whether it passes, nor how many findings it
// makes.
func FuzzConfigCheckFleet(f *testing.F) {
	gens := []string{
		"    order: { strategy: segment, store: db, stride: 2, residue: 0 }\n",
		"    order: { strategy: segment, store: db, stride: 4, residue: 1 }\n",
		"    order: { strategy: segment, store: mem }\n",
		"    ev: { strategy: snowflake, store: db, machine-ids: [0, 512] }\n",
		"    ev: { strategy: snowflake, machine-id: 7 }\n",
		"    ev: { strategy: cosid-generator, store: db, machine-ids: [100, 200] }\n",
	}
	for i, a := range gens {
		for _, b := range gens[i:] {
			f.Add(fleetFile("postgres://east/ids", a), fleetFile("postgres://west/ids", b))
			f.Add(fleetFile("postgres://east/ids", a), fleetFile("postgres://east/ids", b))
		}
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		dir := t.TempDir()
		pa, pb := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
		if os.WriteFile(pa, []byte(a), 0o600) != nil || os.WriteFile(pb, []byte(b), 0o600) != nil {
			t.Fatal("writing the files")
		}
		var ab, ba bytes.Buffer
		errAB, errBA := checkFleet(&ab, []string{pa, pb}), checkFleet(&ba, []string{pb, pa})
		if (errAB == nil) != (errBA == nil) || strings.Count(ab.String(), "refused: ") != strings.Count(ba.String(), "refused: ") {
			t.Fatalf("a, b: %v\n%s\nb, a: %v\n%s", errAB, ab.String(), errBA, ba.String())
		}
	})
}
