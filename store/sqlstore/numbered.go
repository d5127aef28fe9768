package sqlstore

import (
	"context"
	"database/sql"
	"errors"
)

// numbered runs range statements whose placeholders are numbered ($1, ?1, @p1), so
// that every statement of a method takes the same arguments in the same order:
//
//	reserve (key, size, created)   advance (key, size)   read (key)
//	insert  (key, next)            seal    (key)          giveBack (key, start, end)
type numbered struct {
	reserve, advance, read, insert, seal, giveBack string
	// keyArg is the key as the driver is to send it; nil sends the string.
	keyArg func(string) any
}

func (n numbered) key(k string) any {
	if n.keyArg == nil {
		return k
	}
	return n.keyArg(k)
}

func (n numbered) Reserve(ctx context.Context, q Querier, key string, size, created int64) (int64, bool, error) {
	var next int64
	found, err := queryToEnd(ctx, q, n.reserve, []any{n.key(key), size, created}, &next)
	return next, found, err
}

// queryToEnd scans the first row of a statement that writes into dest and steps the
// statement to its end, reporting whether there was a row. sql.Row would stop at
// the first row and reset the statement: SQLite then commits without running its
// write-ahead log's hook, which runs the automatic checkpoint, and the log grows by
// every reservation for as long as the process runs.
func queryToEnd(ctx context.Context, q Querier, query string, args []any, dest ...any) (bool, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	if found {
		if err := rows.Scan(dest...); err != nil {
			return false, err
		}
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	return found, rows.Close()
}

func (n numbered) Advance(ctx context.Context, q Querier, key string, size int64) (bool, error) {
	return execOne(ctx, q, n.advance, n.key(key), size)
}

func (n numbered) Read(ctx context.Context, q Querier, key string) (int64, bool, bool, error) {
	return readRow(ctx, q, n.read, n.key(key))
}

func (n numbered) Insert(ctx context.Context, q Querier, key string, next int64) error {
	_, err := q.ExecContext(ctx, n.insert, n.key(key), next)
	return err
}

func (n numbered) Seal(ctx context.Context, q Querier, key string) error {
	_, err := q.ExecContext(ctx, n.seal, n.key(key))
	return err
}

func (n numbered) GiveBack(ctx context.Context, q Querier, key string, start, end int64) (bool, error) {
	return execOne(ctx, q, n.giveBack, n.key(key), start, end)
}

// execOne runs an update and reports whether it changed a row.
func execOne(ctx context.Context, q Querier, query string, args ...any) (bool, error) {
	res, err := q.ExecContext(ctx, query, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// readRow reads next_value and sealed of a key with query.
func readRow(ctx context.Context, q Querier, query string, args ...any) (next int64, sealed, found bool, err error) {
	err = q.QueryRowContext(ctx, query, args...).Scan(&next, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, false, nil
	}
	return next, sealed, err == nil, err
}
