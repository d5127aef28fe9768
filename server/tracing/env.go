package tracing

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// checkEnv checks the OTEL_* variables that the SDK and the exporter read when
// tracing is on. A value the SDK would act on and break with (a batch span
// processor queue, batch or delay that is not positive: a negative size panics at
// start) is the error; a value they would ignore, falling back to their default
// with at most a line on their own error handler, is a warning naming it, so that
// the user learns the setting has no effect.
func checkEnv(getenv func(string) string) (warnings []string, err error) {
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	for _, name := range []string{"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_BSP_SCHEDULE_DELAY"} {
		v := get(name)
		if v == "" {
			continue
		}
		n, perr := strconv.Atoi(v)
		switch {
		case perr != nil:
			warnings = append(warnings, fmt.Sprintf("%s=%q is ignored: want a positive integer", name, v))
		case n <= 0:
			return nil, fmt.Errorf("tracing: %s=%q; want a positive integer (or unset it)", name, v)
		}
	}
	queue, qerr := strconv.Atoi(get("OTEL_BSP_MAX_QUEUE_SIZE"))
	batch, berr := strconv.Atoi(get("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"))
	if qerr == nil && berr == nil && batch > queue {
		warnings = append(warnings, fmt.Sprintf("OTEL_BSP_MAX_EXPORT_BATCH_SIZE=%d is above OTEL_BSP_MAX_QUEUE_SIZE=%d: the batches are made smaller", batch, queue))
	}
	for _, name := range []string{"OTEL_BSP_EXPORT_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
		"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT",
		"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT",
		"OTEL_SPAN_LINK_COUNT_LIMIT", "OTEL_LINK_ATTRIBUTE_COUNT_LIMIT"} {
		if v := get(name); v != "" {
			if n, err := strconv.Atoi(v); err != nil || n < 0 {
				warnings = append(warnings, fmt.Sprintf("%s=%q is ignored: want an integer of 0 or more", name, v))
			}
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		if v := get(name); v != "" {
			if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				warnings = append(warnings, fmt.Sprintf("%s=%q is not a URL of http or https and a host, such as http://collector:4318", name, v))
			}
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if bad := badHeaders(get(name)); bad != "" {
			warnings = append(warnings, fmt.Sprintf("%s: %q is ignored: want key=value pairs, separated by commas, with the values URL-encoded", name, bad))
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"} {
		if v := get(name); v != "" && v != "gzip" && v != "none" {
			warnings = append(warnings, fmt.Sprintf("%s=%q means none: want gzip or none", name, v))
		}
	}
	return append(warnings, samplerWarnings(get)...), nil
}

// samplerWarnings names the OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG
// values that the SDK ignores for its default sampler or a ratio of 1.
func samplerWarnings(get func(string) string) []string {
	sampler, arg := strings.ToLower(get("OTEL_TRACES_SAMPLER")), get("OTEL_TRACES_SAMPLER_ARG")
	switch sampler {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
		if arg != "" {
			return []string{fmt.Sprintf("OTEL_TRACES_SAMPLER_ARG=%q is ignored: only the traceidratio and parentbased_traceidratio samplers of OTEL_TRACES_SAMPLER take it", arg)}
		}
	case "traceidratio", "parentbased_traceidratio":
		if r, err := strconv.ParseFloat(arg, 64); arg != "" && (err != nil || r < 0 || r > 1) {
			return []string{fmt.Sprintf("OTEL_TRACES_SAMPLER_ARG=%q is ignored (a ratio of 1): want a ratio from 0 to 1", arg)}
		}
	default:
		return []string{fmt.Sprintf("OTEL_TRACES_SAMPLER=%q is ignored (parentbased_always_on): want always_on, always_off, traceidratio or one of them with parentbased_", sampler)}
	}
	return nil
}

// badHeaders is the first entry of an OTEL_EXPORTER_OTLP_HEADERS value that the
// exporter drops, or "".
func badHeaders(v string) string {
	if v == "" {
		return ""
	}
	for entry := range strings.SplitSeq(v, ",") {
		key, value, found := strings.Cut(entry, "=")
		if _, err := url.PathUnescape(value); !found || err != nil || !validHeaderKey(strings.TrimSpace(key)) {
			return entry
		}
	}
	return ""
}

// validHeaderKey reports whether key is an HTTP header name (an RFC 7230 token).
func validHeaderKey(key string) bool {
	if key == "" {
		return false
	}
	for _, c := range key {
		if c > 0x7f || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}
