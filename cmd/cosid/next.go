package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// defaultStore is the embedded default: a SQLite file in the working directory.
const defaultStore = "sqlite:cosid.db"

type nextFlags struct {
	count      int64
	namespace  string
	store      string
	dsn        string
	driver     string
	timeout    time.Duration
	initSchema bool
}

func nextCommand(stderr io.Writer) *cobra.Command {
	var f nextFlags
	cmd := &cobra.Command{
		Use:   "next NAME",
		Short: "Print the next ids of a segment, one a line",
		Long: `Print the next COUNT ids of the segment NAME of namespace NS (key NS/NAME),
reserving exactly COUNT from the store: nothing is burned, and the next run goes on
where this one stopped.

Without --store or --dsn the store is the embedded default, the SQLite file cosid.db
in the working directory.`,
		Example: `  cosid next order -n 3
  cosid next order --store sqlite:/var/lib/cosid.db
  cosid next order --dsn 'postgres://app@db:5432/app'
  cosid next order --dsn 'app@tcp(db:3306)/app'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return next(cmd.OutOrStdout(), stderr, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.Int64VarP(&f.count, "count", "n", 1, "how many ids to print")
	fl.StringVar(&f.namespace, "namespace", "cosid", "the namespace of the key NS/NAME")
	fl.StringVar(&f.store, "store", "", "the store: sqlite:PATH (default "+defaultStore+")")
	fl.StringVar(&f.dsn, "dsn", "", "the DSN of an SQL database, instead of --store")
	fl.StringVar(&f.driver, "driver", "", "the database/sql driver of --dsn: pgx, mysql, sqlserver or sqlite (default: from the DSN)")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Second, "how long a store call may take")
	fl.BoolVar(&f.initSchema, "init-schema", true, "create the store's tables when missing")
	return cmd
}

func next(stdout, stderr io.Writer, name string, f nextFlags) error {
	if f.count < 1 {
		return fmt.Errorf("--count %d: want ≥ 1", f.count)
	}
	driver, dsn, err := storeTarget(f)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := sqlstore.Open(driver, dsn, f.timeout, sqlstore.WithInitSchema(f.initSchema), sqlstore.WithLogger(logger))
	if err != nil {
		return err
	}
	defer st.Close()
	// Step COUNT without lookahead reserves exactly the ids printed.
	p := segment.DefaultBatchPolicy()
	p.Step, p.Lookahead, p.MaxBatch, p.ReserveTimeout = f.count, 0, 0, f.timeout
	g, err := segment.New(st, f.namespace+"/"+name, p, segment.WithLogger(logger))
	if err != nil {
		return err
	}
	defer g.Close()
	w := bufio.NewWriter(stdout)
	for range f.count {
		id, err := g.Next()
		if err != nil {
			return errors.Join(err, w.Flush())
		}
		fmt.Fprintln(w, id)
	}
	return w.Flush()
}

// storeTarget returns the driver and DSN that the flags name.
func storeTarget(f nextFlags) (driver, dsn string, err error) {
	switch {
	case f.store != "" && f.dsn != "":
		return "", "", errors.New("--store and --dsn both name a store: give one")
	case f.driver != "" && f.dsn == "":
		return "", "", errors.New("--driver needs --dsn")
	case f.dsn != "":
		if f.driver != "" {
			return f.driver, f.dsn, nil
		}
		driver, err := inferDriver(f.dsn)
		return driver, f.dsn, err
	}
	target := f.store
	if target == "" {
		target = defaultStore
	}
	path, ok := strings.CutPrefix(target, "sqlite:")
	if !ok || path == "" {
		return "", "", fmt.Errorf("--store %q: want sqlite:PATH, or --dsn for another database", f.store)
	}
	return "sqlite", path, nil
}

// inferDriver tells the driver from the form of a DSN.
func inferDriver(dsn string) (string, error) {
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		return "pgx", nil
	case strings.HasPrefix(dsn, "sqlserver://"):
		return "sqlserver", nil
	case strings.Contains(dsn, "@tcp("), strings.Contains(dsn, "@unix("), strings.HasPrefix(dsn, "tcp("):
		return "mysql", nil
	case strings.HasPrefix(dsn, "file:"):
		return "sqlite", nil
	}
	return "", fmt.Errorf("cannot tell the driver of DSN %q: set --driver to pgx, mysql, sqlserver or sqlite", dsn)
}
