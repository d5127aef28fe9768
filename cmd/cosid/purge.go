package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// periodic is a periodic-segment generator of a configuration, as purge sees it.
type periodic struct {
	name, base, store string // base: the key NS/NAME that its period keys extend
	period            segment.Period
	loc               *time.Location
}

func purgeCommand() *cobra.Command {
	var (
		f                 adminFlags
		before, generator string
		dryRun, yes       bool
		now               string
	)
	cmd := &cobra.Command{
		Use:   "purge --before PERIOD",
		Short: "Delete the keys of periods before PERIOD, offline",
		Long: `Delete the period keys of the configuration's periodic-segment generators (or of
--generator alone) whose periods end by the start of PERIOD: a year (2026), a month
(202610) or a day (20261027). The current and the next period of a generator are
never deleted, whatever PERIOD says.

purge lists the keys, asks before it deletes unless --yes, and then seals each key
before it deletes it. It is an offline tool: a generator that still reserves a
deleted key starts it again at its initial offset and repeats its ids, so run it
only on periods that no running generator can reach (past periods are safe while
generators keep their clocks). An interrupted purge is resumed by running it again.
Progress goes to stderr: a bar on a terminal, a line every 1000 keys otherwise.

The keys are those of each generator's store; --store NAME purges only the
generators on that store of the configuration, and --dsn purges the keys of the
configuration's generators on that SQL database instead.`,
		Example: `  cosid purge --before 202601 --dry-run
  cosid purge --before 20260101 --generator bill --yes
  cosid purge --before 2026 --dsn 'postgres://app@db:5432/app'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clock := time.Now()
			if now != "" {
				var err error
				if clock, err = time.Parse(time.RFC3339, now); err != nil {
					return fmt.Errorf("--now: %w", err)
				}
			}
			if before == "" {
				return usageErr(cmd, "want --before PERIOD, the first period to keep: a year (2026), a month (202610) or a day (20261027)")
			}
			cut, err := parseBefore(before)
			if err != nil {
				return err
			}
			if f.driver != "" && f.dsn == "" {
				return fmt.Errorf("--driver needs --dsn")
			}
			if f.store != "" && f.dsn != "" {
				return fmt.Errorf("--store names a store of the configuration and --dsn another: give one")
			}
			cfg, ok, err := readConfig(f.config, cmd.Flags().Changed("config"))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("purge needs a configuration with periodic-segment generators: %s does not exist", f.config)
			}
			gens, err := periodics(cfg, generator)
			if err != nil {
				return err
			}
			p := purger{cmd: cmd, cfg: cfg, cut: cut, now: clock, dryRun: dryRun, yes: yes}
			switch {
			case f.dsn != "":
				sc, err := f.dsnStore()
				if err != nil {
					return err
				}
				p.cfg.Stores = map[string]cosid.StoreConfig{cosid.DefaultStore: sc} // as the other commands name --dsn
				for i := range gens {
					gens[i].store = cosid.DefaultStore
				}
			case f.store != "":
				if gens, err = onStore(cfg, gens, f.store); err != nil {
					return err
				}
			}
			return p.run(cmd.Context(), gens)
		},
	}
	fl := cmd.Flags()
	f.register(cmd)
	fl.Lookup("store").Usage = "purge only the generators on this store of the configuration"
	fl.Lookup("dsn").Usage = "purge the keys of the configuration's generators on this SQL database instead of their stores"
	fl.StringVar(&before, "before", "", "delete the periods that end by the start of this one: YYYY, YYYYMM or YYYYMMDD")
	fl.StringVar(&generator, "generator", "", "purge only this periodic-segment generator")
	fl.BoolVar(&dryRun, "dry-run", false, "list what would be deleted, change nothing")
	fl.BoolVar(&yes, "yes", false, "do not ask before deleting")
	fl.StringVar(&now, "now", "", "the time to judge the current period by (RFC 3339), for tests")
	_ = fl.MarkHidden("now")
	return cmd
}

// parseBefore returns the first day of the period text names, at midnight UTC: the
// date that purge compares the periods' last days with.
func parseBefore(text string) (time.Time, error) {
	for _, layout := range []string{"2006", "200601", "20060102"} {
		if len(text) != len(layout) {
			continue
		}
		if t, err := time.Parse(layout, text); err == nil && t.Format(layout) == text {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--before %q: want a period such as 2026, 202610 or 20261027", text)
}

// periodics returns the periodic-segment generators of cfg, or only the one named.
func periodics(cfg cosid.Config, only string) ([]periodic, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if gc, ok := cfg.Generators[only]; only != "" && !ok {
		_, err := cfg.GroupedCodec(only) // the library's words for an unknown name, with a "did you mean"
		return nil, fmt.Errorf("--generator: %s", strings.TrimPrefix(err.Error(), "cosid: "))
	} else if ok && gc.Strategy != cosid.StrategyPeriodic {
		return nil, fmt.Errorf("--generator %q: a %s generator, which has no periods; purge deletes the old period keys of periodic-segment generators", only, gc.Strategy)
	}
	ns := cfg.Namespace
	if ns == "" {
		ns = cosid.DefaultNamespace
	}
	var gens []periodic
	for _, name := range slices.Sorted(maps.Keys(cfg.Generators)) {
		gc := cfg.Generators[name]
		if gc.Strategy != cosid.StrategyPeriodic || (only != "" && name != only) {
			continue
		}
		period, err := segment.ParsePeriod(gc.Period)
		if err != nil {
			return nil, err
		}
		loc, err := time.LoadLocation(gc.Zone)
		if err != nil {
			return nil, err
		}
		gens = append(gens, periodic{name: name, base: ns + "/" + name, store: gc.Store, period: period, loc: loc})
	}
	if len(gens) == 0 {
		return nil, errors.New("the configuration has no periodic-segment generator")
	}
	return gens, nil
}

// onStore returns the generators of gens on the store name of cfg.
func onStore(cfg cosid.Config, gens []periodic, name string) ([]periodic, error) {
	if _, ok := cfg.Stores[name]; !ok {
		return nil, fmt.Errorf("--store %q: no such store in the configuration; it has: %s", name, strings.Join(slices.Sorted(maps.Keys(cfg.Stores)), ", "))
	}
	var on []periodic
	for _, g := range gens {
		if g.store == name {
			on = append(on, g)
		}
	}
	if len(on) == 0 {
		return nil, fmt.Errorf("--store %q: no periodic-segment generator of the configuration is on it", name)
	}
	return on, nil
}

type purger struct {
	cmd         *cobra.Command
	cfg         cosid.Config
	cut, now    time.Time
	dryRun, yes bool
}

// doomed is a key to delete, with the store that holds it.
type doomed struct {
	key string
	st  store.Admin
}

func (p *purger) run(ctx context.Context, gens []periodic) error {
	out := p.cmd.OutOrStdout()
	stores := map[string]store.Admin{}
	defer func() {
		for _, st := range stores {
			st.Close()
		}
	}()
	var keys []doomed
	for _, g := range gens {
		st := stores[g.store]
		if st == nil {
			var err error
			if st, err = openAdmin(ctx, p.cfg, g.store, warnLogger(p.cmd)); err != nil {
				return err
			}
			stores[g.store] = st
		}
		found, err := p.old(ctx, st, g)
		if err != nil {
			return err
		}
		for _, k := range found {
			keys = append(keys, doomed{k, st})
			fmt.Fprintln(out, k)
		}
	}
	if len(keys) == 0 {
		fmt.Fprintf(out, "no period keys before %s\n", p.cut.Format("2006-01-02"))
		return nil
	}
	if p.dryRun {
		fmt.Fprintf(out, "dry run: would seal and delete %s\n", plural(len(keys), "key"))
		return nil
	}
	if !p.yes && !p.confirm(len(keys)) {
		return errors.New("nothing deleted: not confirmed (--yes skips the question)")
	}
	prog := newProgress(p.cmd.ErrOrStderr(), len(keys))
	for i, k := range keys {
		if err := k.st.Seal(ctx, k.key); err != nil {
			return fmt.Errorf("after %d of %d keys (run purge again to go on): %w", i, len(keys), err)
		}
		if err := k.st.Delete(ctx, k.key); err != nil {
			return fmt.Errorf("after %d of %d keys (run purge again to go on): %w", i, len(keys), err)
		}
		prog.step(i + 1)
	}
	prog.done()
	fmt.Fprintf(out, "sealed and deleted %s\n", plural(len(keys), "key"))
	return nil
}

// old lists g's period keys whose periods end by the cut, never its current or
// next period's.
func (p *purger) old(ctx context.Context, st store.Admin, g periodic) ([]string, error) {
	current := g.period.Start(p.now.In(g.loc))
	var found []string
	for k, err := range store.AllKeys(ctx, st, g.base+"/", keysPage) {
		if err != nil {
			return nil, err
		}
		start, perr := g.period.ParseKey(strings.TrimPrefix(k.Key, g.base+"/"), g.loc)
		if perr != nil || !start.Before(current) {
			continue // another generator's key, or the current period or later
		}
		end := g.period.Next(start)
		y, m, d := end.Date()
		if !time.Date(y, m, d, 0, 0, 0, 0, time.UTC).After(p.cut) {
			found = append(found, k.Key)
		}
	}
	return found, nil
}

// confirm asks on stderr and reads the answer from stdin.
func (p *purger) confirm(n int) bool {
	what := "these " + plural(n, "key")
	if n == 1 {
		what = "this key"
	}
	fmt.Fprintf(p.cmd.ErrOrStderr(), "seal and delete %s? [y/N] ", what)
	answer, _ := bufio.NewReader(p.cmd.InOrStdin()).ReadString('\n')
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}

// progress reports the keys done: a bar redrawn in place on a terminal, a line every
// progressEvery keys and at the end otherwise.
type progress struct {
	w        io.Writer
	total    int
	terminal bool
}

const (
	progressEvery = 1000
	barWidth      = 30
)

func newProgress(w io.Writer, total int) *progress {
	f, ok := w.(*os.File)
	terminal := false
	if ok {
		if fi, err := f.Stat(); err == nil {
			terminal = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progress{w: w, total: total, terminal: terminal}
}

func (p *progress) step(done int) {
	switch {
	case p.terminal:
		filled := done * barWidth / p.total
		fmt.Fprintf(p.w, "\r[%s%s] %d/%s", strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled), done, plural(p.total, "key"))
	case done%progressEvery == 0 || done == p.total:
		fmt.Fprintf(p.w, "purged %d/%s\n", done, plural(p.total, "key"))
	}
}

func (p *progress) done() {
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}
