package etcdstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The backoff of the compare-and-swaps of one reservation or seal. A miss brings the
// key's value with it, so the next attempt usually lands; only a key that other
// processes keep writing misses again, and then the attempts back off. The store's
// timeout bounds them: a process whose burst of reservations keeps another's
// missing ends its burst well within it.
const (
	backoffBase = time.Millisecond
	backoffMax  = 20 * time.Millisecond
)

// rangeSuffix ends the etcd key of a range key, so that no range key is ever the key
// of a namespace's rows (which end in /meta, /slots/N or /held/N).
const rangeSuffix = "/next"

// keyState is what this store knows of a range key: its value at a mod revision,
// from its last write or read, kept in the key's turn (storekit.KeyTurns).
type keyState struct {
	known  bool // the fields below are the key as of rev (rev 0: absent)
	next   int64
	sealed bool
	rev    int64
}

// learn records the key as read or written at rev; a nil value means absent.
func (k *keyState) learn(v *value, rev int64) {
	k.known, k.rev = true, rev
	if v == nil {
		k.next, k.sealed = 0, false
		return
	}
	k.next, k.sealed = v.next, v.sealed
}

// Reserve implements store.RangeStore: one transaction that writes the key's new
// next value if the key is still at the mod revision this store last saw, and
// otherwise reads it. Reservations of one key in this process take turns, so that
// only other processes' writes make a transaction miss; one that missed tries again
// with the value it read, backing off from the second miss on, within the store's
// timeout.
func (s *Store) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := storekit.CheckReserve(key, size, initialOffset); err != nil {
		return store.Range{}, fmt.Errorf("%s: reserve: %w", s.name, err)
	}
	var r store.Range
	err := s.update(ctx, key, func(k *keyState) (*value, error) {
		var err error
		if r, err = storekit.NextRange(k.rev != 0, k.sealed, k.next, size, initialOffset); err != nil {
			return nil, err
		}
		return &value{next: r.End}, nil
	})
	if err != nil {
		return store.Range{}, s.failed(ctx, fmt.Sprintf("reserve %q", key), err)
	}
	return r, nil
}

// Seal implements store.RangeStore: the key keeps its next value and is marked
// sealed, or is created sealed at 0, by the same compare-and-swap as Reserve.
func (s *Store) Seal(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: seal: %w", s.name, err)
	}
	err := s.update(ctx, key, func(k *keyState) (*value, error) {
		if k.sealed {
			return nil, nil
		}
		return &value{next: k.next, sealed: true}, nil
	})
	if err != nil {
		return s.failed(ctx, fmt.Sprintf("seal %q", key), err)
	}
	return nil
}

var _ store.GiveBacker = (*Store)(nil)

// GiveBack implements store.GiveBacker: one transaction that writes tail.Start as
// the key's next value if its value is still tail.End unsealed, compared as text
// (every writer writes the one form value.String does), and otherwise reads it. It
// runs in the key's turn, so that what this store knows of the key stays true and
// its next Reserve needs no miss to learn the lowered value.
func (s *Store) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := storekit.CheckGiveBack(key, tail); err != nil {
		return false, fmt.Errorf("%s: give back: %w", s.name, err)
	}
	what := fmt.Sprintf("give back %q", key)
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return false, s.failed(ctx, what, err)
	}
	turn, err := s.keys.Take(ctx, key)
	if err != nil {
		return false, s.failed(ctx, what, err)
	}
	defer turn.Give()
	k := &turn.State
	etcdKey := s.prefix + key + rangeSuffix
	lowered := value{next: tail.Start}
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(etcdKey), "=", value{next: tail.End}.String())).
		Then(clientv3.OpPut(etcdKey, lowered.String())).
		Else(clientv3.OpGet(etcdKey)).
		Commit()
	if err != nil {
		k.known = false // the write may have happened
		return false, s.failed(ctx, what, err)
	}
	if resp.Succeeded {
		k.learn(&lowered, resp.Header.Revision)
		return true, nil
	}
	if err := k.learnFrom(etcdKey, resp.Responses[0].GetResponseRange().GetKvs()); err != nil {
		return false, s.failed(ctx, what, err)
	}
	return false, nil
}

// update writes what change makes of key's value, with a compare-and-swap on the
// mod revision it was read at, in key's turn. change sees the key as last known (an
// unknown key is taken for absent: the miss of a key that exists brings its value)
// and returns the new value, nil for no write, or an error that ends the update.
func (s *Store) update(ctx context.Context, key string, change func(*keyState) (*value, error)) error {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return err
	}
	turn, err := s.keys.Take(ctx, key)
	if err != nil {
		return err
	}
	defer turn.Give()
	k := &turn.State
	etcdKey := s.prefix + key + rangeSuffix
	read := false // k is as read or written in this update
	backedOff, waits := false, 0
	for attempt := 1; ; attempt++ {
		if !k.known {
			k.learn(nil, 0) // a guess: the miss of a key that exists brings its value
		}
		v, err := change(k)
		if err != nil && !read {
			// Refused on the word of what this store last saw of the key: an absent
			// key may exist by now with a value that serves, and Admin.Delete may
			// have removed a sealed or exhausted one.
			if err := s.read(ctx, k, etcdKey); err != nil {
				return err
			}
			read = true
			continue
		}
		if err != nil || v == nil {
			return err
		}
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(etcdKey), "=", k.rev)).
			Then(clientv3.OpPut(etcdKey, v.String())).
			Else(clientv3.OpGet(etcdKey)).
			Commit()
		if err != nil {
			k.known = false // the write may have happened: read before the next one
			if attempt > 1 && ctx.Err() != nil {
				return fmt.Errorf("%w: %d compare-and-swaps missed: %w", ErrContention, attempt-1, err)
			}
			return err
		}
		if resp.Succeeded {
			k.learn(v, resp.Header.Revision)
			return nil
		}
		s.misses.Add(1)
		if err := k.learnFrom(etcdKey, resp.Responses[0].GetResponseRange().GetKvs()); err != nil {
			return err
		}
		read = true
		// The miss brought the key's value: try again at once. A second miss in a
		// row means other processes keep writing it: back off first, so that they
		// are not met in step again. The value read before waiting is stale after it,
		// so the try that follows the wait fetches a fresh one, and its retry is at once.
		if backedOff = attempt > 1 && !backedOff; backedOff {
			waits++
			if err := storekit.Backoff(ctx, waits, backoffBase, backoffMax); err != nil {
				return fmt.Errorf("%w: %d compare-and-swaps missed: %w", ErrContention, attempt, err)
			}
		}
	}
}

// read reads key into k.
func (s *Store) read(ctx context.Context, k *keyState, etcdKey string) error {
	resp, err := s.client.Get(ctx, etcdKey)
	if err != nil {
		k.known = false
		return err
	}
	return k.learnFrom(etcdKey, resp.Kvs)
}

// learnFrom records the key as read: kvs holds it, or nothing when it is absent.
func (k *keyState) learnFrom(etcdKey string, kvs []*mvccpb.KeyValue) error {
	if len(kvs) == 0 {
		k.learn(nil, 0)
		return nil
	}
	v, err := parseValue(kvs[0].Value)
	if err != nil {
		k.known = false
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, etcdKey, err)
	}
	k.learn(&v, kvs[0].ModRevision)
	return nil
}

// value is the value of a range key: the key's next value, and whether it is sealed.
// Its text is the decimal next value, followed by " sealed" once it is.
type value struct {
	next   int64
	sealed bool
}

const sealedSuffix = " sealed"

func (v value) String() string {
	s := strconv.FormatInt(v.next, 10)
	if v.sealed {
		s += sealedSuffix
	}
	return s
}

// parseValue reads the text of a value, refusing anything String does not write:
// signs, leading zeros, spaces, values past math.MaxInt64.
func parseValue(b []byte) (value, error) {
	s, sealed := strings.CutSuffix(string(b), sealedSuffix)
	if s == "" || len(s) > 1 && s[0] == '0' || strings.TrimLeft(s, "0123456789") != "" {
		return value{}, fmt.Errorf("value %.40q is not a next value (decimal digits, then %q once sealed)", b, sealedSuffix)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return value{}, fmt.Errorf("value %.40q: next value out of range: %w", b, err)
	}
	return value{next: n, sealed: sealed}, nil
}
