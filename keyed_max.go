package cosid

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosid-go/cosid/store"
)

// ErrMaxKeys means a keyed generator refused a new key: its template has made
// max-keys keys already, counted in the store across restarts and replicas. The
// message names the setting (cosid.generators.NAME.max-keys).
var ErrMaxKeys = errors.New("max-keys reached")

// keyCounter counts the keys a keyed template has made, in its store, so that every
// process on the store shares max-keys: a key is new when the store has none of its
// store keys, and a new key takes one value of the counter key
// {namespace}/.cosid/keys/{name} before it opens. Reserve is atomic (S1), so the
// count is exact or over: two processes that open the same new key at once both
// count it. Over-counting refuses early; nothing lets more than max-keys through.
type keyCounter struct {
	g       *generator
	max     int64
	counter string // the counter's store key
	// known holds keys found in the store or counted, up to most; past it, it is
	// emptied and keys are looked up again.
	known sync.Map
	n     atomic.Int64
	most  int64
}

// newKeyCounter returns the counter of g, a keyed template with max-keys.
func newKeyCounter(g *generator) *keyCounter {
	p := g.plan
	ns := strings.TrimSuffix(p.key, "/"+p.name)
	return &keyCounter{g: g, max: p.maxKeys, counter: ns + "/.cosid/keys/" + p.name, most: int64(p.maxLive)}
}

// admit lets key open: a key the runtime has open, or one the store holds, opens
// freely; a new key is counted, or refused with ErrMaxKeys past max-keys.
func (c *keyCounter) admit(ctx context.Context, key string) error {
	if _, ok := c.known.Load(key); ok {
		return nil
	}
	if CheckKey(key) != nil {
		return nil // the key's generator refuses it, before any I/O
	}
	if c.g.keys.peek(key) != nil {
		c.remember(key)
		return nil
	}
	p := c.g.plan
	sb, err := c.g.rt.stores[p.store].get(ctx)
	if err != nil {
		return fmt.Errorf("generator %q: %w", p.name, err)
	}
	admin, _ := sb.st.(store.Admin)
	if admin != nil {
		exists, err := c.exists(ctx, admin, key)
		if err != nil {
			return fmt.Errorf("generator %q key %q: looking the key up for max-keys: %w: %w", p.name, key, ErrUnavailable, err)
		}
		if exists {
			c.remember(key)
			return nil
		}
		// A count already at max-keys refuses without counting again, so that
		// refused keys do not use up what a raised max-keys would allow.
		page, err := admin.Keys(ctx, c.counter, "", 1)
		if err != nil {
			return fmt.Errorf("generator %q key %q: reading the count of max-keys: %w: %w", p.name, key, ErrUnavailable, err)
		}
		if len(page) == 1 && page[0].Key == c.counter && page[0].Next-1 >= c.max {
			return c.refuse(key, page[0].Next-1)
		}
	}
	rg, err := sb.st.Reserve(ctx, c.counter, 1, 1)
	if err != nil {
		return fmt.Errorf("generator %q key %q: counting the key for max-keys: %w", p.name, key, classifyStoreErr(err))
	}
	if rg.Start > c.max {
		return c.refuse(key, rg.Start)
	}
	c.remember(key)
	return nil
}

// exists reports whether the store holds a store key of key: its own, or a
// period's under it.
func (c *keyCounter) exists(ctx context.Context, admin store.Admin, key string) (bool, error) {
	p := c.g.plan
	full := p.key + "/" + key
	prefix := full
	if k, ok := p.impl.(keyable); ok && k.keySuffix() > 0 {
		// Its store keys are full/{period}; a key that only begins like this
		// one's ("k-x" of "k") sorts before them, and is not under full/.
		prefix = full + "/"
	}
	page, err := admin.Keys(ctx, prefix, "", 1)
	if err != nil {
		return false, err
	}
	return len(page) == 1 && (prefix != full || page[0].Key == full), nil
}

func (c *keyCounter) refuse(key string, count int64) error {
	p := c.g.plan
	return fmt.Errorf("generator %q key %q: %w: the template has made %d keys, its limit of %d; raise %s.max-keys, or use a key it has",
		p.name, key, ErrMaxKeys, min(count, c.max), c.max, p.path)
}

// remember records key as one that opens freely, forgetting all when they are
// more than most: the set stays bounded, and a forgotten key is looked up again.
func (c *keyCounter) remember(key string) {
	if _, loaded := c.known.LoadOrStore(key, struct{}{}); loaded {
		return
	}
	if c.n.Add(1) > c.most {
		c.known.Clear()
		c.n.Store(0)
	}
}

// classifyStoreErr returns a store's error as a generator's: a refusal of the
// store for good as it is, any other failure ErrUnavailable.
func classifyStoreErr(err error) error {
	if errors.Is(err, store.ErrExhausted) || errors.Is(err, store.ErrSealed) || errors.Is(err, store.ErrInvalidArgument) {
		return err
	}
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}
