// Package tracing turns on OpenTelemetry tracing for cosid serve from the standard
// OTEL_* environment variables: a span for every HTTP request (server.WithTracing)
// and every store call (server.TraceStore), exported over OTLP/HTTP, with the trace
// context carried to the servers that httpstore calls. Tracing is off unless the
// environment asks for it; off, nothing is wrapped and nothing is traced.
//
// It is a package of its own so that a program that imports package server does
// not link the OpenTelemetry SDK and exporter.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store/httpstore"
)

// Tracing is the tracing that the environment configures; the zero value, as
// FromEnv returns it when tracing is off, traces nothing.
type Tracing struct {
	tp        *sdktrace.TracerProvider
	transport bool // FromEnv set httpstore's transport wrapper
}

// FromEnv returns the tracing of the OTEL_* environment variables. It is on when
// OTEL_TRACES_EXPORTER is otlp, or when it is unset and OTEL_EXPORTER_OTLP_ENDPOINT
// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; OTEL_TRACES_EXPORTER=none and
// OTEL_SDK_DISABLED=true turn it off. The exporter is OTLP over HTTP
// (http/protobuf), configured by the OTEL_EXPORTER_OTLP_* variables; the sampler by
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default: parent-based, always
// on); the resource by OTEL_SERVICE_NAME (default cosid) and
// OTEL_RESOURCE_ATTRIBUTES. When it is on, every httpstore.Store made after it
// carries the trace context of its calls (httpstore.SetTransportWrapper). It makes
// no connection: the exporter sends the spans in batches.
//
// A value that would break the exporter's batches (an OTEL_BSP_* size or delay
// that is not positive) is an error naming its variable; one that OpenTelemetry
// ignores for its default is logged to logger (if not nil) at WARN, naming it.
func FromEnv(ctx context.Context, logger *slog.Logger) (*Tracing, error) {
	var warnings []string
	if v := strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")); v != "" && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		warnings = append(warnings, fmt.Sprintf("OTEL_SDK_DISABLED=%q means false: want true or false", v))
	}
	on, err := enabled(os.Getenv)
	if err == nil && on {
		var more []string
		more, err = checkEnv(os.Getenv)
		warnings = append(warnings, more...)
	}
	if logger != nil {
		for _, w := range warnings {
			logger.Warn("tracing: " + w)
		}
	}
	if err != nil || !on {
		return &Tracing{}, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: the OTLP exporter of OTEL_EXPORTER_OTLP_*: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "cosid")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("tracing: the resource of OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	httpstore.SetTransportWrapper(server.TraceTransport(tp))
	return &Tracing{tp: tp, transport: true}, nil
}

// New returns the tracing of tp, such as one with an in-memory exporter in a test.
// Unlike FromEnv it leaves httpstore's transport as it is.
func New(tp *sdktrace.TracerProvider) *Tracing { return &Tracing{tp: tp} }

// enabled reports whether getenv's variables turn tracing on, or what they set
// that this package cannot do.
func enabled(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch exporter := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exporter {
	case "none":
		return false, nil
	case "":
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return false, nil
		}
	case "otlp":
	default:
		return false, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER=%q; want otlp (OTLP over HTTP) or none", exporter)
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := strings.TrimSpace(getenv(name)); p != "" {
			if p != "http/protobuf" {
				return false, fmt.Errorf("tracing: %s=%q; want http/protobuf, the OTLP protocol cosid exports with (or unset it)", name, p)
			}
			break
		}
	}
	return true, nil
}

// Enabled reports whether t traces.
func (t *Tracing) Enabled() bool { return t.tp != nil }

// TracerProvider is t's provider; nil when t is off.
func (t *Tracing) TracerProvider() trace.TracerProvider {
	if t.tp == nil {
		return nil
	}
	return t.tp
}

// Runtime is the option of cosid.Open that traces the calls of the runtime's
// stores (server.TraceStores); off, it wraps nothing.
func (t *Tracing) Runtime() cosid.Option {
	if t.tp == nil {
		return cosid.WithStoreWrapper(nil)
	}
	return cosid.WithStoreWrapper(server.TraceStores(t.tp))
}

// Server is the option of server.New that traces its requests (server.WithTracing);
// off, it traces nothing.
func (t *Tracing) Server() server.Option { return server.WithTracing(t.TracerProvider()) }

// Shutdown exports the spans not yet exported, within ctx, and stops t. It
// removes the httpstore transport wrapper that FromEnv set.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	if t.transport {
		httpstore.SetTransportWrapper(nil)
	}
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("tracing: exporting the last spans: %w", err)
	}
	return nil
}
