package server

import (
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

// parseJavaDuration parses the text of Java's Duration.toString, ISO-8601's
// PnDTnHnMn.nS with an optional sign on each number: PT30S, PT0.5S, PT5M, P1DT2H. A
// duration past Forever is Forever; a negative or zero one is an error.
func parseJavaDuration(s string) (time.Duration, error) {
	bad := func(why string) error {
		return fmt.Errorf("%q is not an ISO-8601 duration such as PT30S or PT5M: %s", s, why)
	}
	rest, ok := strings.CutPrefix(strings.ToUpper(s), "P")
	if !ok {
		return 0, bad("it does not start with P")
	}
	var ms float64 // float64: every part is summed in ms, and past Forever it only needs to tell so
	inTime, seen, last := false, false, -1
	for rest != "" {
		if rest[0] == 'T' {
			if inTime {
				return 0, bad("T twice")
			}
			inTime, rest = true, rest[1:]
			continue
		}
		i := strings.IndexAny(rest, "DHMS")
		if i <= 0 {
			return 0, bad("a number without a unit D, H, M or S")
		}
		num, unit := rest[:i], rest[i]
		rest = rest[i+1:]
		if order := strings.IndexByte("DHMS", unit); order <= last {
			return 0, bad("units out of the order D, H, M, S or given twice")
		} else {
			last = order
		}
		if strings.ContainsAny(num, "eE_xX") || (unit != 'S' && strings.Contains(num, ".")) {
			return 0, bad("only seconds may have a fraction")
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, bad(fmt.Sprintf("%q is not a number", num))
		}
		switch {
		case unit == 'D' && !inTime:
			ms += v * 86_400_000
		case unit == 'H' && inTime:
			ms += v * 3_600_000
		case unit == 'M' && inTime:
			ms += v * 60_000
		case unit == 'S' && inTime:
			ms += v * 1000
		default:
			return 0, bad(fmt.Sprintf("unit %c out of place", unit))
		}
		seen = true
	}
	switch {
	case !seen:
		return 0, bad("no amount")
	case ms <= 0:
		return 0, bad("want a positive duration")
	case ms >= float64(Forever/time.Millisecond):
		return Forever, nil
	}
	return time.Duration(math.Ceil(ms)) * time.Millisecond, nil
}
