package sqlstore

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// The schema scripts, one per dialect (MySQL and MariaDB share one), as templates of
// the quoted table names.
//
//go:embed schema/*.sql
var schemaFS embed.FS

var schemaTemplates = template.Must(template.ParseFS(schemaFS, "schema/*.sql"))

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
