package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The addresses of the two servers of the load test: `cosid serve` and its
// baseline, bench/constserver, a bare net/http handler answering a constant.
const (
	cosidAddr = "127.0.0.1:18696"
	bareAddr  = "127.0.0.1:18697"
	nextPath  = "/v1/generators/order/next"
)

// load is what one rateload run measured.
type load struct {
	okRate           float64       // answered requests a second
	sentP50, sentP99 time.Duration // latency from when each request was sent
	dueP50, dueP99   time.Duration // from when it was due (corrected for coordinated omission)
}

var (
	okRateRE = regexp.MustCompile(`\bok ([0-9.]+) req/s`)
	sentRE   = regexp.MustCompile(`from when sent\s+\[[^\]]*\]\s+(.+)`)
	dueRE    = regexp.MustCompile(`from when due\s+\[[^\]]*\]\s+(.+)`)
)

// parseLoad reads rateload's output.
func parseLoad(out string) (load, error) {
	var l load
	m := okRateRE.FindStringSubmatch(out)
	if m == nil {
		return l, fmt.Errorf("rateload printed no ok rate: %q", out)
	}
	l.okRate, _ = strconv.ParseFloat(m[1], 64)
	for _, q := range []struct {
		re       *regexp.Regexp
		p50, p99 *time.Duration
	}{{sentRE, &l.sentP50, &l.sentP99}, {dueRE, &l.dueP50, &l.dueP99}} {
		m := q.re.FindStringSubmatch(out)
		if m == nil {
			return l, fmt.Errorf("rateload printed no quantiles %s: %q", q.re, out)
		}
		qs := strings.Split(m[1], ", ")
		if len(qs) < 3 {
			return l, fmt.Errorf("rateload's quantiles %q: want 50, 90, 99, …", m[1])
		}
		var err1, err2 error
		*q.p50, err1 = time.ParseDuration(strings.TrimSpace(qs[0]))
		*q.p99, err2 = time.ParseDuration(strings.TrimSpace(qs[2]))
		if err := errors.Join(err1, err2); err != nil {
			return l, fmt.Errorf("rateload's quantiles %q: %w", m[1], err)
		}
	}
	return l, nil
}

// serveFigures is what the load test of `cosid serve` measured beside the bare
// handler: at full load (the connections sending as fast as the servers answer),
// round by round, alternating; then at half of cosid's full rate, at a fixed rate.
type serveFigures struct {
	conns    int
	duration time.Duration
	full     [][2]load // per round: bare, cosid
	halfRate int
	half     [2]load // bare, cosid
	skipped  string  // why the load test did not run, if it did not
}

// loadTest builds `cosid serve`, bench/constserver and bench/rateload, starts the
// servers and measures them.
func loadTest(ctx context.Context, root string, rounds, conns int, duration time.Duration, log io.Writer) (serveFigures, error) {
	f := serveFigures{conns: conns, duration: duration}
	work, err := os.MkdirTemp("", "cosid-report-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(work)
	for _, pkg := range []string{"./cmd/cosid", "./bench/constserver", "./bench/rateload"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(work, filepath.Base(pkg)), pkg)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, log, log
		if err := cmd.Run(); err != nil {
			return f, fmt.Errorf("go build %s: %w", pkg, err)
		}
	}
	cfg := "cosid:\n  namespace: report\n  stores:\n    db: { type: memory }\n  generators:\n    order: { strategy: segment, store: db, step: 1000 }\n"
	if err := os.WriteFile(filepath.Join(work, "cosid.yaml"), []byte(cfg), 0o600); err != nil {
		return f, err
	}
	stop, err := start(ctx, work, log, "cosid", "serve", "--addr", cosidAddr)
	if err != nil {
		return f, err
	}
	defer stop()
	stopBare, err := start(ctx, work, log, "constserver", bareAddr)
	if err != nil {
		return f, err
	}
	defer stopBare()
	if err := waitUp(ctx, "http://"+cosidAddr+"/healthz", "http://"+bareAddr+"/"); err != nil {
		return f, err
	}
	// rl runs rateload on addr at rate, or at full load (a closed loop) when rate is 0.
	rl := func(addr string, rate int, d time.Duration) (load, error) {
		args := []string{"-url", "http://" + addr + nextPath, "-duration", d.String(), "-conns", strconv.Itoa(conns)}
		if rate == 0 {
			args = append(args, "-closed")
		} else {
			args = append(args, "-rate", strconv.Itoa(rate))
		}
		cmd := exec.CommandContext(ctx, filepath.Join(work, "rateload"), args...)
		cmd.Stderr = log
		out, err := cmd.Output()
		fmt.Fprintf(log, "rateload %s at %d req/s:\n%s", addr, rate, out)
		if err != nil {
			return load{}, fmt.Errorf("rateload %s: %w", addr, err)
		}
		return parseLoad(string(out))
	}
	// Warm up: the first requests size the generator's ranges by the measured rate.
	if _, err := rl(cosidAddr, 0, min(duration, 2*time.Second)); err != nil {
		return f, err
	}
	var cosidRates []float64
	for range rounds {
		var pair [2]load
		for i, addr := range []string{bareAddr, cosidAddr} {
			if pair[i], err = rl(addr, 0, duration); err != nil {
				return f, err
			}
		}
		f.full = append(f.full, pair)
		cosidRates = append(cosidRates, pair[1].okRate)
	}
	full, _ := median(cosidRates)
	f.halfRate = max(int(full/2), conns) // rateload wants a connection's rate ≥ 1/s
	for i, addr := range []string{bareAddr, cosidAddr} {
		if f.half[i], err = rl(addr, f.halfRate, duration); err != nil {
			return f, err
		}
	}
	return f, nil
}

// start starts the program name of dir with args, and returns what stops it.
func start(ctx context.Context, dir string, log io.Writer, name string, args ...string) (func(), error) {
	cmd := exec.CommandContext(ctx, filepath.Join(dir, name), args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return func() {
		cmd.Process.Kill()
		cmd.Wait()
	}, nil
}

// waitUp waits until every URL answers 200, for 10s at most.
func waitUp(ctx context.Context, urls ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, u := range urls {
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					break
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s does not answer: %w", u, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}
