package sqlstore

import (
	"embed"
	"fmt"
	"hash/fnv"
	"strings"
	"text/template"
)

// The schema scripts, one per dialect (MySQL and MariaDB share one), as templates of
// the quoted table names, with the functions of schemaFuncs.
//
//go:embed schema/*.sql
var schemaFS embed.FS

var schemaTemplates = template.Must(template.New("").Funcs(schemaFuncs).ParseFS(schemaFS, "schema/*.sql"))

// schemaFuncs take a quoted table name, schema-qualified or not: schema returns its
// quoted schema with the dot ("" for none), table the quoted name without it, and
// indexName the quoted name of an index of the table given a suffix.
var schemaFuncs = template.FuncMap{
	"schema":    func(table string) string { return table[:strings.LastIndex(table, ".")+1] },
	"table":     func(table string) string { return table[strings.LastIndex(table, ".")+1:] },
	"indexName": indexName,
}

// indexName returns the quoted name of the index suffix of the quoted table, without
// the schema: the table's name and the suffix. Two tables of one schema have two
// names, and so do their indexes, as PostgreSQL and SQLite need, whose index names
// are their schema's. A name longer than maxIdentLen keeps its first bytes and a hash
// of all of it, where the database would cut it short and might make two alike.
func indexName(table, suffix string) string {
	quoted := table[strings.LastIndex(table, ".")+1:]
	open, close := quoted[:1], quoted[len(quoted)-1:]
	name := quoted[1:len(quoted)-1] + "_" + suffix
	if len(name) > maxIdentLen {
		h := fnv.New32a()
		h.Write([]byte(name))
		hash := fmt.Sprintf("_%08x", h.Sum32())
		name = name[:maxIdentLen-len(hash)] + hash
	}
	return open + name + close
}

// schemaStatements renders the script file for the quoted tables t and splits it into
// statements.
func schemaStatements(file string, t Tables) []string {
	var b strings.Builder
	if err := schemaTemplates.ExecuteTemplate(&b, file, t); err != nil {
		panic(fmt.Sprintf("sqlstore: schema %s: %v", file, err)) // the embedded templates are fixed
	}
	var stmts []string
	for _, s := range strings.Split(b.String(), ";\n") {
		if s = strings.TrimSpace(stripComments(s)); s != "" {
			stmts = append(stmts, s)
		}
	}
	return stmts
}

// stripComments drops the lines of s that are only a -- comment.
func stripComments(s string) string {
	lines := strings.Split(s, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// Schema returns the script that creates the store's tables in the named dialect,
// for a DBA to run when the store may not create them itself (WithInitSchema(false),
// the default). Empty fields of t take the default names. The script only creates
// tables that do not exist yet.
func Schema(dialect string, t Tables) (string, error) {
	d, ok := lookupDialect(dialect)
	if !ok {
		return "", fmt.Errorf("sqlstore: dialect %q is unknown; want one of %s", dialect, strings.Join(Dialects(), ", "))
	}
	t = t.withDefaults()
	if err := t.check(); err != nil {
		return "", fmt.Errorf("sqlstore: %w", err)
	}
	return strings.Join(d.Schema(t.quote(d)), ";\n\n") + ";\n", nil
}
