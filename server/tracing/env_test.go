package tracing

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestCheckEnv_BreakingValuesAreErrorsIgnoredOnesWarnings(t *testing.T) {
	for _, tc := range []struct {
		env      map[string]string
		errWord  string // the variable the error names, or "" for none
		warnWord string // the variable a warning names, or "" for no warning
	}{
		{env: nil},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "4096", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "256", "OTEL_BSP_SCHEDULE_DELAY": "1000"}},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "-1"}, errWord: "OTEL_BSP_MAX_QUEUE_SIZE"},
		{env: map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "-1"}, errWord: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "0"}, errWord: "OTEL_BSP_MAX_QUEUE_SIZE"},
		{env: map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "-5"}, errWord: "OTEL_BSP_SCHEDULE_DELAY"},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "lots"}, warnWord: "OTEL_BSP_MAX_QUEUE_SIZE"},
		{env: map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "20"}, warnWord: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "::::"}, warnWord: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector:4318"}, warnWord: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER_ARG": "abc"}, warnWord: "OTEL_TRACES_SAMPLER_ARG"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "abc"}, warnWord: "OTEL_TRACES_SAMPLER_ARG"},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25"}},
		{env: map[string]string{"OTEL_TRACES_SAMPLER": "sometimes"}, warnWord: "OTEL_TRACES_SAMPLER"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "-5"}, warnWord: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, warnWord: "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc,tenant=t%201"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "api-key"}, warnWord: "OTEL_EXPORTER_OTLP_HEADERS"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a b=c"}, warnWord: "OTEL_EXPORTER_OTLP_HEADERS"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, warnWord: "OTEL_EXPORTER_OTLP_COMPRESSION"},
		{env: map[string]string{"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT": "many"}, warnWord: "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT"},
	} {
		warnings, err := checkEnv(func(k string) string { return tc.env[k] })
		if (err == nil) != (tc.errWord == "") || err != nil && !strings.Contains(err.Error(), tc.errWord) {
			t.Errorf("%v: error %v, want one naming %q", tc.env, err, tc.errWord)
		}
		joined := strings.Join(warnings, "\n")
		if (tc.warnWord == "") != (len(warnings) == 0) || !strings.Contains(joined, tc.warnWord) {
			t.Errorf("%v: warnings %q, want one naming %q", tc.env, warnings, tc.warnWord)
		}
	}
}

// TestFromEnv_NegativeQueueIsAnErrorNotAPanic: OTEL_BSP_MAX_QUEUE_SIZE=-1 made
// the SDK's batch processor panic (makeslice) when cosid serve started.
func TestFromEnv_NegativeQueueIsAnErrorNotAPanic(t *testing.T) {
	for _, name := range []string{"OTEL_BSP_MAX_QUEUE_SIZE", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("OTEL_TRACES_EXPORTER", "")
			t.Setenv("OTEL_SDK_DISABLED", "")
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
			t.Setenv(name, "-1")
			tr, err := FromEnv(t.Context(), nil)
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("FromEnv: %v, want an error naming %s", err, name)
			}
			if tr != nil && tr.Enabled() {
				t.Error("tracing is on after the error")
				tr.Shutdown(t.Context())
			}
		})
	}
}

func TestFromEnv_WarnsOfIgnoredValues(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_SDK_DISABLED", "maybe")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_TRACES_SAMPLER_ARG", "abc")
	var buf bytes.Buffer
	tr, err := FromEnv(t.Context(), slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(t.Context())
	for _, name := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_SAMPLER_ARG"} {
		if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), name) {
			t.Errorf("the log %q has no WARN naming %s", buf.String(), name)
		}
	}
}
