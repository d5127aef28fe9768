package server

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestCompat4x_Golden replays the exchanges of a 4.x client in testdata/4x against a
// server: each request line is followed by the status and body the client must get.
// A body ending in … is matched as a prefix. @restart replaces the server with a new
// one on the same store; @clock +D moves the store's and the server's clock;
// @max-lease-ttl D restarts the server with that limit (Limits.MaxLeaseTTL).
func TestCompat4x_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/4x/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) { replay4x(t, file) })
	}
}

func replay4x(t *testing.T, file string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clock := storetest.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	st := memstore.New(memstore.WithClock(clock.Now))
	var limits Limits
	start := func() *Server {
		s := newServer(t, st, WithCompat4x(), WithLimits(limits))
		s.now = clock.Now
		return s
	}
	s := start()
	sc := bufio.NewScanner(f)
	n := 0
	next := func() string {
		for sc.Scan() {
			n++
			if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
				return line
			}
		}
		return ""
	}
	for line := next(); line != ""; line = next() {
		switch {
		case line == "@restart":
			s = start()
			continue
		case strings.HasPrefix(line, "@max-lease-ttl "):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "@max-lease-ttl "))
			if err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			limits.MaxLeaseTTL = d
			s = start()
			continue
		case strings.HasPrefix(line, "@clock +"):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "@clock +"))
			if err != nil {
				t.Fatalf("%s:%d: %v", file, n, err)
			}
			clock.Move(d)
			continue
		}
		method, target, _ := strings.Cut(line, " ")
		reqLine := n
		wantLine := next()
		wantStatus, wantBody, _ := strings.Cut(wantLine, " ")
		status, _, body := do(t, s, method, target, "")
		if strconv.Itoa(status) != wantStatus {
			t.Errorf("%s:%d: %s: status %d %s, want %s", file, reqLine, line, status, body, wantStatus)
			continue
		}
		if prefix, ok := strings.CutSuffix(wantBody, "…"); ok {
			if !strings.HasPrefix(body, prefix) {
				t.Errorf("%s:%d: %s:\n got %s\nwant %s…", file, reqLine, line, body, prefix)
			}
		} else if body != wantBody {
			t.Errorf("%s:%d: %s:\n got %q\nwant %q", file, reqLine, line, body, wantBody)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
