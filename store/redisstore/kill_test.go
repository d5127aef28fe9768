package redisstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

// TestReserve_ConnectionKilledMidScript holds a reservation's script in the server
// (CLIENT PAUSE WRITE, on a server of the test's own), kills its connection with
// CLIENT KILL, and checks that the reservation fails with no range, and that the
// next one works without overlap. The client does not retry, so the kill reaches the
// caller.
func TestReserve_ConnectionKilledMidScript(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	admin := newClient(t, srv.addr)
	victim := newClient(t, srv.addr, func(o *redis.Options) { o.MaxRetries = -1; o.ClientName = "cosid-victim" })
	st, err := redisstore.New(victim, redisstore.WithTimeout(testTimeout))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	const key = "killed"
	first, err := st.Reserve(ctx, key, 10, 0)
	if err != nil {
		t.Fatal(err)
	}

	if err := admin.Do(ctx, "CLIENT", "PAUSE", 60_000, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	defer admin.Do(context.Background(), "CLIENT", "UNPAUSE")
	type result struct {
		r   store.Range
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := st.Reserve(ctx, key, 10, 0)
		done <- result{r, err}
	}()
	var id string
	for id == "" { // until the script waits in the server
		list, err := admin.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(list, "\n") {
			if strings.Contains(line, "name=cosid-victim") && strings.Contains(line, "cmd=evalsha") {
				id = field(line, "id")
			}
		}
	}
	if err := admin.Do(ctx, "CLIENT", "KILL", "ID", id).Err(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err == nil || res.r != (store.Range{}) {
		t.Fatalf("reservation on a killed connection = %v, %v; want an error and no range", res.r, res.err)
	}
	t.Logf("killed reservation: %v", res.err)
	if err := admin.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	next, err := st.Reserve(ctx, key, 10, 0)
	if err != nil {
		t.Fatalf("reservation after the kill: %v", err)
	}
	if next.Start < first.End {
		t.Errorf("reservation after the kill %v overlaps %v", next, first)
	}
}

// field returns the value of name in a line of CLIENT LIST.
func field(line, name string) string {
	for f := range strings.FieldsSeq(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}
