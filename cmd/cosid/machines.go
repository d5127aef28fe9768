package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// machine4x is a 4.x machine id of a namespace and the last timestamp (epoch ms) it
// stamped.
type machine4x struct {
	namespace string
	id        int
	lastMs    int64
	source    string
	reason    string // why it is skipped, or ""
}

// snowflakeTarget is a Snowflake generator of the configuration whose slots a 4.x
// namespace's machine ids become.
type snowflakeTarget struct {
	namespace string // the lease namespace NS/NAME
	limit     int
	tolerance time.Duration
}

// snowflakeTargets returns the Snowflake generators of cfg on the store storeName,
// by the configuration's namespace: the 4.x namespace whose machines they inherit.
func snowflakeTargets(cfg cosid.Config, storeName string) map[string][]snowflakeTarget {
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	targets := map[string][]snowflakeTarget{}
	for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
		gc := cfg.Generators[name]
		if !gc.Leases() || gc.Store != storeName {
			continue
		}
		// The namespace's limit, as the generator asks for it: a lease of
		// another limit would be refused (ErrNamespaceConflict).
		bits := snowflake.DefaultLayout().MachineBits
		switch {
		case gc.Strategy == cosid.StrategyCosIDGenerator:
			bits = snowflake.CosIDGeneratorLayout().MachineBits
		case gc.Layout == "javascript":
			bits = snowflake.JavaScriptLayout().MachineBits
		}
		if gc.MachineBits != nil {
			bits = *gc.MachineBits
		}
		t := snowflakeTarget{namespace: ns + "/" + name, limit: min(1<<min(bits, 30), store.MaxSlots), tolerance: snowflake.DefaultTolerance}
		if gc.Slots != nil {
			t.limit = *gc.Slots
		}
		if gc.Tolerance != nil {
			t.tolerance = *gc.Tolerance
		}
		targets[ns] = append(targets[ns], t)
	}
	return targets
}

// machinesFromSQL reads the 4.x machine table; a table that cannot be read is
// reported and skipped, since a 4.x installation without Snowflake has none.
func (m *migration) machinesFromSQL(ctx context.Context, db *sql.DB, table string) ([]machine4x, error) {
	rows, err := db.QueryContext(ctx, "select namespace, machine_id, last_timestamp from "+table+" order by namespace, machine_id")
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		fmt.Fprintf(m.out, "skipped the machine table %s: %v\n", table, err)
		return nil, nil
	}
	defer rows.Close()
	var all []machine4x
	for rows.Next() {
		var mc machine4x
		if err := rows.Scan(&mc.namespace, &mc.id, &mc.lastMs); err != nil {
			return nil, fmt.Errorf("4.x table %s: %w", table, err)
		}
		mc.source = fmt.Sprintf("machine %d of namespace %q in table %s", mc.id, mc.namespace, table)
		all = append(all, mc)
	}
	return all, rows.Err()
}

// machinesFromRedis reads the 4.x machine hashes of a namespace ns, as 4.x's
// machine_id_distribute.lua and machine_id_revert.lua write them with KEYS[1] the
// hash tag {ns}: cosid:{ns}:itc_idx, instance → "{machineId}|{lastStamp}", and
// cosid:{ns}:revert, machineId → lastStamp, the machines released by their
// instances. An older 4.x wrote them without braces. It returns the machines and
// how many hashes of the hash-tag and of the brace-less form it read.
func (m *migration) machinesFromRedis(ctx context.Context, rc *redis.Client) ([]machine4x, [2]int, error) {
	var all []machine4x
	var forms [2]int
	for _, kind := range []string{"itc_idx", "revert"} {
		keys, err := scanAll(ctx, rc, "cosid:*:"+kind)
		if err != nil {
			return nil, forms, err
		}
		for _, k := range keys {
			states, err := rc.HGetAll(ctx, k).Result()
			if err != nil {
				return nil, forms, fmt.Errorf("HGETALL %s: %w", k, err)
			}
			ns, tagged := unTag(strings.TrimSuffix(strings.TrimPrefix(k, "cosid:"), ":"+kind))
			forms[b2i(!tagged)]++
			for _, field := range slices.Sorted(maps.Keys(states)) {
				all = append(all, parseMachine4x(k, kind, ns, field, states[field]))
			}
		}
	}
	return all, forms, nil
}

// parseMachine4x parses the field of the 4.x hash k of kind itc_idx (instance →
// "{machineId}|{lastStamp}") or revert (machineId → lastStamp).
func parseMachine4x(k, kind, ns, field, value string) machine4x {
	mc := machine4x{namespace: ns}
	var id, last, want string
	ok := true
	if kind == "itc_idx" {
		mc.source = fmt.Sprintf("instance %q of Redis hash %s", field, k)
		id, last, ok = strings.Cut(value, "|")
		want = "state %q is not {machineId}|{lastTimestamp}"
	} else {
		mc.source = fmt.Sprintf("machine %q of Redis hash %s", field, k)
		id, last = field, value
		want = "last timestamp %q is not a number"
	}
	var err1, err2 error
	mc.id, err1 = strconv.Atoi(id)
	mc.lastMs, err2 = strconv.ParseInt(last, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		mc.reason = fmt.Sprintf(want, value)
	}
	return mc
}

// machine raises the floor of the 4.x machine's slot in every Snowflake generator
// that inherits its namespace above the last timestamp it stamped.
func (m *migration) machine(ctx context.Context, mc machine4x) error {
	if mc.reason != "" {
		m.machineCount.skipped++
		fmt.Fprintf(m.out, "skipped %s: %s\n", mc.source, mc.reason)
		return nil
	}
	m.machineCount.read++
	targets := m.targets[mc.namespace]
	if len(targets) == 0 {
		m.machineCount.skipped++
		fmt.Fprintf(m.out, "skipped %s: no snowflake generator of the configuration is in namespace %q\n", mc.source, mc.namespace)
		return nil
	}
	floor := mc.lastMs + 1
	for _, t := range targets {
		if mc.id < 0 || mc.id >= t.limit {
			m.machineCount.skipped++
			fmt.Fprintf(m.out, "skipped %s: %s has slots 0–%d\n", mc.source, t.namespace, t.limit-1)
			continue
		}
		cur, err := m.floorOf(ctx, t.namespace, mc.id)
		if err != nil {
			return err
		}
		if cur >= floor {
			m.machineCount.ahead++
			fmt.Fprintf(m.out, "ahead %s slot %d at floor %d, 4.x floor %d\n", t.namespace, mc.id, cur, floor)
			continue
		}
		if m.dryRun {
			m.machineCount.raised++
			fmt.Fprintf(m.out, "would raise the floor of %s slot %d from %d to %d\n", t.namespace, mc.id, cur, floor)
			continue
		}
		_, err = m.st.RaiseFloor(ctx, store.FloorRequest{Namespace: t.namespace, Limit: t.limit, Tolerance: t.tolerance, Slot: mc.id, FloorMs: floor})
		switch {
		case errors.Is(err, store.ErrSlotHeld):
			m.machineCount.skipped++
			fmt.Fprintf(m.out, "skipped %s: %s slot %d is leased; stop its generators and run again\n", mc.source, t.namespace, mc.id)
		case err != nil:
			return err
		default:
			m.machineCount.raised++
			fmt.Fprintf(m.out, "raised the floor of %s slot %d from %d to %d\n", t.namespace, mc.id, cur, floor)
		}
	}
	return nil
}

// floorOf returns the floor of the next owner of slot, 0 when the namespace or the
// slot was never used.
func (m *migration) floorOf(ctx context.Context, namespace string, slot int) (int64, error) {
	info, err := m.st.Slots(ctx, namespace)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for _, s := range info.Slots {
		if s.Slot == slot {
			return s.NextFloor, nil
		}
	}
	return 0, nil
}
