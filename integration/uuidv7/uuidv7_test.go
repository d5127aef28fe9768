package uuidv7

import (
	"bytes"
	"cmp"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/google/uuid"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx" of COSID_TEST_POSTGRES
)

// issued is a UUID text a generator handed out, with what it decodes to.
type issued struct {
	text string
	id   int64
	ms   int64 // Unix milliseconds
}

// issue takes n texts from each of machines 1 and 2, each a Snowflake generator
// with the uuidv7 codec, and decodes them: per machine in issue order, machine 1's
// first.
func issue(t *testing.T, n int64) []issued {
	t.Helper()
	var out []issued
	for _, machine := range []int{1, 2} {
		cfg, err := cosid.ParseConfig(fmt.Appendf(nil, "cosid:\n  generators:\n    ev: { strategy: snowflake, machine-id: %d, codec: [ { uuidv7: {} } ] }\n", machine))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		src, err := rt.Source("ev", "")
		if err != nil {
			t.Fatal(err)
		}
		texts, err := src.Take(t.Context(), n)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			d, err := rt.Decode("ev", text)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, issued{text: text, id: d.Value, ms: d.Snowflake.Time.UnixMilli()})
		}
	}
	return out
}

// TestUUIDv7_GoogleUUIDParsesVersion7 checks that google/uuid reads our texts as
// RFC 9562 version-7 UUIDs with our time, writes them back the same, and orders
// their bytes as the ids.
func TestUUIDv7_GoogleUUIDParsesVersion7(t *testing.T) {
	ids := issue(t, 300)
	var prev uuid.UUID
	for i, is := range ids {
		u, err := uuid.Parse(is.text)
		if err != nil {
			t.Fatalf("uuid.Parse(%q): %v", is.text, err)
		}
		sec, nsec := u.Time().UnixTime()
		if u.Version() != 7 || u.Variant() != uuid.RFC4122 || u.String() != is.text || sec*1000+nsec/1e6 != is.ms {
			t.Fatalf("uuid.Parse(%q) = version %d, variant %v, %s, time %d ms; want 7, RFC4122, the same text, %d ms",
				is.text, u.Version(), u.Variant(), u, sec*1000+nsec/1e6, is.ms)
		}
		if i > 0 && i != len(ids)/2 && bytes.Compare(prev[:], u[:]) >= 0 {
			t.Fatalf("%s does not sort after %s, issued before it by the same machine", u, prev)
		}
		prev = u
	}
}

// TestUUIDv7_PythonParsesVersion7 checks that Python's uuid module reads our texts
// as RFC 4122/9562 UUIDs of version 7 with our time in the first 48 bits.
func TestUUIDv7_PythonParsesVersion7(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv(testenv.Require) == "1" {
			t.Fatalf("python3 is not on PATH and %s=1: install it to test that Python reads our UUIDs", testenv.Require)
		}
		t.Skip("python3 is not on PATH: install it to test that Python reads our UUIDs")
	}
	ids := issue(t, 100)
	var in strings.Builder
	for _, is := range ids {
		in.WriteString(is.text + "\n")
	}
	const script = `import sys, uuid
for line in sys.stdin:
    u = uuid.UUID(line.strip())
    print(str(u) == line.strip(), u.variant == uuid.RFC_4122, u.version, u.int >> 80)
`
	cmd := exec.CommandContext(t.Context(), python, "-c", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(ids) {
		t.Fatalf("python3 printed %d lines for %d UUIDs:\n%s", len(lines), len(ids), out)
	}
	for i, line := range lines {
		if want := "True True 7 " + strconv.FormatInt(ids[i].ms, 10); line != want {
			t.Errorf("python3 reads %s as %q; want %q (same text, RFC variant, version, Unix ms)", ids[i].text, line, want)
		}
	}
}

// TestUUIDv7_PostgresStoresAndOrdersInIssueOrder checks that PostgreSQL's uuid type
// takes our texts, gives them back the same, and orders them as the ids: each
// machine's in issue order.
func TestUUIDv7_PostgresStoresAndOrdersInIssueOrder(t *testing.T) {
	db, err := sql.Open("pgx", testenv.Server(t, testenv.Postgres))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(t.Context()) // one session: the table is temporary
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := t.Context()
	if _, err := conn.ExecContext(ctx, "create temporary table cosid_uuidv7_order (id uuid primary key, v bigint not null)"); err != nil {
		t.Fatal(err)
	}
	ids := issue(t, 500)
	shuffled := slices.Clone(ids)
	rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, is := range shuffled {
		if _, err := conn.ExecContext(ctx, "insert into cosid_uuidv7_order (id, v) values ($1, $2)", is.text, is.id); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.QueryContext(ctx, "select id::text, v from cosid_uuidv7_order order by id")
	if err != nil {
		t.Fatal(err)
	}
	var got []issued
	for rows.Next() {
		var is issued
		if err := rows.Scan(&is.text, &is.id); err != nil {
			t.Fatal(err)
		}
		got = append(got, is)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// Each machine's in issue order, and across machines by time, then machine:
	// the order of the ids.
	want := slices.SortedFunc(slices.Values(ids), func(a, b issued) int { return cmp.Compare(a.id, b.id) })
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	issuedAt := map[string]int{} // a text's place among its machine's
	for i, is := range ids {
		issuedAt[is.text] = i % 500
	}
	next := map[int64]int{} // each machine's next place, by its ids' machine bits
	for i := range got {
		if got[i].text != want[i].text || got[i].id != want[i].id {
			t.Fatalf("row %d by the uuid column: %s (id %d); want %s (id %d): the order of the ids", i, got[i].text, got[i].id, want[i].text, want[i].id)
		}
		machine := got[i].id >> 12 & 1023
		if at := issuedAt[got[i].text]; at != next[machine] {
			t.Fatalf("row %d by the uuid column is machine %d's id issued %dth; want its %dth", i, machine, at, next[machine])
		}
		next[machine]++
	}
}
