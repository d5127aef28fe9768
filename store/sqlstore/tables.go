package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cosid-go/cosid/store"
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
		return s.notSetUp(cfg, lacking, upgradable && len(upgrade) > 0)
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

// notSetUp is the error of tables that are missing or lack columns, when the store
// may not create them: short, since callers see it on every try, and naming the
// setting that creates them (the YAML one when the store was opened from a
// configuration) and the script's source. The script itself is logged once, at
// Info, for the DBA.
func (s *Store) notSetUp(cfg config, lacking []tableState, upgrade bool) error {
	d := s.dialect.Name()
	fix := fmt.Sprintf("create them with the option WithInitSchema(true), or have a DBA run the script of sqlstore.Schema(%q, …)", d)
	if cfg.settings != "" {
		flags := ""
		def := DefaultTables()
		for _, f := range []struct{ flag, name, def string }{
			{"range-table", cfg.tables.Range, def.Range}, {"slot-table", cfg.tables.Slot, def.Slot},
			{"namespace-table", cfg.tables.Namespace, def.Namespace},
		} {
			if f.name != f.def {
				flags += " --" + f.flag + " " + f.name
			}
		}
		fix = fmt.Sprintf("create them with options: { initSchema: true } in %s, or have a DBA run the script of `cosid schema --dialect %s%s`", cfg.settings, d, flags)
	}
	if upgrade {
		fix += " and the statements that add the missing columns (logged at Info)"
	}
	script, _ := Schema(d, cfg.tables)
	if up, ok := s.upgradeStatements(lacking); ok && len(up) > 0 {
		script += "\nand, to the tables that exist, add the missing columns:\n\n" + strings.Join(up, ";\n") + ";\n"
	}
	cfg.logger.Info("sqlstore: tables missing; the script that creates them", "store", s.name, "script", script)
	return fmt.Errorf("%s: %w: %s; %s", s.name, store.ErrNotSetUp, describeAll(lacking), fix)
}
