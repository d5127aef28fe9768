package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/cosid-go/cosid"
)

// access is what an operator's command may do to the store it opens.
type access int

const (
	// mayCreate opens the store as the runtime does: a new SQLite file and missing
	// tables are created (purge, migrate).
	mayCreate access = iota
	// mustExist writes to a store that exists, and creates no file and no table
	// (seal).
	mustExist
	// readOnly reads a store that exists, and writes nothing (keys, slots).
	readOnly
)

// existingStore returns sc, a store of cfg, opened so as to create nothing: an SQL
// store without initSchema and, for SQLite, on a file that must exist, opened
// read-only (readOnly) or without creating it (mustExist). A command in the wrong
// folder, or a mistyped --dsn, then fails naming the file or the tables it lacks,
// instead of answering from an empty store it has just made.
func existingStore(cfg cosid.Config, sc cosid.StoreConfig, a access) (cosid.StoreConfig, error) {
	if a == mayCreate || sc.Type != "sql" {
		return sc, nil
	}
	settings := maps.Clone(sc.Settings)
	options := map[string]any{}
	if o, ok := settings["options"].(map[string]any); ok {
		options = maps.Clone(o)
	}
	options["initSchema"] = false
	settings["options"] = options
	sc.Settings = settings
	if settings["driver"] != "sqlite" {
		return sc, nil
	}
	dsn, ok := settings["dsn"].(string)
	if !ok {
		file, _ := settings["dsn-file"].(string)
		b, err := os.ReadFile(inDir(cfg.Dir, file))
		if err != nil {
			return sc, fmt.Errorf("dsn-file: %w", err)
		}
		dsn = strings.TrimSpace(string(b))
		delete(settings, "dsn-file")
	}
	name, query := sqliteName(dsn)
	if name == "" || strings.HasPrefix(name, ":memory:") || strings.Contains(query, "mode=memory") {
		return sc, nil
	}
	path, err := filepath.Abs(inDir(cfg.Dir, name))
	if err != nil {
		return sc, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return sc, fmt.Errorf("the SQLite file %s does not exist; this command reads a store and creates none: run it where the store is, or point --config or --dsn at it", path)
	} else if err != nil {
		return sc, fmt.Errorf("the SQLite file %s: %w", path, err)
	}
	mode := "mode=rw"
	if a == readOnly {
		mode = "mode=ro"
	}
	params := []string{mode}
	for p := range strings.SplitSeq(query, "&") {
		if p != "" && !strings.HasPrefix(p, "mode=") {
			params = append(params, p)
		}
	}
	settings["dsn"] = "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + strings.Join(params, "&")
	return sc, nil
}

// sqliteName splits a modernc.org/sqlite DSN into its file name and its query.
func sqliteName(dsn string) (name, query string) {
	rest, isURI := strings.CutPrefix(dsn, "file:")
	if !isURI {
		name, query, _ = strings.Cut(dsn, "?")
		return name, query
	}
	rest, _, _ = strings.Cut(rest, "#")
	name, query, _ = strings.Cut(rest, "?")
	if after, ok := strings.CutPrefix(name, "//"); ok { // file://host/path
		_, name, _ = strings.Cut(after, "/")
		name = "/" + name
	}
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	return name, query
}

// inDir is name read from dir, when it is relative.
func inDir(dir, name string) string {
	if dir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}
