package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// failAfter accepts the bytes of lines complete lines, then fails every write as a
// closed pipe does.
type failAfter struct {
	lines   int
	written bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	n := 0
	for f.lines > 0 && n < len(p) {
		i := bytes.IndexByte(p[n:], '\n')
		if i < 0 {
			f.written.Write(p[n:])
			return len(p), nil
		}
		f.written.Write(p[n : n+i+1])
		n += i + 1
		f.lines--
	}
	if n == len(p) {
		return n, nil
	}
	return n, syscall.EPIPE
}

// pipeConfig is an ad-hoc segment on an SQLite file of dir.
func pipeConfig(t *testing.T, dir string) cosid.Config {
	sf := storeFlags{dsn: filepath.Join(dir, "ids.db"), namespace: "cosid", timeout: 5 * time.Second, initSchema: true}
	cfg, err := sf.config("order")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// reserved returns how many ids of cosid/order the file in dir handed out.
func reserved(t *testing.T, dir string) int64 {
	st, err := sqlstore.Open("sqlite", filepath.Join(dir, "ids.db"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	page, err := st.Keys(t.Context(), "cosid/order", "", 1)
	if err != nil || len(page) != 1 {
		t.Fatalf("Keys = %v, %v", page, err)
	}
	return page[0].Next - 1
}

// TestNext_ReaderStoppingEarlyLeavesOneReservation: when the output fails after k
// lines, as a closed pipe does, next has reserved at most one reservation beyond
// what it printed: no more than it printed before it (the reservations grow from 1)
// and at most chunk, as its help says.
func TestNext_ReaderStoppingEarlyLeavesOneReservation(t *testing.T) {
	t.Parallel()
	for _, k := range []int{0, 1, 5, 100, 1500, 5000} {
		dir := t.TempDir()
		w := &failAfter{lines: k}
		err := printNext(t.Context(), w, io.Discard, pipeConfig(t, dir), "order", "", 1_000_000)
		if !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("k=%d: printNext = %v, want the write's EPIPE", k, err)
		}
		printed := int64(strings.Count(w.written.String(), "\n"))
		unprinted := reserved(t, dir) - printed
		if printed != int64(k) || unprinted < 0 || unprinted > min(printed+1, chunk) {
			t.Errorf("k=%d: printed %d, reserved and unprinted %d; want at most %d", k, printed, unprinted, min(printed+1, chunk))
		}
	}
	help := nextCommand(io.Discard).Long
	for _, says := range []string{"at most 1000 at a time", "no more than were printed before it", "a pipe holds up to 64 KiB"} {
		if !strings.Contains(help, says) {
			t.Errorf("the help of next does not say %q", says)
		}
	}
}

// TestNext_ClosedPipe runs next into a pipe whose reader closes it after the first
// line: the run ends with the write's error, and what it reserved beyond what it
// wrote into the pipe is at most one reservation.
func TestNext_ClosedPipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		read <- line
	}()
	counted := &countingWriter{w: pw}
	err = printNext(t.Context(), counted, io.Discard, pipeConfig(t, dir), "order", "", 1_000_000)
	pw.Close()
	if first := <-read; first != "1\n" || !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("first line %q, printNext = %v; want 1 and EPIPE", first, err)
	}
	unprinted := reserved(t, dir) - counted.lines
	if unprinted < 0 || unprinted > min(counted.lines+1, chunk) {
		t.Errorf("wrote %d lines into the pipe, reserved and unprinted %d; want at most %d", counted.lines, unprinted, min(counted.lines+1, chunk))
	}
}

// countingWriter counts the complete lines written through it.
type countingWriter struct {
	w     io.Writer
	lines int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	return n, err
}
