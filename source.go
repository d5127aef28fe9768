package cosid

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// Source is what hands out ids: a configured generator and, for a keyed template
// (keyed: true), one of its keys, a sequence of its own at the store key
// {namespace}/{name}/{key}. Runtime.Source makes it and checks the name and key
// once, so that a caller who holds it pays no lookup per id. It is a small value,
// safe to copy and to use from many goroutines. The zero Source names nothing: its
// calls fail with an error wrapping ErrUnknownGenerator.
//
// A Source's first call builds its generator (opening its store, leasing its slot
// or reserving a keyed key's first range, under the call's ctx); later calls wait
// for nothing while ids are at hand. A key that its template closed for
// max-live-keys or idle-close opens again on its next call, with a new range: its
// ids go on above every id it handed out, and what it had reserved and not handed
// out is a gap (S4).
type Source struct {
	g   *generator
	key string // "" for a generator that is not keyed
}

// Source returns the Source of the generator name and, when it is keyed, of its key
// key; key is "" for a generator that is not keyed. It does no I/O. An unknown name
// is an error wrapping ErrUnknownGenerator; a keyed generator without a key wraps
// ErrKeyRequired; a key to one that is not keyed wraps ErrNotKeyed; a key that
// CheckKey refuses wraps ErrInvalidKey. Each error says what to do.
func (rt *Runtime) Source(name, key string) (Source, error) {
	g, err := rt.generator(name)
	switch {
	case err != nil:
		return Source{}, err
	case g.keys != nil && key == "":
		return Source{}, fmt.Errorf("cosid: %w: generator %q is keyed, a sequence per key: name one; want %s", ErrKeyRequired, name, keyAllowed)
	case g.keys == nil && key != "":
		return Source{}, fmt.Errorf("cosid: %w: generator %q is not keyed: it takes no key; leave out the key, or set keyed: true in its configuration", ErrNotKeyed, name)
	case key != "":
		if err := CheckKey(key); err != nil {
			return Source{}, fmt.Errorf("cosid: generator %q: %w", name, err)
		}
	}
	return Source{g: g, key: key}, nil
}

// Name returns the name of s's generator; "" for the zero Source.
func (s Source) Name() string {
	if s.g == nil {
		return ""
	}
	return s.g.plan.name
}

// Key returns the key of s; "" for a generator that is not keyed.
func (s Source) Key() string { return s.key }

// Live reports whether s's key is open in the runtime: taking its ids reserves
// nothing to open it. It is false for a Source without a key. A server reads it to
// limit how fast a caller opens keys.
func (s Source) Live() bool {
	return s.g != nil && s.key != "" && s.g.keys != nil && s.g.keys.peek(s.key) != nil
}

// errNoSource is the error of the zero Source.
var errNoSource = fmt.Errorf("cosid: %w: the zero Source names no generator; make one with Runtime.Source", ErrUnknownGenerator)

// Next returns the text of the next id.
func (s Source) Next(ctx context.Context) (string, error) {
	// The path of nearly every call, as NextInt's: a segment of plain decimal ids
	// written with strconv, without the adapter's and the codec's indirect calls.
	if g := s.g; g != nil && s.key == "" {
		if l := g.built.v.Load(); l != nil && l.decimal {
			v, ok := l.seg.TryNext()
			if ok && v >= 0 {
				return strconv.FormatInt(v, 10), nil
			}
			return g.decimalNext(l, v, ok)
		}
	}
	return s.next(ctx)
}

// decimalNext is Next of a built segment of plain decimal ids, l, after its
// TryNext: v when ok, else no id yet.
func (g *generator) decimalNext(l *live, v int64, ok bool) (string, error) {
	if !ok {
		var err error
		if v, err = l.seg.Next(); err != nil {
			return "", prefixed(g.failed(l, err))
		}
	}
	if v < 0 { // from a store gone wrong: the codec's error says so
		if _, err := l.built.(*segmentGen).codec.Encode(v); err != nil {
			return "", prefixed(g.failed(l, err))
		}
	}
	return strconv.FormatInt(v, 10), nil
}

// next is Next of a generator not built yet, of a key, or of another codec.
func (s Source) next(ctx context.Context) (string, error) {
	switch {
	case s.g == nil:
		return "", errNoSource
	case s.key != "":
		return s.keyNext(ctx)
	}
	text, err := s.g.next(ctx)
	if err != nil {
		return "", prefixed(err)
	}
	return text, nil
}

// NextInt returns the next id of a generator whose ids are int64s (see
// GeneratorInfo.IntIDs). A generator whose ids are text only, as a periodic
// segment's, fails with an error wrapping ErrUnknownGenerator.
func (s Source) NextInt(ctx context.Context) (int64, error) {
	// The path of nearly every call: the built segment generator's TryNext, one
	// load away and inlined here, so that the call costs one call, as the
	// generator's own Next does; its Next out of line when it has no id at hand.
	if g := s.g; g != nil && s.key == "" {
		if l := g.built.v.Load(); l != nil && l.seg != nil {
			if v, ok := l.seg.TryNext(); ok {
				return v, nil
			}
			return g.segNextInt(l)
		}
	} else if g != nil && g.intIDs {
		return s.keyNextInt(ctx)
	}
	return s.nextInt(ctx)
}

// segNextInt is NextInt of a built segment, l, whose TryNext had no id.
func (g *generator) segNextInt(l *live) (int64, error) {
	v, err := l.seg.Next()
	if err != nil {
		return 0, prefixed(g.failed(l, err))
	}
	return v, nil
}

// keyNextInt is NextInt of a key of a template whose ids are int64s. On the key
// used most recently, nearly always a held Source's, it is the segment generator's
// TryNext and no more: no lock, no count of calls (keyedSet.hot), no call through
// the adapter, and for max-keys no lookup (a live key was admitted when it
// opened). Else, or when the key closed under the call, withKey.
func (s Source) keyNextInt(ctx context.Context) (int64, error) {
	g := s.g
	if e := g.keys.hot(s.key); e != nil {
		if sg, ok := e.b.(*segmentGen); ok {
			if v, ok := sg.g.TryNext(); ok {
				return v, nil
			}
			v, err := sg.g.Next()
			switch {
			case err == nil:
				return v, nil
			case !e.gone.Load():
				return 0, prefixed(g.keyFailed(s.key, err))
			}
			// Closed under the call (hot): the key's generator is another now.
		}
	}
	var v int64
	err := s.withKey(ctx, func(b built) (err error) {
		v, err = b.ints().Next()
		return err
	})
	return v, err
}

// keyNext is Next of a key: keyNextInt's way for a segment, its text written with
// strconv for plain decimal ids and with its codec else; withKey for the others.
func (s Source) keyNext(ctx context.Context) (string, error) {
	g := s.g
	if e := g.keys.hot(s.key); e != nil {
		if sg, ok := e.b.(*segmentGen); ok {
			v, ok := sg.g.TryNext()
			var err error
			if !ok {
				v, err = sg.g.Next()
			}
			if err == nil {
				text, err := sg.text(v)
				if err != nil {
					return "", prefixed(g.keyFailed(s.key, err))
				}
				return text, nil
			}
			if !e.gone.Load() {
				return "", prefixed(g.keyFailed(s.key, err))
			}
			// Closed under the call (hot): the key's generator is another now.
		}
	}
	var text string
	err := s.withKey(ctx, func(b built) (err error) {
		text, err = b.next()
		return err
	})
	return text, err
}

// nextInt is NextInt of a generator not built yet, of a key, or that cannot.
func (s Source) nextInt(ctx context.Context) (int64, error) {
	g := s.g
	if err := s.can("NextInt", g != nil && g.intIDs, "are text only"); err != nil {
		return 0, err
	}
	if s.key != "" {
		var v int64
		err := s.withKey(ctx, func(b built) (err error) {
			v, err = b.ints().Next()
			return err
		})
		return v, err
	}
	v, err := g.nextInt(ctx)
	if err != nil {
		return 0, prefixed(err)
	}
	return v, nil
}

// NextRange returns n consecutive ids [r.Start, r.End) of a generator that hands
// out ranges (see GeneratorInfo.Ranges), as segment.Generator.NextRange does: for
// bulk inserts. Another generator fails with an error wrapping ErrUnknownGenerator.
// The range holds no value that the generator's codec cannot write: at a codec's
// width it ends at the codec's largest value, holding fewer than n ids, and once
// none is left NextRange fails with an error matching ErrExhausted.
func (s Source) NextRange(ctx context.Context, n int64) (store.Range, error) {
	var r store.Range
	why := "come one at a time, not in ranges"
	if st, ok := s.g.strided(); ok {
		why = fmt.Sprintf("are one number in every %d (%s.stride: %d), not consecutive; take them with Next", st.n, s.g.plan.path, st.n)
	}
	if err := s.can("NextRange", s.g != nil && s.g.ranges != nil, why); err != nil {
		return r, err
	}
	if s.key != "" {
		err := s.withKey(ctx, func(b built) (err error) {
			if r, err = s.g.ranges.nextRange(b, n); err == nil {
				r, err = s.g.fit(r)
			}
			return err
		})
		return r, err
	}
	b, err := s.g.get(ctx)
	if err != nil {
		return r, prefixed(err)
	}
	if r, err = s.g.ranges.nextRange(b.built, n); err == nil {
		r, err = s.g.fit(r)
	}
	if err != nil {
		return store.Range{}, prefixed(s.g.failed(b, err))
	}
	return r, nil
}

// Take returns the texts of the next n ids (1 ≤ n ≤ MaxTake), reserving exactly
// those. A segment's or periodic segment's ids come from one reservation of n in
// its store, outside the generator's batches: nothing is skipped, and the next Take
// goes on where this one stopped; it opens no generator, nor a key's. A
// Snowflake's are its next n. Take is for one-shot programs such as the CLI; a
// long-lived process uses Next, whose batches make gaps (S4) but spare the store.
// With an error, Take returns the ids it had before it, which are good: at a
// codec's width, the ids that fit, then an error matching ErrExhausted.
func (s Source) Take(ctx context.Context, n int64) ([]string, error) {
	if s.g == nil {
		return nil, errNoSource
	}
	p := s.g.plan
	if n < 1 || n > MaxTake {
		return nil, fmt.Errorf("cosid: Take %d ids of %q: want 1–%d", n, p.name, MaxTake)
	}
	storeKey := p.key
	if s.key != "" {
		storeKey += "/" + s.key
		// Take reserves in the store without opening the key: a key it makes
		// counts for max-keys as one the other calls open.
		if s.g.count != nil {
			if err := s.g.count.admit(ctx, s.key); err != nil {
				return nil, prefixed(err)
			}
		}
	}
	texts, err := p.impl.take(ctx, s.g, storeKey, n)
	s.g.markFull(s.key, err)
	if err != nil {
		return texts, prefixed(err)
	}
	return texts, nil
}

// Stats returns what s's generator has done, without I/O: that of a generator
// that is not keyed once it is built (as Runtime.Stats), and that of a keyed
// template's key while the key is live. Its Keys are zero: Runtime.Stats counts a
// template's keys.
func (s Source) Stats() Stats {
	switch {
	case s.g == nil:
		return Stats{}
	case s.key != "":
		if b := s.g.keys.peek(s.key); b != nil {
			return Stats{Segments: b.stats()}
		}
		return Stats{}
	}
	return s.g.rt.Stats(s.g.plan.name)
}

// can returns nil when s's generator can do op (ok), else the error of op, whose
// ids, it says, are as why says.
func (s Source) can(op string, ok bool, why string) error {
	switch {
	case ok:
		return nil
	case s.g == nil:
		return errNoSource
	}
	return fmt.Errorf("cosid: %w: %s of %q: a %s generator's ids %s", ErrUnknownGenerator, op, s.g.plan.name, s.g.plan.def.name, why)
}

// withKey calls f with the live generator of s's key.
func (s Source) withKey(ctx context.Context, f func(built) error) error {
	g := s.g
	if g.count != nil {
		if err := g.count.admit(ctx, s.key); err != nil {
			return prefixed(err)
		}
	}
	e, err := g.keys.get(ctx, s.key)
	if err != nil {
		return prefixed(err)
	}
	err = f(e.b)
	g.keys.put(e)
	if err != nil {
		return prefixed(g.keyFailed(s.key, err))
	}
	return nil
}

// strided returns the stride of g's ids when it is strided; g may be nil.
func (g *generator) strided() (stride, bool) {
	if g == nil {
		return stride{}, false
	}
	s, ok := g.plan.impl.(strider)
	if !ok {
		return stride{}, false
	}
	return s.idStride(), s.idStride().strided()
}

// keyFailed classifies an error of a key's generator, as failed does.
func (g *generator) keyFailed(key string, err error) error {
	if errors.Is(err, ErrUnavailable) {
		return fmt.Errorf("generator %q key %q %w: %w", g.plan.name, key, ErrUnavailable, err)
	}
	err = exhausted(g.plan.name, err)
	g.markFull(key, err)
	return fmt.Errorf("generator %q key %q: %w", g.plan.name, key, err)
}

// Stats is what a generator has done so far, read without I/O: Runtime.Stats and
// Source.Stats.
type Stats struct {
	// Segments holds the segment.Stats of a generator on segments once it has
	// handed out ids: a segment's one, a periodic segment's current and next
	// period's. A keyed template's is one for all its keys, live and closed, at the
	// template's key {namespace}/{name}: the sums of their counters and rates, the
	// largest batch and reservation time, and the error of the most recently used
	// key that failed. Nil for a generator not on segments (a Snowflake).
	Segments []segment.Stats
	// Keys counts the keys of a keyed template; zero for the others.
	Keys KeyStats
}
