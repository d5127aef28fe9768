package clients_test

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestReadRanges_NodeClient_CostsWhatItAsked runs a Node bulk loader of
// IdService.ReadRanges (testdata/readranges.mjs: protoc-gen-es's client on
// connect-node's gRPC transport) against a real cosid serve's gRPC listener. It
// keeps 4 ranges of 100 ids asked ahead of its reads and, after 10 read, pauses:
// the generator's next range then starts after at most the 14 ranges asked, not
// after what the HTTP/2 window would hold. Resumed, the loader closes its side and
// gets the 4 ranges still asked, then the stream's clean end: 14 consecutive
// ranges, none shared with the probe's.
func TestReadRanges_NodeClient_CostsWhatItAsked(t *testing.T) {
	lang := languages[1] // Node
	interp := lang.start(t)
	srv := startServeOn(t, fmt.Sprintf("readranges_%d_%d", os.Getpid(), time.Now().UnixNano()),
		"{ type: sql, driver: sqlite, dsn: cosid.db, options: { initSchema: true } }")
	const size, ahead, read = 100, 4, 10
	first, _ := takeRange(t, srv.URL)
	base := first[1]

	d := startDriverEnv(t, client{name: "Node", driver: "readranges.mjs"}, interp, []string{srv.grpcURL}, 0, 0,
		fmt.Sprintf("COSID_SIZE=%d", size), fmt.Sprintf("COSID_AHEAD=%d", ahead), fmt.Sprintf("COSID_READ=%d", read))
	var got [][2]int64
	readUntil := func(want string) {
		t.Helper()
		for line := range d.lines {
			if line == want {
				return
			}
			var r [2]int64
			if _, err := fmt.Sscanf(line, "range %d %d", &r[0], &r[1]); err != nil {
				t.Fatalf("the loader printed %q before %q", line, want)
			}
			got = append(got, r)
		}
		t.Fatalf("the loader ended before it printed %q", want)
	}
	readUntil("pause")
	probe, _ := takeRange(t, srv.URL)
	if lo, hi := base+read*size, base+(read+ahead)*size; probe[0] < lo || probe[0] > hi {
		t.Fatalf("with %d ranges of %d read and %d more asked, the next range starts at %d; want %d to %d: the stream reserved %d ranges it was not asked for",
			read, size, ahead, probe[0], lo, hi, (probe[0]-hi)/size)
	}
	d.resume(t)
	readUntil("done")
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("the loader: %v", err)
	}
	if len(got) != read+ahead {
		t.Fatalf("the loader read %d ranges, want the %d it asked for: %v", len(got), read+ahead, got)
	}
	for i, r := range got {
		if r[1]-r[0] != size || (i > 0 && r[0] < got[i-1][1]) || (r[0] < probe[1] && probe[0] < r[1]) {
			t.Fatalf("range %d [%d, %d): want %d ids after the one before, apart from the probe's [%d, %d)", i, r[0], r[1], size, probe[0], probe[1])
		}
	}
	t.Logf("%d ranges read, %d asked ahead at the pause; the probe started at %d, %d ranges after the stream's first", read, ahead, probe[0], (probe[0]-base)/size)
}
