package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache is a Querier over a *sql.DB that prepares each statement once and reuses
// it. Without it, go-sql-driver/mysql turns every statement with arguments into a
// prepare, an execute and a close: two round trips instead of one.
type stmtCache struct {
	db *sql.DB
	tx *sql.Tx // when set, statements run in tx

	mu    *sync.Mutex
	stmts map[string]*sql.Stmt
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, mu: new(sync.Mutex), stmts: map[string]*sql.Stmt{}}
}

// inTx returns a Querier that runs the cached statements in tx.
func (c *stmtCache) inTx(tx *sql.Tx) *stmtCache {
	cc := *c
	cc.tx = tx
	return &cc
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	st, ok := c.stmts[query]
	c.mu.Unlock()
	switch {
	case ok && c.tx != nil:
		return c.tx.StmtContext(ctx, st), nil
	case ok:
		return st, nil
	case c.tx != nil:
		// Prepared on the transaction's connection: the pool may have no other (SQLite
		// has one), and the transaction closes it.
		return c.tx.PrepareContext(ctx, query)
	}
	// Prepared outside the lock: a slow server must not hold up other statements.
	prepared, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok = c.stmts[query]; ok {
		prepared.Close()
		return st, nil
	}
	c.stmts[query] = prepared
	return prepared, nil
}

func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext reports a failed prepare through the returned Row's Scan: it runs
// the query unprepared, which fails the same way or succeeds at a round trip's cost.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		if c.tx != nil {
			return c.tx.QueryRowContext(ctx, query, args...)
		}
		return c.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// close closes the prepared statements, not the *sql.DB.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var first error
	for q, st := range c.stmts {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
		delete(c.stmts, q)
	}
	return first
}
