package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// counter is a go-redis hook that counts the commands a client sends.
type counter struct{ n atomic.Int64 }

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}
func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// TestBadInput_RefusedBeforeRedis checks that every call with bad arguments fails
// with an error wrapping store.ErrInvalidArgument that names the argument, and sends
// Redis nothing.
func TestBadInput_RefusedBeforeRedis(t *testing.T) {
	addr := durable(t)
	client := newClient(t, addr)
	var sent counter
	client.AddHook(&sent)
	st, err := redisstore.New(client, redisstore.WithPrefix(testPrefix(t, addr)), redisstore.WithTimeout(testTimeout), redisstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	req := store.LeaseRequest{Namespace: "ns", OwnerKey: "owner", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	lease := store.Lease{Namespace: "ns", OwnerKey: "owner", Incarnation: storekit.NewIncarnation(), Slot: 1, Fence: 1}
	long := strings.Repeat("k", store.MaxKeyLen+1)
	tests := []struct {
		name, mention string
		call          func() error
	}{
		{"ReserveKeyOf256Bytes", "key", func() error { _, err := st.Reserve(ctx, long, 1, 0); return err }},
		{"ReserveKeyWithNUL", "NUL", func() error { _, err := st.Reserve(ctx, "a\x00b", 1, 0); return err }},
		{"ReserveKeyNotUTF8", "UTF-8", func() error { _, err := st.Reserve(ctx, "a\xffb", 1, 0); return err }},
		{"ReserveSizeZero", "size", func() error { _, err := st.Reserve(ctx, "k", 0, 0); return err }},
		{"ReserveOffsetNegative", "initialOffset", func() error { _, err := st.Reserve(ctx, "k", 1, -1); return err }},
		{"SealKeyWithNUL", "NUL", func() error { return st.Seal(ctx, "\x00") }},
		{"AcquireNamespaceNotUTF8", "Namespace", func() error {
			r := req
			r.Namespace = "\xff"
			_, err := st.Acquire(ctx, r)
			return err
		}},
		{"AcquireLimitOverMax", "Limit", func() error {
			r := req
			r.Limit = store.MaxSlots + 1
			_, err := st.Acquire(ctx, r)
			return err
		}},
		{"RenewTTLZero", "TTL", func() error { _, err := st.Renew(ctx, lease, 0); return err }},
		{"RenewNoIncarnation", "Incarnation", func() error {
			l := lease
			l.Incarnation = ""
			_, err := st.Renew(ctx, l, time.Minute)
			return err
		}},
		{"ReleaseSlotNegative", "Slot", func() error {
			l := lease
			l.Slot = -1
			return st.Release(ctx, l, 0)
		}},
	}
	before := sent.n.Load()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %v, want one wrapping ErrInvalidArgument that names %q", err, tc.mention)
			}
		})
	}
	if n := sent.n.Load() - before; n != 0 {
		t.Errorf("the refused calls sent Redis %d commands, want none", n)
	}
}

// TestScripts_NOSCRIPTFallback flushes the server's script cache and checks that each
// operation loads its script again (EVAL after EVALSHA's NOSCRIPT).
func TestScripts_NOSCRIPTFallback(t *testing.T) {
	addr := durable(t)
	st := openStore(t, addr, redisstore.WithPrefix(testPrefix(t, addr)))
	admin := newClient(t, addr)
	ctx := t.Context()
	if err := admin.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if r, err := st.Reserve(ctx, "noscript", 5, 3); err != nil || r != (store.Range{Start: 3, End: 8}) {
		t.Errorf("Reserve after SCRIPT FLUSH = %v, %v; want [3, 8)", r, err)
	}
	if err := admin.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	req := store.LeaseRequest{Namespace: "noscript", OwnerKey: "a", Limit: 1, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	l, err := st.Acquire(ctx, req)
	if err != nil {
		t.Fatalf("Acquire after SCRIPT FLUSH: %v", err)
	}
	admin.ScriptFlush(ctx)
	if l, err = st.Renew(ctx, l, time.Minute); err != nil {
		t.Fatalf("Renew after SCRIPT FLUSH: %v", err)
	}
	admin.ScriptFlush(ctx)
	if err := st.Release(ctx, l, l.Floor); err != nil {
		t.Fatalf("Release after SCRIPT FLUSH: %v", err)
	}
}
