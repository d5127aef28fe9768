package sqlstore

import (
	"context"
	"fmt"
	"strings"
)

// upgrader is what initSchema needs to bring tables that an older script created
// (CosId 5.0.0-alpha.1's, without the slot table's last_owner index, or earlier
// ones, without some columns) up to the schema script: the built-in dialects have
// it; a registered dialect without it gets its missing tables created, and an
// error for a table that lacks columns.
type upgrader interface {
	// addColumn returns the statement that adds to the quoted table the column def,
	// its name and definition as the schema script writes them.
	addColumn(table, def string) string
	// lastOwnerIndex returns a query, with its arguments, that counts the slot
	// table's last_owner indexes, and the statement that creates the index. quoted
	// holds the quoted names of t.
	lastOwnerIndex(t, quoted Tables) (count string, args []any, create string)
}

// columnDef is a column of a schema script's create table.
type columnDef struct {
	name, def string // def: the whole definition, name included
}

// addable reports whether a column can be added to a table that has rows: it has a
// default or may be NULL.
func (c columnDef) addable() bool {
	return strings.Contains(c.def, " default ") || !strings.Contains(c.def, "not null")
}

// columnDefs returns the columns of the quoted table in the dialect's schema script,
// read from its create table: one column a line, as the scripts write them.
func columnDefs(d Dialect, quoted Tables, table string) []columnDef {
	var cols []columnDef
	for _, stmt := range d.Schema(quoted) {
		_, body, ok := strings.Cut(stmt, " "+table+" (")
		if !ok || !strings.Contains(stmt, "create table ") {
			continue
		}
		for line := range strings.SplitSeq(body, "\n") {
			line = strings.Join(strings.Fields(strings.TrimSuffix(strings.TrimSpace(line), ",")), " ")
			name, _, _ := strings.Cut(line, " ")
			switch name {
			case "", ")", "--", "primary", "key", "index":
				continue
			}
			cols = append(cols, columnDef{name, line})
		}
	}
	return cols
}

// schemaCreateIndex returns the create index statement of the dialect's schema
// script, for the dialects that create the index in its own statement.
func schemaCreateIndex(d Dialect, quoted Tables) string {
	for _, stmt := range d.Schema(quoted) {
		if strings.HasPrefix(stmt, "create index ") {
			return stmt
		}
	}
	return ""
}

// tableState is what a table lacks: all of it, or some columns.
type tableState struct {
	option, table string // table quoted
	missing       bool   // the table cannot be read at all
	columns       []columnDef
	err           error // the error of the read of every column
}

// readTables reads each table with its columns and returns those that lack any.
func (s *Store) readTables(ctx context.Context, quoted Tables) []tableState {
	var lacking []tableState
	for _, tc := range tableColumns {
		table := tc.name(quoted)
		err := s.probe(ctx, tc.columns, table)
		if err == nil {
			continue
		}
		st := tableState{option: tc.option, table: table, err: err}
		if s.probe(ctx, "1", table) != nil {
			st.missing = true
		} else {
			for _, c := range columnDefs(s.dialect, quoted, table) {
				if s.probe(ctx, c.name, table) != nil {
					st.columns = append(st.columns, c)
				}
			}
		}
		lacking = append(lacking, st)
	}
	return lacking
}

// probe reads the columns of table, and no row.
func (s *Store) probe(ctx context.Context, columns, table string) error {
	rows, err := s.db.QueryContext(ctx, "select "+columns+" from "+table+" where 1 = 0")
	if err == nil {
		err = rows.Close()
	}
	return err
}

// upgradeStatements returns the statements that add the missing columns of the
// tables that exist, when the dialect can add them all.
func (s *Store) upgradeStatements(lacking []tableState) ([]string, bool) {
	u, ok := s.dialect.(upgrader)
	var stmts []string
	for _, st := range lacking {
		if st.missing {
			continue
		}
		if len(st.columns) == 0 { // lacks a column the script does not name: not ours to fix
			return nil, false
		}
		for _, c := range st.columns {
			if !ok || !c.addable() {
				return nil, false
			}
			stmts = append(stmts, u.addColumn(st.table, c.def))
		}
	}
	return stmts, true
}

// ensureIndex creates the slot table's last_owner index when it is missing, and
// reports the statement that failed to.
func (s *Store) ensureIndex(ctx context.Context, t Tables) error {
	u, ok := s.dialect.(upgrader)
	if !ok {
		return nil
	}
	count, args, create := u.lastOwnerIndex(t, t.quote(s.dialect))
	var n int
	if err := s.db.QueryRowContext(ctx, count, args...).Scan(&n); err != nil {
		return fmt.Errorf("looking up the index last_owner of %s: %w", t.Slot, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, create); err != nil {
		// A concurrent process may have created it first.
		if s.db.QueryRowContext(ctx, count, args...).Scan(&n) == nil && n > 0 {
			return nil
		}
		return fmt.Errorf("%s: %w", create, err)
	}
	return nil
}

// describe says what a table lacks, for the errors of checkTables.
func (st tableState) describe() string {
	if st.missing || len(st.columns) == 0 {
		return fmt.Sprintf("%s %s is missing or cannot be read: %v", st.option, st.table, st.err)
	}
	names := make([]string, len(st.columns))
	for i, c := range st.columns {
		names[i] = c.name
	}
	return fmt.Sprintf("%s %s lacks the columns %s", st.option, st.table, strings.Join(names, ", "))
}

// unquote returns an identifier that QuoteIdent quoted, without its quotes.
func unquote(quoted string) string { return quoted[1 : len(quoted)-1] }

var (
	_ upgrader = postgresDialect{}
	_ upgrader = mysqlDialect{}
	_ upgrader = sqlserverDialect{}
	_ upgrader = sqliteDialect{}
)
