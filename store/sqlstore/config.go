package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
)

// DefaultTimeout bounds every statement of a store configured without a timeout.
const DefaultTimeout = 2 * time.Second

func init() { store.Register("sql", openSpec) }

// specConfig is the configuration of a store of type sql:
//
//	type: sql
//	driver: pgx              # pgx | mysql | sqlserver | sqlite (the program imports it)
//	dsn: postgres://…
//	timeout: 2s
//	options: { initSchema: true, dialect: postgresql, rangeTable: cosid_range, fetchPlan: statement }
type specConfig struct {
	Driver  string        `yaml:"driver"`
	DSN     string        `yaml:"dsn"`
	Timeout time.Duration `yaml:"timeout"`
	Options struct {
		InitSchema     bool   `yaml:"initSchema"`
		Dialect        string `yaml:"dialect"`
		RangeTable     string `yaml:"rangeTable"`
		SlotTable      string `yaml:"slotTable"`
		NamespaceTable string `yaml:"namespaceTable"`
		FetchPlan      string `yaml:"fetchPlan"`
		// AllowAsyncReplicas is WithAllowAsyncReplicas (replication.go).
		AllowAsyncReplicas bool `yaml:"allowAsyncReplicas"`
	} `yaml:"options"`
}

// openSpec opens a store of type sql. Its errors name the field of spec at fault and
// the values it allows.
func openSpec(ctx context.Context, spec store.Spec) (store.RangeStore, error) {
	var c specConfig
	if err := spec.DecodeSettings(&c); err != nil {
		return nil, err
	}
	bad := spec.Invalid
	switch {
	case c.Driver == "":
		return nil, bad("driver", "missing; want one of pgx, mysql, sqlserver, sqlite (or another registered database/sql driver)")
	case checkDriver(c.Driver) != nil:
		return nil, bad("driver", "%v", checkDriver(c.Driver))
	case c.DSN == "":
		return nil, bad("dsn", "missing; want the driver's data source name, such as postgres://user@host/db or cosid.db")
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	opts := []Option{WithInitSchema(c.Options.InitSchema), WithDialect(c.Options.Dialect), WithAllowAsyncReplicas(c.Options.AllowAsyncReplicas)}
	if spec.Logger != nil {
		opts = append(opts, WithLogger(spec.Logger))
	}
	if d := c.Options.Dialect; d != "" {
		if _, ok := lookupDialect(d); !ok {
			return nil, bad("options.dialect", "%q is unknown; want one of %s (or leave it out to detect it)", d, strings.Join(Dialects(), ", "))
		}
	}
	if p := c.Options.FetchPlan; p != "" {
		plan, err := ParseFetchPlan(p)
		if err != nil {
			return nil, bad("options.fetchPlan", "%v", err)
		}
		opts = append(opts, WithFetchPlan(plan))
	}
	t := Tables{Range: c.Options.RangeTable, Slot: c.Options.SlotTable, Namespace: c.Options.NamespaceTable}
	for _, f := range []struct{ field, name string }{
		{"options.rangeTable", t.Range}, {"options.slotTable", t.Slot}, {"options.namespaceTable", t.Namespace},
	} {
		if f.name == "" {
			continue
		}
		if err := checkTableName(f.name); err != nil {
			return nil, bad(f.field, "%v", err)
		}
	}
	opts = append(opts, WithTables(t))
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := open(ctx, c.Driver, c.DSN, timeout, buildConfig(opts))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Path, err)
	}
	return st, nil
}
