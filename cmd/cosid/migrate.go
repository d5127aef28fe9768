package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/store"
)

func migrateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Move data from other id generators into a CosId store"}
	cmd.AddCommand(from4xCommand())
	return cmd
}

func from4xCommand() *cobra.Command {
	var (
		target adminFlags // --config, --store
		source adminFlags // --dsn, --driver, --timeout
		table  string
		mtable string
		redisA string
		dryRun bool
	)
	cmd := &cobra.Command{
		Use:   "from-4x",
		Short: "Raise the keys of a CosId store above the segments of CosId 4.x",
		Long: `Read the segments of CosId 4.x and raise each to the same key of the store, so
that no id is handed out twice across the switch: the JDBC table cosid (--dsn,
--driver, --table), whose rows {namespace}.{name} with last_max_id become the key
{namespace}/{name} at last_max_id + 1, and a 4.x grouped row {namespace}.{name}@{group}
the periodic key {namespace}/{name}/{group}; and the Redis keys cosid:{namespace}.{name}.adder
(--redis), the same way.

The store is the configuration's (--config, --store: its only store, else its first
sql store). A key is only ever raised: a key already ahead stays as it is, so a
second run changes nothing. --dry-run prints what a run would do. Every key read
gets a line, and a summary ends the run.`,
		Example: `  cosid migrate from-4x --dsn 'cosid:pw@tcp(db:3306)/cosid_db' --config cosid.yaml --dry-run
  cosid migrate from-4x --redis 10.0.0.5:6379 --config cosid.yaml --store db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if source.dsn == "" && redisA == "" {
				return fmt.Errorf("name a 4.x source: --dsn (the JDBC table) or --redis")
			}
			if source.driver != "" && source.dsn == "" {
				return fmt.Errorf("--driver needs --dsn")
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
			m := &migration{st: a, out: cmd.OutOrStdout(), dryRun: dryRun, targets: snowflakeTargets(cfg, storeName)}
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
			m.summary()
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&target.config, "config", "c", defaultConfig, "the configuration whose store receives the keys")
	fl.StringVar(&target.store, "store", "", "the configuration's store to raise (default: its only store, else its first sql store)")
	source.registerDSN(cmd, "the 4.x database that holds the cosid table")
	fl.StringVar(&table, "table", "cosid", "the 4.x segment table")
	fl.StringVar(&mtable, "machine-table", "cosid_machine", "the 4.x machine table")
	fl.StringVar(&redisA, "redis", "", "the 4.x Redis server: host:port, or a URL redis://host:port/db")
	fl.BoolVar(&dryRun, "dry-run", false, "print what a run would do, change nothing")
	return cmd
}

// tableName is a table, optionally schema-qualified, that can go into SQL unquoted.
var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// migration raises the keys and slot floors of st and counts what it did.
type migration struct {
	st      store.Admin
	out     io.Writer
	dryRun  bool
	targets map[string][]snowflakeTarget // by 4.x namespace

	keys, machines counts
}

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
	db, err := sql.Open(driver, f.dsn)
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
		if err := m.one(ctx, fmt.Sprintf("row %q of table %s", r.name, table), r.name, r.lastMax); err != nil {
			return err
		}
	}
	machines, err := m.machinesFromSQL(qctx, db, machineTable)
	if err != nil {
		return fmt.Errorf("4.x table %s: %w", machineTable, err)
	}
	return m.allMachines(ctx, machines)
}

func (m *migration) allMachines(ctx context.Context, machines []machine4x) error {
	for _, mc := range machines {
		if err := m.machine(ctx, mc); err != nil {
			return err
		}
	}
	return nil
}

// fromRedis migrates the 4.x Redis segment keys cosid:{namespace}.{name}.adder.
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
	var keys []string
	iter := rc.Scan(ctx, 0, "cosid:*.adder", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("4.x Redis %s: %w", addr, err)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := rc.Get(ctx, k).Result()
		if err == redis.Nil {
			continue // gone since the scan
		}
		if err != nil {
			return fmt.Errorf("4.x Redis %s: GET %s: %w", addr, k, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(k, "cosid:"), ".adder")
		if err := m.one(ctx, fmt.Sprintf("Redis key %q", k), name, v); err != nil {
			return err
		}
	}
	machines, err := m.machinesFromRedis(ctx, rc)
	if err != nil {
		return fmt.Errorf("4.x Redis %s: %w", addr, err)
	}
	return m.allMachines(ctx, machines)
}

// one migrates the 4.x segment name, whose last handed-out id is lastMax.
func (m *migration) one(ctx context.Context, source, name, lastMax string) error {
	m.keys.read++
	key, reason := keyOf4x(name)
	var max int64
	if reason == "" {
		n, err := strconv.ParseInt(lastMax, 10, 64)
		switch {
		case err != nil || n < 0:
			reason = fmt.Sprintf("last max id %q is not a number from 0 to %d", lastMax, int64(math.MaxInt64)-1)
		case n == math.MaxInt64:
			reason = "last max id is the largest int64: the key has no id left"
		}
		max = n
	}
	if reason == "" {
		if err := store.CheckKey(key); err != nil {
			reason = err.Error()
		}
	}
	if reason != "" {
		m.keys.skipped++
		fmt.Fprintf(m.out, "skipped %s: %s\n", source, reason)
		return nil
	}
	next := max + 1
	created, raised := "created", "raised"
	if m.dryRun {
		created, raised = "would create", "would raise"
	}
	var (
		cur   int64
		found bool
		err   error
	)
	if m.dryRun {
		cur, found, err = m.current(ctx, key)
	} else {
		var r store.Raised
		r, err = m.st.RaiseTo(ctx, key, next)
		cur, found = r.Before, !r.Created
	}
	if err != nil {
		return err
	}
	switch {
	case !found:
		m.keys.created++
		fmt.Fprintf(m.out, "%s %s at %d\n", created, key, next)
	case cur >= next:
		m.keys.ahead++
		fmt.Fprintf(m.out, "ahead %s at %d, 4.x next %d\n", key, cur, next)
	default:
		m.keys.raised++
		fmt.Fprintf(m.out, "%s %s from %d to %d\n", raised, key, cur, next)
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
	fmt.Fprintf(m.out, "%s%d keys read, %d raised, %d created, %d already ahead, %d skipped\n",
		dry, m.keys.read, m.keys.raised, m.keys.created, m.keys.ahead, m.keys.skipped)
	if c := m.machines; c.read > 0 || c.skipped > 0 {
		fmt.Fprintf(m.out, "%s%d machines read, %d slot floors raised, %d already ahead, %d skipped\n",
			dry, c.read, c.raised, c.ahead, c.skipped)
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
