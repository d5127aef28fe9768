package sqlstore

import (
	"context"
	"fmt"
	"slices"
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

// checkTables checks that every table exists with its columns. With initSchema it
// first creates the missing tables, adds the missing columns to tables that an older
// script created, and creates the slot table's index when it is missing.
func (s *Store) checkTables(ctx context.Context, cfg config) error {
	quoted := cfg.tables.quote(s.dialect)
	lacking := s.readTables(ctx, quoted)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: checking the tables: %w", s.name, err)
	}
	upgrade, upgradable := s.upgradeStatements(lacking)
	if !cfg.initSchema {
		if len(lacking) == 0 {
			return nil
		}
		script, _ := Schema(s.dialect.Name(), cfg.tables)
		if upgradable && len(upgrade) > 0 {
			script += "\nand, to the tables that exist, add the missing columns:\n\n" + strings.Join(upgrade, ";\n") + ";\n"
		}
		return fmt.Errorf("%s: %s; create them with the option initSchema (WithInitSchema(true)), or have a DBA run this script:\n%s",
			s.name, describeAll(lacking), script)
	}
	if len(lacking) > 0 {
		var stmts []string
		if slices.ContainsFunc(lacking, func(t tableState) bool { return t.missing }) {
			stmts = s.dialect.Schema(quoted)
		}
		for _, stmt := range append(stmts, upgrade...) {
			// A failure here is reported by the check below, unless a concurrent
			// process made the same change first, which is no failure.
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				cfg.logger.Debug("sqlstore: initSchema", "store", s.name, "statement", stmt, "err", err)
			}
		}
		if lacking = s.readTables(ctx, quoted); len(lacking) > 0 {
			return fmt.Errorf("%s: initSchema could not create the tables: %s", s.name, describeAll(lacking))
		}
		cfg.logger.Info("sqlstore: created the missing tables and columns", "store", s.name)
	}
	if err := s.ensureIndex(ctx, cfg.tables); err != nil {
		return fmt.Errorf("%s: initSchema could not create the index of the slot table: %w", s.name, err)
	}
	return nil
}

func describeAll(lacking []tableState) string {
	d := make([]string, len(lacking))
	for i, t := range lacking {
		d[i] = t.describe()
	}
	return strings.Join(d, "; ")
}
