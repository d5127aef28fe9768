package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// results holds what one `go test -bench` run printed: per benchmark (its name
// without the GOMAXPROCS suffix), per unit, the value of each of its -count runs.
type results map[string]map[string][]float64

// benchLine is a line of a benchmark's result: its name, its iterations, and its
// pairs of value and unit.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.+)$`)

// parseBench reads the output of `go test -bench` and returns its results. A line
// that is not a result (PASS, goos:, a log line) is skipped.
func parseBench(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[2])
		if len(fields)%2 != 0 {
			continue
		}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark %s: value %q of %s: %w", m[1], fields[i], fields[i+1], err)
			}
			if res[m[1]] == nil {
				res[m[1]] = map[string][]float64{}
			}
			res[m[1]][fields[i+1]] = append(res[m[1]][fields[i+1]], v)
		}
	}
	return res, sc.Err()
}

// median returns the median of vs, and false when vs is empty.
func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// value returns the sum of the medians of unit of the benchmarks names, and false
// when one of them is missing.
func (r results) value(unit string, names ...string) (float64, bool) {
	var sum float64
	for _, n := range names {
		v, ok := median(r[n][unit])
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, len(names) > 0
}

// subs returns the names of the sub-benchmarks of parent that report unit, sorted.
func (r results) subs(parent, unit string) []string {
	var names []string
	for n, units := range r {
		if rest, ok := strings.CutPrefix(n, parent+"/"); ok && rest != "" && len(units[unit]) > 0 {
			names = append(names, rest)
		}
	}
	slices.Sort(names)
	return names
}

// run is one `go test -bench` invocation and the figures read from its results.
type run struct {
	section string
	pkg     string   // the package, relative to the repository's root
	bench   string   // the -bench pattern
	env     []string // the COSID_TEST_ variables it needs: the run is left out when one is unset
	rows    func(results) []row
}

// row is one figure: ours beside its baseline, measured in the same run.
type row struct {
	what       string
	unit       string
	ours, base []string // benchmark names whose medians are summed
	baseConst  float64  // a fixed baseline (a layout's ceiling) when base is empty
	baseWhat   string   // what the baseline is, for the table
	goal       float64  // the ratio ours/base that meets the goal; 0: no goal
	higher     bool     // a larger value is better (a rate): the goal is a floor
}

// command returns the command line that reproduces r.
func (r run) command(count int, benchtime string) string {
	return fmt.Sprintf("go test -run '^$' -bench '%s' -benchmem -count=%d -benchtime=%s %s", r.bench, count, benchtime, r.pkg)
}

// missingEnv returns the first variable of r.env that is unset.
func (r run) missingEnv() string {
	for _, e := range r.env {
		if os.Getenv(e) == "" {
			return e
		}
	}
	return ""
}

// exec runs r's benchmarks from the repository's root and returns their results;
// the output goes to log as it comes.
func (r run) exec(ctx context.Context, root string, count int, benchtime string, log io.Writer) (results, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", r.bench, "-benchmem",
		"-count="+strconv.Itoa(count), "-benchtime="+benchtime, r.pkg)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w", r.command(count, benchtime), err)
	}
	return parseBench(&out)
}
