// Command report runs the figures of docs/performance.md, every one beside its
// baseline in the same run (the medians of -count runs), and writes the page from
// its template, page.md.tmpl: the page is generated, never edited by hand. Run it
// from the repository (it finds the root by the go.work file):
//
//	go run ./bench/report              # the page, docs/performance.md (some 10 minutes)
//	go run ./bench/report -short       # each benchmark once and a 1s load test: checks that it works
//
// The stores' figures need their servers' COSID_TEST_ variables; a run whose
// variable is unset is left out, and the page says so.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"text/template"
	"time"
)

//go:embed page.md.tmpl
var pageTemplate string

// serveGoal is the share of the bare handler's requests a second that `cosid serve`
// answers at full load, in every round.
const serveGoal = 0.90

func main() {
	out := flag.String("out", "", "the page to write; default docs/performance.md, or a temporary file with -short")
	short := flag.Bool("short", false, "run each benchmark once and the load test for 1s: checks that the report works, measures nothing")
	count := flag.Int("count", 3, "runs of each benchmark, whose median is the figure")
	benchtime := flag.String("benchtime", "1s", "go test's -benchtime of each benchmark")
	duration := flag.Duration("duration", 10*time.Second, "the load test's time per server and round")
	rounds := flag.Int("rounds", 3, "the load test's rounds at full load, alternating the bare handler and cosid serve")
	conns := flag.Int("conns", 64, "the load test's connections")
	verbose := flag.Bool("v", false, "print the benchmarks' and the load test's output as they run")
	flag.Parse()
	if *short {
		*count, *benchtime, *duration, *rounds = 1, "1x", time.Second, 1
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	if err := report(ctx, *out, *short, *count, *benchtime, *duration, *rounds, *conns, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func report(ctx context.Context, out string, short bool, count int, benchtime string, duration time.Duration, rounds, conns int, verbose bool) error {
	root, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	var log io.Writer = io.Discard
	if verbose {
		log = os.Stderr
	}
	page := pageData{Count: count, Benchtime: benchtime, Duration: duration, Rounds: rounds, Conns: conns,
		ServeGoal: serveGoal, Short: short, Tables: map[string]string{}}
	page.Machine = machine(ctx, root)
	page.LoadBefore = loadAvg()
	var ms []measured
	var failed []error
	for _, r := range runs() {
		m := measured{run: r}
		if e := r.missingEnv(); e != "" {
			m.skipped = e + " is unset"
		} else {
			fmt.Fprintf(os.Stderr, "report: %s\n", r.command(count, benchtime))
			if m.res, err = r.exec(ctx, root, count, benchtime, log); err != nil {
				failed = append(failed, err)
			}
			m.rows = r.rows(m.res)
			for _, rw := range m.rows {
				if _, ok := m.res.value(rw.unit, append(rw.ours, rw.base...)...); !ok {
					failed = append(failed, fmt.Errorf("%s: %s of %v beside %v is missing from its output", r.command(count, benchtime), rw.unit, rw.ours, rw.base))
				}
			}
		}
		ms = append(ms, m)
	}
	for _, s := range []string{secHot, secSnowflake, secText, secStores, secServer} {
		page.Tables[s] = table(s, ms, count, benchtime)
	}
	fmt.Fprintf(os.Stderr, "report: load test of cosid serve, %d rounds of %v\n", rounds, duration)
	serve, err := loadTest(ctx, root, rounds, conns, duration, log)
	if err != nil {
		failed = append(failed, fmt.Errorf("load test: %w", err))
		serve.skipped = "the load test failed: " + err.Error()
	}
	page.Serve = serveTable(serve, serveGoal)
	page.LoadAfter = loadAvg()
	page.Generated = time.Now().UTC().Format("2006-01-02 15:04 MST")

	text, err := render(page)
	if err != nil {
		return err
	}
	switch {
	case out == "" && short:
		f, err := os.CreateTemp("", "performance-*.md")
		if err != nil {
			return err
		}
		f.Close()
		out = f.Name()
	case out == "":
		out = filepath.Join(root, "docs", "performance.md")
	}
	if err := os.WriteFile(out, text, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report: wrote %s\n", out)
	return errors.Join(failed...)
}

// pageData is what page.md.tmpl renders.
type pageData struct {
	Generated, Machine    string
	LoadBefore, LoadAfter string
	Count                 int
	Benchtime             string
	Duration              time.Duration
	Rounds, Conns         int
	ServeGoal             float64
	Short                 bool
	Tables                map[string]string // by section
	Serve                 string
}

func render(p pageData) ([]byte, error) {
	t, err := template.New("page").Parse(pageTemplate)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// repoRoot returns the directory of the workspace's go.work.
func repoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOWORK").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOWORK: %w", err)
	}
	work := strings.TrimSpace(string(out))
	if work == "" || work == "off" {
		return "", errors.New("not in the repository's workspace: run report from the repository, where go.work is")
	}
	return filepath.Dir(work), nil
}

// machine describes the machine, the Go and the commit the figures are of.
func machine(ctx context.Context, root string) string {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(data)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	goVersion, _ := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	git := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD")
	git.Dir = root
	commit, _ := git.Output()
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s/%s, %s, commit %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(goVersion)), strings.TrimSpace(string(commit)))
}

// loadAvg returns the machine's load averages over 1, 5 and 15 minutes.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}
