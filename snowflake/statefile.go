package snowflake

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/cosid-go/cosid/store"
)

// ErrStateFile means a state file (WithStateFile) could not be read or written, or
// holds what the generator cannot use: another machine's state, or text that is
// not a state file. The error names the file's absolute path. A write that fails
// while the generator runs also matches store.ErrUnavailable: the next call that
// needs the file writes it again.
var ErrStateFile = errors.New("state file")

// StateEvery is how often a generator with a state file writes it while it hands
// out ids: each write lets it stamp ids for about 1.5×StateEvery more, so a
// restart after a crash waits at most that long for the clock to pass them.
const StateEvery = time.Second

// maxStateSize bounds the read of a state file: a valid one is under 64 bytes.
const maxStateSize = 4096

// stateHeader is the first line of every state file, version 1.
const stateHeader = "cosid snowflake state 1\n"

// savedState is what a state file says: no id of machine is stamped after the epoch
// millisecond untilMs.
type savedState struct {
	machine int
	untilMs int64
}

// encode returns the text of s: three lines,
//
//	cosid snowflake state 1
//	machine 3
//	until-ms 1767225600999
func (s savedState) encode() []byte {
	b := []byte(stateHeader)
	b = append(b, "machine "...)
	b = strconv.AppendInt(b, int64(s.machine), 10)
	b = append(b, "\nuntil-ms "...)
	b = strconv.AppendInt(b, s.untilMs, 10)
	return append(b, '\n')
}

// parseState reads the text of a state file. It accepts only what encode writes:
// the header, then machine and until-ms, each a decimal number ≥ 0 without sign or
// leading zero, each line ending in a newline, nothing else.
func parseState(data []byte) (savedState, error) {
	rest, ok := bytes.CutPrefix(data, []byte(stateHeader))
	if !ok {
		return savedState{}, fmt.Errorf("line 1: want %q", stateHeader[:len(stateHeader)-1])
	}
	machine, rest, err := stateField(rest, 2, "machine", 1<<30-1)
	if err != nil {
		return savedState{}, err
	}
	until, rest, err := stateField(rest, 3, "until-ms", 1<<62)
	if err != nil {
		return savedState{}, err
	}
	if len(rest) > 0 {
		return savedState{}, fmt.Errorf("line 4: want the end of the file, after until-ms")
	}
	return savedState{machine: int(machine), untilMs: until}, nil
}

// stateField reads line n of a state file, "name NUMBER\n" with 0 ≤ NUMBER ≤ limit,
// from the start of data, and returns the number and what follows the line.
func stateField(data []byte, n int, name string, limit int64) (int64, []byte, error) {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return 0, nil, fmt.Errorf("line %d: want %q and a number, ending in a newline", n, name)
	}
	digits, ok := bytes.CutPrefix(line, []byte(name+" "))
	if !ok {
		return 0, nil, fmt.Errorf("line %d: want %q and a number", n, name)
	}
	v, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil || v < 0 || v > limit || strconv.FormatInt(v, 10) != string(digits) {
		return 0, nil, fmt.Errorf("line %d: %s %.20q is not a number from 0 to %d, written without sign or leading zero", n, name, digits, limit)
	}
	return v, rest, nil
}

// stateFile is the state file of a generator of a fixed machine: the time up to
// which its ids may be stamped, written ahead of them, so that a restart with the
// clock set back stamps none of them again.
type stateFile struct {
	path string // absolute

	mu       sync.Mutex // one write at a time
	rearm    chan struct{}
	lastSeen int64 // the Unit of the last id when the goroutine last wrote ahead; its own
}

// openState reads the state file at path for machine. It returns the file, and the
// epoch milliseconds of the state it holds (-1 when there is none yet: a first
// start). A file that exists but cannot be read, or is not machine's, is an error.
func openState(path string, machine int) (*stateFile, int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, 0, fmt.Errorf("snowflake: %w %s: %w", ErrStateFile, path, err)
	}
	f := &stateFile{path: abs, rearm: make(chan struct{}, 1)}
	data, err := readLimited(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, -1, nil
	case err != nil:
		return nil, 0, fmt.Errorf("snowflake: %w %s: %w", ErrStateFile, abs, err)
	}
	s, err := parseState(data)
	if err != nil {
		return nil, 0, fmt.Errorf("snowflake: %w %s: not a state file of this version (%w); move it away if it is not one", ErrStateFile, abs, err)
	}
	if s.machine != machine {
		return nil, 0, fmt.Errorf("snowflake: %w %s is machine %d's, and this generator is machine %d: give each machine a state file of its own, or remove this one once machine %d stamps no more ids",
			ErrStateFile, abs, s.machine, machine, s.machine)
	}
	return f, s.untilMs, nil
}

func readLimited(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxStateSize+1))
	if err == nil && len(data) > maxStateSize {
		err = fmt.Errorf("larger than %d bytes", maxStateSize)
	}
	return data, err
}

// write replaces the file with s, atomically: a temporary file beside it, synced,
// renamed over it, and the directory synced, so that after a crash the file holds
// s or what it held before, never a part of either.
func (f *stateFile) write(s savedState) error {
	dir := filepath.Dir(f.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(s.encode())
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// startState makes the state file the generator's, at NewFixed: it returns the
// first Unit the generator may stamp, which is at least first, after every id of
// an earlier run that the file tells of, and writes the file ahead of it. A clock
// behind that Unit by more than the generator waits (WithClockBackwards) is an
// error wrapping ErrClockBackwards.
func (g *Generator) startState(path string, first int64) (int64, error) {
	f, untilMs, err := openState(path, g.slot)
	if err != nil {
		return 0, err
	}
	now, _ := g.clock()
	if untilMs >= 0 {
		after := g.floorTick(untilMs) + 1
		if behind := g.timeOf(after).Sub(now); behind > g.o.broken {
			return 0, fmt.Errorf("snowflake: machine %d: %w: the clock reads %v, %v behind %v, after which the state file %s lets an earlier run's ids lie; over the %v that Next waits (remove the file only if no run stamped ids past the clock)",
				g.slot, ErrClockBackwards, now.UTC(), behind, g.timeOf(after), f.path, g.o.broken)
		}
		first = max(first, after)
	}
	f.lastSeen = first - 1
	g.saved = f
	g.ceil.Store(first - 1)
	if err := g.extend(now, first); err != nil {
		return 0, err
	}
	return first, nil
}

// extend writes the state file ahead so that Unit tick, which the clock read at
// now, may be stamped: unless a write already allows it, it writes a ceiling of
// about 1.5×StateEvery ahead of now, and at least a Unit past tick.
func (g *Generator) extend(now time.Time, tick int64) error {
	f := g.saved
	f.mu.Lock()
	defer f.mu.Unlock()
	if tick <= g.ceil.Load() {
		return nil
	}
	c := min(max(tick+1, g.floorTick(now.Add(StateEvery+StateEvery/2).UnixMilli())), g.maxTick)
	if err := f.write(savedState{machine: g.slot, untilMs: g.lastMs(c)}); err != nil {
		return fmt.Errorf("snowflake: machine %d: %w %s: %w: write: %w", g.slot, ErrStateFile, f.path, store.ErrUnavailable, err)
	}
	g.ceil.Store(c)
	select {
	case f.rearm <- struct{}{}:
	default:
	}
	return nil
}

// lastMs returns the last epoch millisecond of Unit tick.
func (g *Generator) lastMs(tick int64) int64 {
	ms, _ := g.layout.msOf(tick)
	return ms + g.unitMs - 1
}

// saveIn returns when the clock goroutine writes the state file ahead next:
// StateEvery/2 before the clock reaches the ceiling of the last write.
func (g *Generator) saveIn() time.Duration {
	return max(g.timeOf(g.ceil.Load()+1).Sub(g.now())-StateEvery/2, 0)
}

// saveAhead is the clock goroutine's write of the state file: while ids are handed
// out it writes the file ahead before the callers reach its ceiling, so that no
// call of Next waits for the write. It reports whether to write again (at
// saveIn); after a while without ids it stops, and the next id past the ceiling
// writes the file itself.
func (g *Generator) saveAhead() bool {
	v := g.state.Load()
	if v == stopped {
		return false
	}
	f := g.saved
	if tick := v >> g.seqBits; tick > f.lastSeen {
		f.lastSeen = tick
		now, _ := g.clock()
		if err := g.extend(now, g.ceil.Load()+1); err != nil {
			g.o.logger.Warn("snowflake: writing the state file ahead failed; Next writes it when it must", "machine", g.slot, "error", err)
		}
		return true
	}
	return false
}

// closeState writes the state file at the Unit of the last id, at Close: the next
// run may start right after it.
func (g *Generator) closeState(last int64) error {
	f := g.saved
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.write(savedState{machine: g.slot, untilMs: g.lastMs(last >> g.seqBits)}); err != nil {
		return fmt.Errorf("snowflake: machine %d: %w %s: write at close: %w", g.slot, ErrStateFile, f.path, err)
	}
	return nil
}
