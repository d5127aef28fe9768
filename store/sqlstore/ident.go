package sqlstore

import (
	"fmt"
	"strings"
)

// maxIdentLen is the longest part of a table name: PostgreSQL's limit, the smallest
// of the supported databases (MySQL allows 64, SQL Server 128).
const maxIdentLen = 63

// checkTableName reports whether name is a table name the store may put into SQL:
// one identifier, or a schema and an identifier joined by a dot. An identifier is an
// ASCII letter or underscore followed by up to 62 ASCII letters, digits or
// underscores. Nothing else ever reaches a statement, so quoting cannot be escaped.
func checkTableName(name string) error {
	if name == "" {
		return fmt.Errorf("table name is empty")
	}
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return fmt.Errorf("table name %q has %d dots; want table or schema.table", name, len(parts)-1)
	}
	for _, p := range parts {
		if err := checkIdent(p); err != nil {
			return fmt.Errorf("table name %q: %w", name, err)
		}
	}
	return nil
}

func checkIdent(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty identifier; want [A-Za-z_][A-Za-z0-9_]*")
	case len(s) > maxIdentLen:
		return fmt.Errorf("identifier %.20q… is %d bytes, over the limit of %d", s, len(s), maxIdentLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return fmt.Errorf("identifier %q has %q at byte %d; want [A-Za-z_][A-Za-z0-9_]*", s, c, i)
		}
	}
	return nil
}

// quoteTableName quotes each part of a table name that checkTableName accepted.
func quoteTableName(d Dialect, name string) string {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = d.QuoteIdent(p)
	}
	return strings.Join(parts, ".")
}
