package servicesim

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// checker sees every id and range that every client took, by the generator (or key)
// they belong to, and keeps the first broken promise.
type checker struct {
	mu      sync.Mutex
	taken   map[string][]span // by generator key: what clients took, in any order
	ids     int64
	failure string
}

// span is a half-open interval of values, with who took it.
type span struct {
	start, end int64
	by         string
}

func newChecker() *checker { return &checker{taken: map[string][]span{}} }

func (c *checker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure == "" {
		c.failure = fmt.Sprintf(format, args...)
	}
}

// took records that by was handed [start, end) of key: the values a client may
// hand out as ids of key.
func (c *checker) took(key string, start, end int64, by string) {
	if end <= start {
		c.fail("empty range: %s took [%d, %d) of %q", by, start, end, key)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.taken[key] = append(c.taken[key], span{start, end, by})
	c.ids += end - start
}

// finish checks that no two ranges of one key overlap: no value was handed out
// twice. It returns the first broken promise, "" for none.
func (c *checker) finish() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.taken))
	for k := range c.taken {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		spans := c.taken[k]
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		for i := 1; i < len(spans) && c.failure == ""; i++ {
			if p, s := spans[i-1], spans[i]; s.start < p.end {
				c.failure = fmt.Sprintf("duplicate: %s took [%d, %d) of %q and %s took [%d, %d)",
					p.by, p.start, p.end, k, s.by, s.start, s.end)
			}
		}
	}
	return c.failure
}
