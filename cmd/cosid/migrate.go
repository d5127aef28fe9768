package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

func migrateCommand() *cobra.Command {
	return groupCommand("migrate", "Move data from other id generators into a CosId store",
		from4xCommand(), fromLeafCommand(), fromTinyidCommand())
}

func from4xCommand() *cobra.Command {
	var (
		target adminFlags // --config, --store
		source adminFlags // --from-dsn, --driver, --timeout
		oldDSN string     // --dsn, the old name of --from-dsn
		table  string
		mtable string
		redisA string
		dryRun bool
		force  bool
	)
	cmd := &cobra.Command{
		Use:   "from-4x",
		Short: "Raise the keys of a CosId store above the segments of CosId 4.x",
		Long: `Read the segments of CosId 4.x and raise each to the same key of the store, so
that no id is handed out twice across the switch: the JDBC table cosid (--from-dsn,
--driver, --table), whose rows {namespace}.{name} with last_max_id become the key
{namespace}/{name} at last_max_id + 1, and a 4.x grouped row {namespace}.{name}@{group}
the periodic key {namespace}/{name}/{group}; and the Redis keys
cosid:{namespace.name}.adder (--redis), the same way (the braces are 4.x's Redis
Cluster hash tag; the brace-less cosid:namespace.name.adder is read too). The 4.x
machines (the table cosid_machine, the Redis hashes cosid:{namespace}:itc_idx and
:revert) raise the slot floors of the configuration's Snowflake generators.

Stop the 4.x services, migrate, then start the CosId ones. A key that CosId already
used (past its initial offset) and that is below 4.x's next value means both
systems handed out the same ids: migrate names each such key and changes nothing,
unless --force.

The store is the configuration's (--config, --store: its only store, else its first
sql store). A key is only ever raised: a key already ahead stays as it is, so a
second run changes nothing. --dry-run prints what a run would do. Every key read
gets a line, and a summary ends the run.`,
		Example: `  cosid migrate from-4x --from-dsn 'cosid:pw@tcp(db:3306)/cosid_db' --config cosid.yaml --dry-run
  cosid migrate from-4x --redis 10.0.0.5:6379 --config cosid.yaml --store db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("dsn") {
				if source.dsn != "" {
					return errors.New("--dsn is the old name of --from-dsn: give --from-dsn alone")
				}
				source.dsn = oldDSN
				fmt.Fprintln(cmd.ErrOrStderr(), "cosid: --dsn of migrate from-4x is the old name of --from-dsn, the 4.x source (--dsn names the store to work on on every other command): use --from-dsn")
			}
			if source.dsn == "" && redisA == "" {
				return fmt.Errorf("name a 4.x source: --from-dsn (the JDBC table) or --redis")
			}
			if source.driver != "" && source.dsn == "" {
				return fmt.Errorf("--driver needs --from-dsn")
			}
			for flag, t := range map[string]string{"--table": table, "--machine-table": mtable} {
				if !tableName.MatchString(t) {
					return fmt.Errorf("%s %q: want a table name such as cosid or cosid_db.cosid", flag, t)
				}
			}
			a, cfg, err := target.open(cmd.Context(), cmd, warnLogger(cmd))
			if err != nil {
				return err
			}
			defer a.Close()
			storeName, _ := target.storeName(cfg)
			m := &migration{st: a, system: "4.x", out: cmd.OutOrStdout(), dryRun: dryRun, force: force,
				targets: snowflakeTargets(cfg, storeName), offsets: initialOffsets(cfg), strides: idStrides(cfg)}
			if source.dsn != "" {
				if err := m.fromSQL(cmd.Context(), source, table, mtable); err != nil {
					return err
				}
			}
			if redisA != "" {
				if err := m.fromRedis(cmd.Context(), redisA); err != nil {
					return err
				}
			}
			return m.apply(cmd.Context())
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&target.config, "config", "c", defaultConfig, "the configuration whose store receives the keys")
	fl.StringVar(&target.store, "store", "", "the configuration's store to raise (default: its only store, else its first sql store)")
	// --dsn names the store to work on everywhere else, so the source has a name
	// of its own; --dsn still reads as --from-dsn, hidden, with a warning.
	fl.StringVar(&source.dsn, "from-dsn", "", "the 4.x database that holds the cosid table: the DSN of the source (an SQLite file, or a DSN of pgx, mysql or sqlserver)")
	fl.StringVar(&oldDSN, "dsn", "", "the old name of --from-dsn")
	if err := fl.MarkHidden("dsn"); err != nil {
		panic(err)
	}
	fl.StringVar(&source.driver, "driver", "", "the database/sql driver of --from-dsn: pgx, mysql, sqlserver or sqlite (default: from the DSN)")
	fl.DurationVar(&source.timeout, "timeout", 5*time.Second, "how long a call to the 4.x source or the store may take")
	fl.StringVar(&table, "table", "cosid", "the 4.x segment table")
	fl.StringVar(&mtable, "machine-table", "cosid_machine", "the 4.x machine table")
	fl.StringVar(&redisA, "redis", "", "the 4.x Redis server: host:port, or a URL redis://host:port/db")
	fl.BoolVar(&dryRun, "dry-run", false, "print what a run would do, change nothing")
	fl.BoolVar(&force, "force", false, "raise keys that CosId already used below 4.x's value (their ids exist twice already)")
	return cmd
}

// tableName is a table, optionally schema-qualified, that can go into SQL unquoted.
var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// migration raises the keys and slot floors of st and counts what it did.
type migration struct {
	st      store.Admin
	system  string // the system migrated from, as messages name it: "4.x", "Leaf", "tinyid"
	out     io.Writer
	dryRun  bool
	force   bool
	targets map[string][]snowflakeTarget // by 4.x namespace
	offsets map[string]int64             // the configuration's initial offset by key NS/NAME
	strides map[string][2]int64          // the stride and residue of a strided generator by key NS/NAME

	segments []segment4x // read from every source, applied by apply
	machines []machine4x

	keyCount, machineCount counts
}

// segment4x is a segment of the system migrated from as a source holds it: its
// name (4.x's {namespace}.{name}) and its last handed-out id, still text; or,
// from Leaf and tinyid, the key it raises, already made, or why it has none.
type segment4x struct{ source, name, lastMax, key, reason string }

type counts struct{ read, raised, created, ahead, skipped int }

// fromSQL migrates the rows of the 4.x segment and machine tables.
func (m *migration) fromSQL(ctx context.Context, f adminFlags, table, machineTable string) error {
	driver := f.driver
	if driver == "" {
		var err error
		if driver, err = inferDriver(f.dsn); err != nil {
			return err
		}
	}
	db, err := openSource(driver, f.dsn)
	if err != nil {
		return fmt.Errorf("4.x database: %w", err)
	}
	defer db.Close()
	qctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	rows, err := db.QueryContext(qctx, "select name, last_max_id from "+table+" order by name")
	if err != nil {
		return fmt.Errorf("4.x table %s: %w", table, err)
	}
	type row struct {
		name    string
		lastMax string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.name, &r.lastMax); err != nil {
			rows.Close()
			return fmt.Errorf("4.x table %s: %w", table, err)
		}
		all = append(all, r)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("4.x table %s: %w", table, err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("4.x table %s: %w", table, err)
	}
	for _, r := range all {
		m.segments = append(m.segments, segment4x{source: fmt.Sprintf("row %q of table %s", r.name, table), name: r.name, lastMax: r.lastMax})
	}
	machines, err := m.machinesFromSQL(qctx, db, machineTable)
	if err != nil {
		return fmt.Errorf("4.x table %s: %w", machineTable, err)
	}
	m.machines = append(m.machines, machines...)
	return nil
}

// fromRedis reads the 4.x Redis segment keys cosid:{namespace.name}.adder (and the
// brace-less form) and machine hashes, and says which key forms it found.
func (m *migration) fromRedis(ctx context.Context, addr string) error {
	opts := &redis.Options{Addr: addr}
	if strings.Contains(addr, "://") {
		var err error
		if opts, err = redis.ParseURL(addr); err != nil {
			return fmt.Errorf("--redis: %w", err)
		}
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	keys, err := scanAll(ctx, rc, "cosid:*.adder")
	if err != nil {
		return fmt.Errorf("4.x Redis %s: %w", addr, err)
	}
	var forms [2]int // hash-tag, brace-less
	for _, k := range keys {
		name, tagged := segmentKey4x(k)
		v, err := rc.Get(ctx, k).Result()
		if err == redis.Nil {
			continue // gone since the scan
		}
		if err != nil {
			return fmt.Errorf("4.x Redis %s: GET %s: %w", addr, k, err)
		}
		forms[b2i(!tagged)]++
		m.segments = append(m.segments, segment4x{source: fmt.Sprintf("Redis key %q", k), name: name, lastMax: v})
	}
	machines, hashes, err := m.machinesFromRedis(ctx, rc)
	if err != nil {
		return fmt.Errorf("4.x Redis %s: %w", addr, err)
	}
	m.machines = append(m.machines, machines...)
	fmt.Fprintf(m.out, "4.x Redis %s: %s\n", addr, describeForms(forms, hashes))
	return nil
}

// describeForms says how many keys of each 4.x form a Redis server held.
func describeForms(segments, hashes [2]int) string {
	parts := []string{
		plural(segments[0], "segment key") + " cosid:{namespace.name}.adder (4.x's hash-tag form)",
		plural(hashes[0], "machine hash") + " cosid:{namespace}:itc_idx or :revert (hash-tag form)",
	}
	if segments[1] > 0 {
		parts = append(parts, plural(segments[1], "segment key")+" cosid:namespace.name.adder (brace-less, an older 4.x)")
	}
	if hashes[1] > 0 {
		parts = append(parts, plural(hashes[1], "machine hash")+" cosid:namespace:itc_idx or :revert (brace-less, an older 4.x)")
	}
	return strings.Join(parts, ", ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scanAll returns the keys of rc that match pattern, sorted.
func scanAll(ctx context.Context, rc *redis.Client, pattern string) ([]string, error) {
	var keys []string
	iter := rc.Scan(ctx, 0, pattern, 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, err
	}
	slices.Sort(keys)
	return keys, nil
}

// segmentKey4x returns the 4.x segment name {namespace}.{name} of the Redis key
// cosid:{namespace.name}.adder, whose braces are a Redis Cluster hash tag, and
// whether it had them: an older 4.x wrote cosid:namespace.name.adder.
func segmentKey4x(key string) (name string, tagged bool) {
	name = strings.TrimSuffix(strings.TrimPrefix(key, "cosid:"), ".adder")
	return unTag(name)
}

// unTag strips the hash tag {s} to s.
func unTag(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		return s[1 : len(s)-1], true
	}
	return s, false
}

// planned is a 4.x segment with the key it raises and what the store holds now.
type planned struct {
	segment4x
	key    string
	next   int64  // 4.x's next value: its last max id + 1
	reason string // why it is skipped, or ""
	cur    int64  // the key's next value before the migration
	found  bool   // the key exists
	offset int64  // the key's initial offset in the configuration
}

// overlap says which ids both 4.x and CosId handed out when CosId already used the
// key (it is past its initial offset) below 4.x's next value, or "".
func (p planned) overlap(system string) string {
	if p.reason != "" || !p.found || p.cur <= p.offset || p.cur >= p.next {
		return ""
	}
	ids := fmt.Sprintf("ids %d–%d", p.offset, p.cur-1)
	if p.cur-1 == p.offset {
		ids = fmt.Sprintf("id %d", p.offset)
	}
	return fmt.Sprintf("%s was at %d, below %s's %d: CosId already handed out %s that %s also handed out", p.key, p.cur, system, p.next, ids, system)
}

// plan parses s and reads its key's current value.
func (m *migration) plan(ctx context.Context, s segment4x) (planned, error) {
	p := planned{segment4x: s}
	if p.key, p.reason = s.key, s.reason; p.key == "" && p.reason == "" {
		p.key, p.reason = keyOf4x(s.name)
	}
	if p.reason == "" {
		n, err := strconv.ParseInt(s.lastMax, 10, 64)
		switch {
		case err != nil || n < 0:
			p.reason = fmt.Sprintf("last max id %q is not a number from 0 to %d", s.lastMax, int64(math.MaxInt64)-1)
		case n == math.MaxInt64:
			p.reason = "last max id is the largest int64: the key has no id left"
		}
		p.next = n + 1
	}
	if p.reason == "" {
		if err := store.CheckKey(p.key); err != nil {
			p.reason = err.Error()
		}
	}
	if p.reason != "" {
		return p, nil
	}
	p.next = m.valueAbove(p.key, p.next-1)
	p.offset = m.offsetOf(p.key)
	var err error
	p.cur, p.found, err = m.current(ctx, p.key)
	return p, err
}

// valueAbove returns the store value of key from which its generator hands out
// only ids above maxID: maxID + 1, or for a generator of stride N and residue r,
// whose value v is the id v·N + r, the least v with v·N + r > maxID.
func (m *migration) valueAbove(key string, maxID int64) int64 {
	s, ok := m.strides[key]
	if i := strings.LastIndexByte(key, '/'); !ok && i > 0 {
		s, ok = m.strides[key[:i]]
	}
	switch {
	case !ok:
		return maxID + 1
	case maxID < s[1]:
		return 0
	}
	return (maxID-s[1])/s[0] + 1
}

// idStrides returns the stride and residue of each strided generator of cfg, by
// its key NS/NAME.
func idStrides(cfg cosid.Config) map[string][2]int64 {
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	strides := map[string][2]int64{}
	for name, gc := range cfg.Generators {
		if gc.Stride != nil && *gc.Stride > 1 {
			var r int64
			if gc.Residue != nil {
				r = *gc.Residue
			}
			strides[ns+"/"+name] = [2]int64{*gc.Stride, r}
		}
	}
	return strides
}

// offsetOf returns the initial offset of the generator whose key, or period key,
// key is; the default for a key of no generator of the configuration.
func (m *migration) offsetOf(key string) int64 {
	if o, ok := m.offsets[key]; ok {
		return o
	}
	if i := strings.LastIndexByte(key, '/'); i > 0 {
		if o, ok := m.offsets[key[:i]]; ok {
			return o
		}
	}
	return segment.DefaultBatchPolicy().InitialOffset
}

// initialOffsets returns the initial offset of each segment and periodic-segment
// generator of cfg, by its key NS/NAME.
func initialOffsets(cfg cosid.Config) map[string]int64 {
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	offsets := map[string]int64{}
	for name, gc := range cfg.Generators {
		if gc.Strategy == cosid.StrategySnowflake {
			continue
		}
		o := segment.DefaultBatchPolicy().InitialOffset
		if gc.InitialOffset != nil {
			o = *gc.InitialOffset
		}
		offsets[ns+"/"+name] = o
	}
	return offsets
}

// apply plans every segment read, refuses when CosId already handed out ids that
// 4.x did (unless --force), and then raises the keys and the slot floors.
func (m *migration) apply(ctx context.Context) error {
	plans := make([]planned, 0, len(m.segments))
	var overlaps []string
	for _, s := range m.segments {
		p, err := m.plan(ctx, s)
		if err != nil {
			return err
		}
		if o := p.overlap(m.system); o != "" {
			overlaps = append(overlaps, o)
		}
		plans = append(plans, p)
	}
	if len(overlaps) > 0 && !m.force {
		for _, o := range overlaps {
			fmt.Fprintln(m.out, "refused:", o)
		}
		return fmt.Errorf("nothing migrated: %s CosId already used below %s's values, so their ids exist twice; "+
			"stop the %s services, migrate, then start the CosId ones; --force raises them anyway", plural(len(overlaps), "key"), m.system, m.system)
	}
	for _, p := range plans {
		if err := m.one(ctx, p); err != nil {
			return err
		}
	}
	for _, mc := range m.machines {
		if err := m.machine(ctx, mc); err != nil {
			return err
		}
	}
	m.summary()
	return nil
}

// one raises the key of p.
func (m *migration) one(ctx context.Context, p planned) error {
	m.keyCount.read++
	if p.reason != "" {
		m.keyCount.skipped++
		fmt.Fprintf(m.out, "skipped %s: %s\n", p.source, p.reason)
		return nil
	}
	if o := p.overlap(m.system); o != "" {
		fmt.Fprintln(m.out, "forced:", o)
	}
	created, raised := "created", "raised"
	if m.dryRun {
		created, raised = "would create", "would raise"
	}
	cur, found := p.cur, p.found
	if !m.dryRun {
		r, err := m.st.RaiseTo(ctx, p.key, p.next)
		if err != nil {
			return err
		}
		cur, found = r.Before, !r.Created
	}
	switch {
	case !found:
		m.keyCount.created++
		fmt.Fprintf(m.out, "%s %s at %d\n", created, p.key, p.next)
	case cur >= p.next:
		m.keyCount.ahead++
		fmt.Fprintf(m.out, "ahead %s at %d, %s next %d\n", p.key, cur, m.system, p.next)
	default:
		m.keyCount.raised++
		fmt.Fprintf(m.out, "%s %s from %d to %d\n", raised, p.key, cur, p.next)
	}
	return nil
}

// current reads key's next value.
func (m *migration) current(ctx context.Context, key string) (int64, bool, error) {
	page, err := m.st.Keys(ctx, key, "", 1)
	if err != nil || len(page) == 0 || page[0].Key != key {
		return 0, false, err
	}
	return page[0].Next, true, nil
}

func (m *migration) summary() {
	dry := ""
	if m.dryRun {
		dry = "dry run, nothing changed: "
	}
	k := m.keyCount
	fmt.Fprintf(m.out, "%s%s read, %d raised, %d created, %d already ahead, %d skipped\n",
		dry, plural(k.read, "key"), k.raised, k.created, k.ahead, k.skipped)
	if c := m.machineCount; c.read > 0 || c.skipped > 0 {
		fmt.Fprintf(m.out, "%s%s read, %s raised, %d already ahead, %d skipped\n",
			dry, plural(c.read, "machine"), plural(c.raised, "slot floor"), c.ahead, c.skipped)
	}
}

// keyOf4x returns the key of the 4.x segment name {namespace}.{name}, or
// {namespace}.{name}@{group} for a grouped one, or why it has none.
func keyOf4x(name string) (key, reason string) {
	ns, rest, ok := strings.Cut(name, ".")
	if !ok || ns == "" || rest == "" {
		return "", "want a name {namespace}.{name}"
	}
	base, group, grouped := strings.Cut(rest, "@")
	if !grouped {
		return ns + "/" + rest, ""
	}
	if base == "" || group == "" {
		return "", "want a grouped name {namespace}.{name}@{group}"
	}
	return ns + "/" + base + "/" + group, ""
}
