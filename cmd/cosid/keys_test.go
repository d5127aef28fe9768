package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestKeys_ReindexFindsRedisKeysMissingFromTheIndex writes keys to Redis, drops the
// store's key index (as a version of the store without one would have left it), and
// checks that cosid keys lists them only after --reindex.
func TestKeys_ReindexFindsRedisKeysMissingFromTheIndex(t *testing.T) {
	addr := testenv.Server(t, testenv.RedisDurable)
	prefix := "clitest-" + strings.ToLower(rand.Text()[:10]) + ":"
	rc := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	defer rc.Close()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if keys, err := rc.Keys(ctx, prefix+"*").Result(); err == nil && len(keys) > 0 {
			rc.Del(ctx, keys...)
		}
	})
	st, err := redisstore.New(rc, redisstore.WithPrefix(prefix))
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range []string{"order", "bill/20261027"} {
		if _, err := st.Reserve(t.Context(), k, int64(10*(i+1)), 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := rc.Del(t.Context(), prefix+"keys").Err(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf("cosid:\n  stores:\n    r: { type: redis, addr: %q, options: { prefix: %q } }\n", addr, prefix)
	if err := os.WriteFile(filepath.Join(dir, "cosid.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, dir, "keys"); code != 0 || out != "KEY  NEXT  SEALED\n" {
		t.Fatalf("cosid keys without the index = %q (exit %d, stderr %q), want no keys", out, code, errOut)
	}
	want := "KEY            NEXT  SEALED\nbill/20261027  21    no\norder          11    no\n"
	out, errOut, code := runCLI(t, dir, "keys", "--reindex")
	if code != 0 || out != want || !strings.Contains(errOut, "reindexed: 2 keys in the index") {
		t.Fatalf("cosid keys --reindex = exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
	if out, _, _ := runCLI(t, dir, "keys"); out != want {
		t.Errorf("cosid keys after --reindex = %q, want %q: the index was not kept", out, want)
	}
}

// TestKeys_ReindexRefusesStoresWithoutAnIndex checks the error for a store that lists
// its keys as they are.
func TestKeys_ReindexRefusesStoresWithoutAnIndex(t *testing.T) {
	dir := t.TempDir()
	if out, errOut, code := runCLI(t, dir, "next", "order", "--dsn", filepath.Join(dir, "x.db")); code != 0 {
		t.Fatalf("cosid next order: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code := runCLI(t, dir, "keys", "--dsn", filepath.Join(dir, "x.db"), "--driver", "sqlite", "--reindex")
	if code == 0 || !strings.Contains(errOut, `--reindex: store "default" (type sql) keeps no key index to rebuild`) {
		t.Errorf("cosid keys --reindex on SQLite = exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
