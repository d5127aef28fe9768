package etcdstore

import (
	"context"
	"fmt"
	"github.com/cosid-go/cosid/store/storekit"
	"slices"
	"strings"
	"unicode/utf8"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
)

var _ store.Admin = (*Store)(nil)

// maxTxnOps bounds the operations of one transaction: etcd refuses more than its
// --max-txn-ops, 128 by default.
const maxTxnOps = 64

// Keys implements store.Admin. etcd orders the keys {prefix}{key}/next, which puts a
// key after those of its extensions that continue it with a byte below '/' (and with
// some that continue it with '/'): "a!/next" sorts before "a/next". Keys therefore
// reads etcd's range from after in pages, at one revision, until it holds limit keys,
// and then looks up, in one transaction, the keys that may sort before them by
// bytes but after them in etcd: only prefixes of the last key read can. What it holds
// then is every key up to some key in byte order; it returns the first limit of
// them, sorted.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("%s: keys: %w", s.name, err)
	}
	keys, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) ([]store.KeyInfo, error) {
		return s.listKeys(ctx, prefix, after, limit)
	})
	if err != nil {
		return nil, s.failed(ctx, fmt.Sprintf("keys under %q after %q", prefix, after), err)
	}
	return keys, nil
}

// listing is one call of Keys: the range keys it found, by key.
type listing struct {
	s             *Store
	prefix, after string
	found         map[string]store.KeyInfo
}

func (s *Store) listKeys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	l := &listing{s: s, prefix: prefix, after: after, found: map[string]store.KeyInfo{}}
	// Every key that starts with prefix and sorts after after has an etcd key in
	// [from, end): it starts with prefix, and either starts with after or differs
	// from it by a greater byte.
	from, end := s.prefix+max(prefix, after), clientv3.GetPrefixRangeEnd(s.prefix+prefix)
	var rev int64
	// Keys of namespaces may lie between range keys: each read takes twice as many
	// etcd keys as the one before, so that skipping them takes few round trips.
	for batch := limit; from < end; batch = min(2*batch, store.MaxPage) {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(int64(batch))}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := s.client.Get(ctx, from, opts...)
		if err != nil {
			return nil, err
		}
		rev = resp.Header.Revision
		for _, kv := range resp.Kvs {
			if err := l.add(kv); err != nil {
				return nil, err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		last := string(resp.Kvs[len(resp.Kvs)-1].Key)
		if len(l.found) >= limit {
			if err := l.addAncestors(ctx, last, rev); err != nil {
				return nil, err
			}
			break
		}
		from = last + "\x00"
	}
	keys := make([]store.KeyInfo, 0, len(l.found))
	for _, k := range l.found {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b store.KeyInfo) int { return strings.Compare(a.Key, b.Key) })
	return keys[:min(limit, len(keys))], nil
}

// add records kv when it is a range key of the listing.
func (l *listing) add(kv *mvccpb.KeyValue) error {
	key, ok := strings.CutSuffix(strings.TrimPrefix(string(kv.Key), l.s.prefix), rangeSuffix)
	if !ok || !l.wants(key) {
		return nil
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, kv.Key, err)
	}
	v, err := parseValue(kv.Value)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, kv.Key, err)
	}
	l.found[key] = store.KeyInfo{Key: key, Next: v.next, Sealed: v.sealed}
	return nil
}

func (l *listing) wants(key string) bool { return strings.HasPrefix(key, l.prefix) && key > l.after }

// addAncestors looks up the keys that sort before a key read by bytes but whose etcd
// keys lie past last, the end of what was read. Such a key is a prefix of the key
// it sorts before, and its etcd key lies past last while the other's does not, so it
// is a prefix of last: one transaction asks for those of them at revision rev.
func (l *listing) addAncestors(ctx context.Context, last string, rev int64) error {
	rest := strings.TrimPrefix(last, l.s.prefix)
	var ops []clientv3.Op
	for i := 1; i < len(rest); i++ {
		key := rest[:i]
		etcdKey := l.s.prefix + key + rangeSuffix
		if etcdKey > last && l.wants(key) && utf8.ValidString(key) && store.CheckKey(key) == nil {
			ops = append(ops, clientv3.OpGet(etcdKey, clientv3.WithRev(rev)))
		}
	}
	for len(ops) > 0 {
		n := min(len(ops), maxTxnOps)
		resp, err := l.s.client.Txn(ctx).Then(ops[:n]...).Commit()
		if err != nil {
			return fmt.Errorf("reading the keys that %q continues: %w", rest, err)
		}
		for _, r := range resp.Responses {
			for _, kv := range r.GetResponseRange().GetKvs() {
				if err := l.add(kv); err != nil {
					return err
				}
			}
		}
		ops = ops[n:]
	}
	return nil
}

// RaiseTo implements store.Admin: it reads the key, and when its next value lies
// below next, writes next with a compare-and-swap on the mod revision it read (or
// on its absence, creating it), reading again on a miss. It never trusts what the
// store remembers of the key: a raise that writes nothing answers with a fresh read.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("%s: raise: %w", s.name, err)
	}
	r, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.Raised, error) {
		return s.raise(ctx, key, next)
	})
	if err != nil {
		return store.Raised{}, s.failed(ctx, fmt.Sprintf("raise %q to %d", key, next), err)
	}
	return r, nil
}

func (s *Store) raise(ctx context.Context, key string, next int64) (store.Raised, error) {
	etcdKey := s.prefix + key + rangeSuffix
	k := &keyState{}
	if err := s.read(ctx, k, etcdKey); err != nil {
		return store.Raised{}, err
	}
	for misses := 0; ; misses++ {
		r := store.Raised{Key: key, Before: k.next, After: next, Sealed: k.sealed}
		switch {
		case k.rev == 0:
			r = store.Raised{Key: key, After: next, Created: true}
		case k.next >= next:
			r.After = k.next
			return r, nil
		}
		resp, err := s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(etcdKey), "=", k.rev)).
			Then(clientv3.OpPut(etcdKey, value{next: next, sealed: k.sealed}.String())).
			Else(clientv3.OpGet(etcdKey)).
			Commit()
		if err != nil {
			return store.Raised{}, err
		}
		if resp.Succeeded {
			return r, nil
		}
		if err := k.learnFrom(etcdKey, resp.Responses[0].GetResponseRange().GetKvs()); err != nil {
			return store.Raised{}, err
		}
		if misses > 0 {
			if err := storekit.Backoff(ctx, misses, backoffBase, backoffMax); err != nil {
				return store.Raised{}, fmt.Errorf("%w: %d compare-and-swaps missed: %w", ErrContention, misses+1, err)
			}
		}
	}
}

// Delete implements store.Admin. A store that reserved the key before finds it gone
// at its next compare-and-swap.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: delete: %w", s.name, err)
	}
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err == nil {
		_, err = s.client.Delete(ctx, s.prefix+key+rangeSuffix)
	}
	if err != nil {
		return s.failed(ctx, fmt.Sprintf("delete %q", key), err)
	}
	return nil
}
