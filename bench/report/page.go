package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// measured is one run's figures, or why the run was left out.
type measured struct {
	run     run
	rows    []row
	res     results
	skipped string
}

// table renders the figures of the runs of section as a Markdown table, each row
// naming the run whose command, listed under the table, reproduces it.
func table(section string, ms []measured, count int, benchtime string) string {
	var b, cmds strings.Builder
	b.WriteString("| figure | ours | baseline | ratio | goal | run |\n|---|--:|--:|--:|---|--:|\n")
	n := 0
	for _, m := range ms {
		if m.run.section != section {
			continue
		}
		n++
		fmt.Fprintf(&cmds, "%d. `%s`", n, m.run.command(count, benchtime))
		if m.skipped != "" {
			fmt.Fprintf(&cmds, " — not measured here: %s", m.skipped)
		}
		cmds.WriteString("\n")
		for _, r := range m.rows {
			ours, okO := m.res.value(r.unit, r.ours...)
			base, okB := m.res.value(r.unit, r.base...)
			if len(r.base) == 0 {
				base, okB = r.baseConst, r.baseConst > 0
			}
			if !okO || !okB || base == 0 {
				fmt.Fprintf(&b, "| %s | — | %s | — | %s | %d |\n", r.what, r.baseWhat, goalText(r, 0, false), n)
				continue
			}
			ratio := ours / base
			fmt.Fprintf(&b, "| %s | %s | %s (%s) | %.2f× | %s | %d |\n", r.what, format(ours, r.unit), format(base, r.unit), r.baseWhat, ratio, goalText(r, ratio, true), n)
		}
	}
	return b.String() + "\n" + cmds.String()
}

// goalText says r's goal and, when measured, whether ratio meets it.
func goalText(r row, ratio float64, measured bool) string {
	if r.goal == 0 {
		return ""
	}
	op, met := "≤", ratio <= r.goal
	if r.higher {
		op, met = "≥", ratio >= r.goal
	}
	s := fmt.Sprintf("%s %.2g×", op, r.goal)
	switch {
	case !measured:
		return s
	case met:
		return s + " met"
	}
	return s + " **missed**"
}

// format writes v of unit for a reader.
func format(v float64, unit string) string {
	switch unit {
	case "ns/op":
		switch {
		case v >= 1e6:
			return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " ms"
		case v >= 1e3:
			return strconv.FormatFloat(v/1e3, 'f', 1, 64) + " µs"
		}
		return strconv.FormatFloat(v, 'f', 1, 64) + " ns"
	case "bytes/key":
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	case "ids/s", "calls/s":
		if v >= 1e9 {
			return strconv.FormatFloat(v/1e9, 'f', 1, 64) + " G " + unit
		}
		if v >= 1e6 {
			return strconv.FormatFloat(v/1e6, 'f', 1, 64) + " M " + unit
		}
		return thousands(v) + " " + unit
	}
	return thousands(v) + " " + unit
}

// thousands writes v rounded, with commas between groups of three digits.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// serveTable renders the load test's figures.
func serveTable(f serveFigures, goal float64) string {
	if f.skipped != "" {
		return "Not measured here: " + f.skipped + "\n"
	}
	var b strings.Builder
	b.WriteString("| load | bare net/http | `cosid serve` | ratio | goal |\n|---|--:|--:|--:|---|\n")
	for i, p := range f.full {
		ratio := p[1].okRate / p[0].okRate
		met := " met"
		if ratio < goal {
			met = " **missed**"
		}
		fmt.Fprintf(&b, "| full load, round %d: req/s | %s | %s | %.3f× | ≥ %.2f× in every round%s |\n", i+1, thousands(p[0].okRate), thousands(p[1].okRate), ratio, goal, met)
		fmt.Fprintf(&b, "| full load, round %d: p50 / p99 from when sent | %s / %s | %s / %s | %s | |\n", i+1,
			dur(p[0].sentP50), dur(p[0].sentP99), dur(p[1].sentP50), dur(p[1].sentP99), durRatio(p[1].sentP99, p[0].sentP99))
	}
	fmt.Fprintf(&b, "| half load, %s req/s: p50 / p99 from when due | %s / %s | %s / %s | %s | |\n", thousands(float64(f.halfRate)),
		dur(f.half[0].dueP50), dur(f.half[0].dueP99), dur(f.half[1].dueP50), dur(f.half[1].dueP99), durRatio(f.half[1].dueP99, f.half[0].dueP99))
	fmt.Fprintf(&b, "| half load: answered req/s | %s | %s | %.3f× | |\n", thousands(f.half[0].okRate), thousands(f.half[1].okRate), f.half[1].okRate/f.half[0].okRate)
	return b.String()
}

func dur(d time.Duration) string { return d.Round(time.Microsecond).String() }

// durRatio is the ratio of the p99s, ours over the bare handler's.
func durRatio(ours, base time.Duration) string {
	if base <= 0 {
		return "—"
	}
	return fmt.Sprintf("p99 %.2f×", float64(ours)/float64(base))
}
