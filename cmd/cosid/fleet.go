package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// fleetGen is a generator of one file of a fleet: what decides which ids it can
// hand out.
type fleetGen struct {
	file     string
	strategy cosid.Strategy
	store    string // the store's identity (storeIdentity); "" for none
	storeAs  string // the store's name in the file, for the messages
	key      string // the generator's key in its store, {namespace}/{name}: its counter, or its slots' namespace

	segments        bool  // on segments: ids v·stride + residue of the store's values
	stride, residue int64 // of a generator on segments

	layout   snowflake.Layout // of a generator whose ids carry a machine id
	lo, hi   int              // its machine ids [lo, hi)
	leased   bool             // leased from the store, not fixed
	machines string           // the machine ids as the file sets them, for the messages
}

// checkFleet reads the configurations of files, each a region's, and refuses two
// whose generators of one name could hand out the same id, printing each finding
// to w; else it prints what keeps each such generator's ids apart.
func checkFleet(w io.Writer, files []string) error {
	if len(files) < 2 {
		return fmt.Errorf("--fleet takes the configuration files of two regions or more; got %d", len(files))
	}
	byName := map[string][]fleetGen{}
	for _, file := range files {
		cfg, err := cosid.ReadConfig(file)
		if err != nil {
			return err
		}
		cfg = cfg.Offline()
		if err := cfg.Validate(); err != nil {
			return err
		}
		for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
			g, err := fleetGenOf(file, cfg, name)
			if err != nil {
				return err
			}
			byName[name] = append(byName[name], g)
		}
	}
	var findings []string
	shared := 0
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		gens := byName[name]
		if len(gens) > 1 {
			shared++
		}
		for i, a := range gens {
			for _, b := range gens[i+1:] {
				if why := overlap(a, b); why != "" {
					findings = append(findings, fmt.Sprintf("generator %q: %s and %s could hand out the same ids: %s", name, a.file, b.file, why))
				}
			}
		}
	}
	if len(findings) > 0 {
		for _, f := range findings {
			fmt.Fprintln(w, "refused:", f)
		}
		return fmt.Errorf("fleet of %s: %s; see docs/regions.md", plural(len(files), "file"), plural(len(findings), "finding"))
	}
	fmt.Fprintf(w, "fleet of %s: ok, %s in more than one file, none can hand out an id of another's\n",
		plural(len(files), "file"), plural(shared, "generator"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GENERATOR\tFILE\tIDS\tSTORE")
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if gens := byName[name]; len(gens) > 1 {
			for _, g := range gens {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, g.file, g.ids(), g.storeAs)
			}
		}
	}
	return tw.Flush()
}

// fleetGenOf returns what decides the ids of the generator name of cfg, read from
// file.
func fleetGenOf(file string, cfg cosid.Config, name string) (fleetGen, error) {
	gc := cfg.Generators[name]
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	g := fleetGen{file: file, strategy: gc.Strategy, storeAs: gc.Store, key: ns + "/" + name}
	if gc.Store != "" {
		g.store = storeIdentity(file, cfg, gc.Store)
	}
	l, carries, err := cfg.MachineLayout(name)
	if err != nil {
		return g, err
	}
	if !carries {
		g.segments, g.stride = true, 1
		if gc.Stride != nil {
			g.stride = *gc.Stride
		}
		if gc.Residue != nil {
			g.residue = *gc.Residue
		}
		return g, nil
	}
	g.layout, g.storeAs = l, gc.Store
	all := 1 << l.MachineBits
	switch {
	case gc.MachineID != nil && *gc.MachineID == cosid.MachineIDFromHostname:
		// Any host name's ordinal: the same in every region unless told otherwise.
		g.lo, g.hi, g.machines, g.storeAs = 0, all, "machine-id from-hostname: any of 0–"+fmt.Sprint(all-1), "(none)"
	case gc.MachineID != nil:
		g.lo, g.hi, g.storeAs = int(*gc.MachineID), int(*gc.MachineID)+1, "(none)"
		g.machines = fmt.Sprintf("machine-id %d", *gc.MachineID)
	case gc.MachineIDs != nil:
		g.lo, g.hi, g.leased = gc.MachineIDs[0], gc.MachineIDs[1], true
		g.machines = fmt.Sprintf("machine-ids [%d, %d]", g.lo, g.hi)
	default:
		g.hi, g.leased = min(all, store.MaxSlots), true
		if gc.Slots != nil {
			g.hi = *gc.Slots
		}
		g.machines = fmt.Sprintf("leased machine ids 0–%d", g.hi-1)
	}
	return g, nil
}

// ids says which ids g hands out, for the summary.
func (g fleetGen) ids() string {
	switch {
	case !g.segments:
		return g.machines
	case g.stride == 1:
		return "every id of its store (no stride)"
	}
	return fmt.Sprintf("≡ %d (mod %d)", g.residue, g.stride)
}

// overlap says why a and b, generators of one name in two files, could hand out
// the same id, or "".
func overlap(a, b fleetGen) string {
	// One counter (or one namespace of slots) only when both the store and the key
	// are one: two namespaces on one store count apart, as two stores do.
	sameStore := a.store != "" && a.store == b.store && a.key == b.key
	switch {
	case a.strategy != b.strategy:
		return fmt.Sprintf("one is a %s generator, the other a %s one, and nothing keeps their ids apart; give them one strategy, or different names", a.strategy, b.strategy)
	case a.segments && sameStore && (a.stride != b.stride || a.residue != b.residue):
		// One counter for both: values v of a and w of b never meet, but their ids
		// v·stride + residue can, when the classes share an id. Where they cannot, the
		// shared store is refused all the same: it is not a region's own, and each
		// generator skips the values the other took.
		why := "no id in both, but each hands out only the values the other did not take, and neither counts in a store of its own"
		if x, ok := meet(a.stride, a.residue, b.stride, b.residue); ok {
			why = fmt.Sprintf("v·%d + %d meets w·%d + %d (id %s is in both)", a.stride, a.residue, b.stride, b.residue, x)
		}
		return fmt.Sprintf("they share one store (%s) with different strides (%s and %s): its values are counted once for both, so %s; a shared store takes one stride and residue",
			a.storeAs, a.ids(), b.ids(), why)
	case a.segments && sameStore:
		return "" // one region: they share the store's count
	case a.segments:
		if x, ok := meet(a.stride, a.residue, b.stride, b.residue); ok {
			return fmt.Sprintf("their ids %s and %s meet (id %s is in both), each counting in a store of its own; give each region the same stride and its own residue",
				a.ids(), b.ids(), x)
		}
		return ""
	case !sameLayout(a.layout, b.layout):
		return "their bit layouts differ (epoch, unit or bits), so their machine ids do not keep their ids apart; give them one layout"
	case sameStore && a.leased && b.leased && a.lo == b.lo && a.hi == b.hi:
		return "" // one region: its store leases each machine id once
	case a.lo < b.hi && b.lo < a.hi:
		return fmt.Sprintf("their machine ids overlap (%s and %s: %d–%d in both); give each region machine-ids of its own",
			a.machines, b.machines, max(a.lo, b.lo), min(a.hi, b.hi)-1)
	}
	return ""
}

// meet reports whether the classes r1 (mod n1) and r2 (mod n2) share an id, and
// the least one above 0 (no generator hands out 0) they share when it is found by a
// short search.
func meet(n1, r1, n2, r2 int64) (string, bool) {
	if (r1-r2)%gcd(n1, n2) != 0 {
		return "", false
	}
	x := r1
	if x == 0 {
		x = n1
	}
	for range 1 << 20 {
		if x%n2 == r2 {
			return fmt.Sprint(x), true
		}
		if x > (1<<62)-n1 {
			break
		}
		x += n1
	}
	return fmt.Sprintf("≡ %d (mod %d)", r1, n1), true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func sameLayout(a, b snowflake.Layout) bool {
	return a.Epoch.Equal(b.Epoch) && a.Unit == b.Unit && a.TimestampBits == b.TimestampBits &&
		a.MachineBits == b.MachineBits && a.SequenceBits == b.SequenceBits
}

// locating are the settings of a store that say where its data is; two stores of
// one type that agree on them are one store.
var locating = []string{"driver", "dsn", "dsn-file", "addr", "addrs", "url", "urls", "uri", "endpoints", "servers",
	"sentinels", "master-name", "db", "database", "prefix", "root", "store-id", "options"}

// storeIdentity names the store name of cfg, read from file, by where its data is,
// so that the stores of two files compare: a memory store (and an in-memory SQLite)
// is its file's own, and a relative file (a SQLite file, as a name or a file: URI,
// and a dsn-file) is read from the file's directory. Two stores taken for one when
// they are two would pass generators that count alike in each, so where the place
// is unclear the identity errs towards two.
func storeIdentity(file string, cfg cosid.Config, name string) string {
	sc := cfg.Stores[name]
	own := func() string {
		abs, _ := filepath.Abs(file)
		return sc.Type + " of " + abs + " " + name
	}
	if sc.Type == "memory" {
		return own()
	}
	at := map[string]any{}
	for _, k := range locating {
		if v, ok := sc.Settings[k]; ok {
			at[k] = v
		}
	}
	fromDir := func(path string) string {
		if filepath.IsAbs(path) {
			return path
		}
		abs, _ := filepath.Abs(filepath.Join(cfg.Dir, path))
		return abs
	}
	if f, ok := at["dsn-file"].(string); ok {
		at["dsn-file"] = fromDir(f)
	}
	if dsn, ok := at["dsn"].(string); ok && (at["driver"] == "sqlite" || at["driver"] == "sqlite3") {
		if strings.HasPrefix(dsn, ":memory:") || strings.Contains(dsn, "mode=memory") || strings.Contains(dsn, "vfs=memdb") {
			return own()
		}
		// A name and a file: URI of one file, whatever their parameters, are one store.
		path, _, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
		at["dsn"] = "file:" + fromDir(path)
	}
	b, _ := json.Marshal(at) // sorted keys: one text for one place
	return sc.Type + " " + string(b)
}
