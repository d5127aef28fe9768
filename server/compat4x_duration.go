package server

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Forever is the lease TTL of a CosId 4.x safe-guard duration beyond what a
// time.Duration holds, such as the 4.x client's "forever" (PT2562047788015215H30M7.807S,
// Long.MAX_VALUE ms): about 292 years, a lease that does not expire by itself.
const Forever = time.Duration(math.MaxInt64 / int64(time.Millisecond) * int64(time.Millisecond))

// foreverMs is Forever in milliseconds.
const foreverMs = int64(Forever / time.Millisecond)

// parseJavaDuration parses the text of Java's Duration.toString, ISO-8601's
// PnDTnHnMn.nS in upper case: PT30S, PT0.5S, PT5M, P1DT2H. Each amount is digits
// only (no sign: a lease is never negative), units come once each in the order D, T,
// H, M, S, a T has a time after it, and only seconds have a fraction, of whole
// milliseconds, as the stores keep TTLs. A duration past Forever is Forever; zero is
// an error.
func parseJavaDuration(s string) (time.Duration, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q is not an ISO-8601 duration such as PT30S or PT5M: %s", s, why)
	}
	rest, ok := strings.CutPrefix(s, "P")
	if !ok {
		return 0, bad("it does not start with P (in upper case)")
	}
	date, clock, hasT := strings.Cut(rest, "T")
	switch {
	case hasT && clock == "":
		return 0, bad("a T without a time after it")
	case date == "" && !hasT:
		return 0, bad("no amount")
	}
	var ms int64
	over := false // the sum passed Forever
	add := func(v, unitMs int64) {
		if over || v > (foreverMs-ms)/unitMs {
			over = true
			return
		}
		ms += v * unitMs
	}
	if date != "" {
		num, ok := strings.CutSuffix(date, "D")
		v, err := wholeAmount(num)
		if !ok || err != nil {
			return 0, bad("before T, only days (nD)")
		}
		add(v, 86_400_000)
	}
	last := -1
	for clock != "" {
		i := strings.IndexAny(clock, "HMS")
		if i < 0 {
			return 0, bad("a number without a unit H, M or S")
		}
		num, unit := clock[:i], clock[i]
		clock = clock[i+1:]
		order := strings.IndexByte("HMS", unit)
		if order <= last {
			return 0, bad("units out of the order H, M, S or given twice")
		}
		last = order
		whole, frac, hasFrac := strings.Cut(num, ".")
		if hasFrac && unit != 'S' {
			return 0, bad("only seconds may have a fraction")
		}
		v, err := wholeAmount(whole)
		if err != nil {
			return 0, bad(fmt.Sprintf("amount %q: %v", num, err))
		}
		add(v, [...]int64{3_600_000, 60_000, 1000}[order])
		if hasFrac {
			fms, err := millisOf(frac)
			if err != nil {
				return 0, bad(fmt.Sprintf("amount %q: %v", num, err))
			}
			add(fms, 1)
		}
	}
	switch {
	case over || ms >= foreverMs:
		return Forever, nil
	case ms == 0:
		return 0, bad("want a positive duration")
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// wholeAmount reads the digits of an amount; past int64 it is math.MaxInt64, which
// Forever then caps.
func wholeAmount(num string) (int64, error) {
	if num == "" || strings.Trim(num, "0123456789") != "" {
		return 0, errors.New("want digits only")
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return math.MaxInt64, nil // only digits: too large
	}
	return v, nil
}

// millisOf returns the milliseconds of the fraction of a second frac (1–9 digits):
// a part below a millisecond is refused, as no store keeps it.
func millisOf(frac string) (int64, error) {
	if frac == "" || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return 0, errors.New("want 1–9 digits after the point")
	}
	padded := (frac + "000")[:3]
	if strings.Trim(frac[min(len(frac), 3):], "0") != "" {
		return 0, errors.New("a part of a millisecond, which no store keeps")
	}
	v, _ := strconv.ParseInt(padded, 10, 64) // three digits
	return v, nil
}
