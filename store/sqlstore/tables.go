package sqlstore

import (
	"context"
	"fmt"
	"strings"
)

// tableColumns are the columns each table must have, as the schema scripts create them.
var tableColumns = []struct {
	option  string
	name    func(Tables) string
	columns string
}{
	{"rangeTable", func(t Tables) string { return t.Range }, "range_key, next_value, sealed"},
	{"slotTable", func(t Tables) string { return t.Slot },
		"namespace, slot, owner_key, incarnation, last_owner_key, fence, expires_at, floor_ms, ceiling_ms, next_floor_ms"},
	{"namespaceTable", func(t Tables) string { return t.Namespace }, "namespace, slot_limit, tolerance_ms"},
}

// checkTables checks that every table exists with its columns; with initSchema it
// first creates the missing ones.
func (s *Store) checkTables(ctx context.Context, cfg config) error {
	quoted := cfg.tables.quote(s.dialect)
	missing := s.missingTables(ctx, quoted)
	if len(missing) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: checking the tables: %w", s.name, err)
	}
	if cfg.initSchema {
		for _, stmt := range s.dialect.Schema(quoted) {
			// A failure here is reported by the check below, unless a concurrent
			// process created the same table first, which is no failure.
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				cfg.logger.Debug("sqlstore: create table", "store", s.name, "err", err)
			}
		}
		if missing = s.missingTables(ctx, quoted); len(missing) == 0 {
			cfg.logger.Info("sqlstore: created the missing tables", "store", s.name)
			return nil
		}
		return fmt.Errorf("%s: initSchema could not create the tables: %s", s.name, strings.Join(missing, "; "))
	}
	script, _ := Schema(s.dialect.Name(), cfg.tables)
	return fmt.Errorf("%s: %s; create them with the option initSchema (WithInitSchema(true)), or have a DBA run this script:\n%s",
		s.name, strings.Join(missing, "; "), script)
}

// missingTables describes each table that cannot be read with its columns.
func (s *Store) missingTables(ctx context.Context, quoted Tables) []string {
	var missing []string
	for _, tc := range tableColumns {
		rows, err := s.db.QueryContext(ctx, "select "+tc.columns+" from "+tc.name(quoted)+" where 1 = 0")
		if err == nil {
			err = rows.Close()
		}
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s %s is missing or lacks the columns (%s): %v", tc.option, tc.name(quoted), tc.columns, err))
		}
	}
	return missing
}
