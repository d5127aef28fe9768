package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
)

// fromTableFlags are the flags of a migration from the SQL table of Leaf or tinyid
// into the keys of one keyed segment generator.
type fromTableFlags struct {
	target    adminFlags // --config, --store
	dsn       string
	driver    string
	timeout   time.Duration
	table     string
	generator string
	dryRun    bool
	force     bool

	stride, residue int64 // of the generator, once keyedTemplate read it: 1 and 0 without stride
}

func (f *fromTableFlags) register(cmd *cobra.Command, system, table string) {
	fl := cmd.Flags()
	fl.StringVarP(&f.target.config, "config", "c", defaultConfig, "the configuration whose store receives the keys")
	fl.StringVar(&f.target.store, "store", "", "the configuration's store to raise (default: the generator's store)")
	fl.StringVar(&f.dsn, "from-dsn", "", "the "+system+" database that holds the table "+table)
	fl.StringVar(&f.driver, "from-driver", "", "the database/sql driver of --from-dsn: pgx or mysql (default: from the DSN)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long a database call may take")
	fl.StringVar(&f.table, "table", table, "the "+system+" table")
	fl.StringVar(&f.generator, "generator", "", "the keyed segment generator whose keys take the rows (required)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what a run would do, change nothing")
	fl.BoolVar(&f.force, "force", false, "raise keys that CosId already used below "+system+"'s value (their ids exist twice already)")
}

// keyedTemplate returns the key prefix {namespace}/{generator}/ of f's generator,
// which must be a keyed segment generator of cfg, and the store it names.
func (f *fromTableFlags) keyedTemplate(cfg cosid.Config) (prefix, storeName string, err error) {
	gc, ok := cfg.Generators[f.generator]
	switch {
	case f.generator == "":
		return "", "", fmt.Errorf("--generator is required: the keyed segment generator whose keys take the rows")
	case !ok:
		_, err := cfg.Codec(f.generator) // the library's words for an unknown name, with a "did you mean"
		return "", "", fmt.Errorf("--generator: %w", err)
	case gc.Strategy != cosid.StrategySegment || !gc.Keyed:
		return "", "", fmt.Errorf("--generator %q is a %s generator%s; want a keyed segment generator (strategy: segment, keyed: true), "+
			"whose key per row continues the row's sequence", f.generator, gc.Strategy, map[bool]string{true: " (keyed)", false: ""}[gc.Keyed])
	}
	f.stride, f.residue = 1, 0
	if gc.Stride != nil {
		f.stride = *gc.Stride
	}
	if gc.Residue != nil {
		f.residue = *gc.Residue
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	return ns + "/" + f.generator + "/", gc.Store, nil
}

// run opens the target and the source, reads the rows with read, and raises their keys.
func (f *fromTableFlags) run(cmd *cobra.Command, system string, read func(ctx context.Context, db *sql.DB, prefix string) ([]segment4x, []string, error)) error {
	if f.dsn == "" {
		return fmt.Errorf("--from-dsn is required: the %s database", system)
	}
	if !tableName.MatchString(f.table) {
		return fmt.Errorf("--table %q: want a table name such as %s or db.%[2]s", f.table, cmd.Flag("table").DefValue)
	}
	cfg, err := f.target.configuration(cmd)
	if err != nil {
		return err
	}
	prefix, storeName, err := f.keyedTemplate(cfg)
	if err != nil {
		return err
	}
	if f.target.store == "" {
		f.target.store = storeName
	}
	driver := f.driver
	if driver == "" {
		if driver, err = inferDriver(f.dsn); err != nil {
			return fmt.Errorf("--from-dsn: %w", err)
		}
	}
	db, err := openSource(driver, f.dsn)
	if err != nil {
		return fmt.Errorf("%s database: %w", system, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	segments, notes, err := read(ctx, db, prefix)
	cancel()
	if err != nil {
		return fmt.Errorf("%s table %s: %w", system, f.table, err)
	}
	a, _, err := f.target.open(cmd.Context(), cmd, warnLogger(cmd))
	if err != nil {
		return err
	}
	defer a.Close()
	out := cmd.OutOrStdout()
	for _, n := range notes {
		fmt.Fprintln(out, "note:", n)
	}
	m := &migration{st: a, system: system, out: out, dryRun: f.dryRun, force: f.force,
		offsets: initialOffsets(cfg), strides: idStrides(cfg), segments: segments}
	return m.apply(cmd.Context())
}

// fromLeafCommand is cosid migrate from-leaf.
func fromLeafCommand() *cobra.Command {
	var f fromTableFlags
	cmd := &cobra.Command{
		Use:   "from-leaf",
		Short: "Raise the keys of a keyed generator above the segments of Meituan Leaf",
		Long: `Read Leaf's table leaf_alloc (--from-dsn, --table) and raise, for each row, the
key {namespace}/{generator}/{biz_tag} of the keyed segment generator --generator to
max_id + 1. Leaf hands out the ids below a row's max_id, so no id is handed out twice
across the switch; cosid serve's Leaf routes (serve.leaf) then answer Leaf's clients
from that generator.

Stop the Leaf servers, migrate, then start cosid serve. A key that CosId already used
(past its initial offset) below Leaf's max_id means both systems handed out the same
ids: migrate names each such key and changes nothing, unless --force. A key is only
ever raised, so a second run changes nothing; --dry-run prints what a run would do.
A biz_tag that is not a key (docs/keyed.md) is skipped with the reason.`,
		Example: `  cosid migrate from-leaf --from-dsn 'leaf:pw@tcp(db:3306)/leaf' --generator leaf --dry-run`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, "Leaf", func(ctx context.Context, db *sql.DB, prefix string) ([]segment4x, []string, error) {
				return readRows(ctx, db, "select biz_tag, max_id from "+f.table+" order by biz_tag", f.table, prefix, nil)
			})
		},
	}
	f.register(cmd, "Leaf", "leaf_alloc")
	return cmd
}

// fromTinyidCommand is cosid migrate from-tinyid.
func fromTinyidCommand() *cobra.Command {
	var f fromTableFlags
	cmd := &cobra.Command{
		Use:   "from-tinyid",
		Short: "Raise the keys of a keyed generator above the segments of Didi tinyid",
		Long: `Read tinyid's table tiny_id_info (--from-dsn, --table) and raise, for each row, the
key {namespace}/{generator}/{biz_type} of the keyed segment generator --generator to
max_id + 1. tinyid hands out ids up to a row's max_id, so no id is handed out twice
across the switch; cosid serve's tinyid routes (serve.tinyid) then answer tinyid's
clients from that generator.

A row whose delta is above 1 hands out only the ids ≡ remainder (mod delta), and a
tinyid of several databases keeps a row of the biz_type in each, with another
remainder. A generator with stride and residue (docs/regions.md) is that class: its
key is raised to the least value whose id, value·stride + residue, is above max_id,
so a region whose generator has a database's delta and remainder as its stride and
residue goes on with that database's ids. A row whose delta and remainder differ
from the generator's is named: migrate every database of such a biz_type into the
same store, since a key is only ever raised and ends above the highest max_id.

Stop the tinyid servers, migrate, then start cosid serve. A key that CosId already
used (past its initial offset) below tinyid's max_id means both systems handed out
the same ids: migrate names each such key and changes nothing, unless --force.
--dry-run prints what a run would do.`,
		Example: `  cosid migrate from-tinyid --from-dsn 'tinyid:pw@tcp(db:3306)/tinyid' --generator tinyid --dry-run`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, "tinyid", func(ctx context.Context, db *sql.DB, prefix string) ([]segment4x, []string, error) {
				return readRows(ctx, db, "select biz_type, max_id, delta, remainder from "+f.table+" order by biz_type", f.table, prefix,
					func(tag string, delta, remainder int64) string {
						if delta == f.stride && remainder == f.residue || delta <= 1 && remainder == 0 && f.stride == 1 {
							return ""
						}
						if f.stride == 1 {
							return fmt.Sprintf("%s has delta %d and remainder %d: generator %s hands out every id above its max_id, "+
								"so migrate each tinyid database of %[1]s into this store, or give the generator stride: %[2]d and residue: %[3]d", tag, delta, remainder, f.generator)
						}
						return fmt.Sprintf("%s has delta %d and remainder %d, and generator %s hands out the ids ≡ %d (mod %d): "+
							"its ids go on above max_id in its own class, not in tinyid's", tag, delta, remainder, f.generator, f.residue, f.stride)
					})
			})
		},
	}
	f.register(cmd, "tinyid", "tiny_id_info")
	return cmd
}

// readRows reads the rows of query, a tag and its max_id (and, when note is set, a
// delta and a remainder, which note turns into a line for the operator), as the
// segments whose keys are prefix + tag, at max_id + 1.
func readRows(ctx context.Context, db *sql.DB, query, table, prefix string, note func(tag string, delta, remainder int64) string) ([]segment4x, []string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var (
		segments []segment4x
		notes    []string
	)
	for rows.Next() {
		var (
			tag              string
			maxID            int64
			delta, remainder int64
		)
		dest := []any{&tag, &maxID}
		if note != nil {
			dest = append(dest, &delta, &remainder)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		s := segment4x{source: fmt.Sprintf("row %q of table %s", tag, table), key: prefix + tag,
			lastMax: strconv.FormatInt(maxID, 10)}
		if err := cosid.CheckKey(tag); err != nil {
			s.key, s.reason = "", fmt.Sprintf("%v; a key of %s/{key} takes no other", err, prefix[:len(prefix)-1])
		} else if note != nil {
			if n := note(tag, delta, remainder); n != "" {
				notes = append(notes, n)
			}
		}
		segments = append(segments, s)
	}
	return segments, notes, rows.Err()
}
