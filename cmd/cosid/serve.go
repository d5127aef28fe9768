package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/server/tracing"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// shutdownGrace is how long a stopping server waits for the requests in flight.
const shutdownGrace = 10 * time.Second

// readyzKey is the key that /readyz reserves a value of on every store: a store that
// answers a reservation within its timeout is ready.
const readyzKey = ".cosid/readyz"

type serveFlags struct {
	config         string
	addr           string
	grpcAddr       string
	tokenFile      string
	roleTokens     map[server.Role]string // --ROLE-token-file
	allowedHosts   []string
	maxConnections int
	tlsCert        string
	tlsKey         string
}

func serveCommand(stderr io.Writer) *cobra.Command {
	f := serveFlags{roleTokens: map[server.Role]string{}}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the generators, the store API and CosId 4.x's proxy API over HTTP",
		Long: `Serve the generators of a configuration over HTTP: their ids
(/v1/generators/NAME/next), the store API of remote stores of type http
(/v1/store/..., backed by the store cosid.serve.store names), CosId 4.x's
proxy-server API, /healthz, /readyz, /metrics and a status page at /.

With no configuration, it serves the embedded default store, the SQLite file cosid.db
in the working directory. It binds 127.0.0.1 unless --addr says otherwise.

Every route needs the bearer token of its role, when the role has one: ids
(/v1/generators, 4.x /ids), store (/v1/store), admin (/v1/store/admin, served only
with its token), monitor (/metrics, /readyz details, the status page, which takes
the token as an HTTP Basic password). --token-file sets one token for every role;
--ROLE-token-file or cosid.serve.tokens.ROLE one role's. /healthz is open. A server
on an address that is not loopback refuses to start with the store API open.

On SIGINT or SIGTERM it stops accepting, finishes the requests in flight, gives
back what its segment generators reserved and did not hand out (so that a restart
goes on with no gap), releases its Snowflake leases and closes its stores.`,
		Example: `  cosid serve
  cosid serve --config cosid.yaml --addr 0.0.0.0:8686 --token-file /run/secrets/cosid
  curl -s 'localhost:8686/v1/generators/bill/next?count=3'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, f, cmd.Flags().Changed("config"), stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.config, "config", "c", defaultConfig, "the configuration file")
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8686", "the address to listen on")
	fl.StringVar(&f.grpcAddr, "grpc-addr", "", "the address of a gRPC listener served by grpc-go (default serve.grpc-addr, else none)")
	fl.StringVar(&f.tokenFile, "token-file", "", "a file holding the bearer token of every role (ids, store, admin, monitor)")
	for _, role := range server.Roles() {
		f.roleTokens[role] = ""
		fl.Func(role.String()+"-token-file", "a file holding the bearer token of the "+role.String()+" role (overrides --token-file)",
			func(v string) error { f.roleTokens[role] = v; return nil })
	}
	fl.StringArrayVar(&f.allowedHosts, "allowed-host", nil, "a Host name a loopback server answers besides the loopback ones (repeatable; adds to serve.allowed-hosts)")
	fl.IntVar(&f.maxConnections, "max-connections", 0, fmt.Sprintf("the most connections held open at once (default serve.max-connections, else %d)", defaultMaxConnections))
	fl.StringVar(&f.tlsCert, "tls-cert", "", "the TLS certificate file (with --tls-key)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "the TLS key file (with --tls-cert)")
	return cmd
}

// serve runs the server until ctx ends, then shuts it down.
func serve(ctx context.Context, f serveFlags, explicit bool, stderr io.Writer) error {
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if (f.tlsCert == "") != (f.tlsKey == "") {
		return errTLSFlags
	}
	cfg, ok, err := readConfig(f.config, explicit)
	if err != nil {
		return err
	}
	if !ok {
		cfg = cosid.DefaultConfig()
		cfg.Serve.Store = cosid.DefaultStore
	}
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		return err
	}
	opts, err := serverOptions(f, cfg.Serve, filepath.Dir(f.config), logger, reg, m)
	if err != nil {
		return err
	}
	tr, err := tracing.FromEnv(ctx, logger) // off unless OTEL_* asks
	if err != nil {
		return err
	}
	defer shutdownTracing(tr, logger)
	opts = append(opts, tr.Server())
	var reload *certReloader
	if f.tlsCert != "" {
		if reload, err = newCertReloader(f.tlsCert, f.tlsKey, logger, time.Now); err != nil {
			return err
		}
	}
	rt, err := cosid.Open(ctx, cfg, cosid.WithLogger(logger), tr.Runtime(),
		cosid.WithSegmentOptions(func(_, st string) []segment.Option { return []segment.Option{m.SegmentOption(st)} }),
		cosid.WithSnowflakeOptions(func(string, string) []snowflake.Option { return []snowflake.Option{m.SnowflakeOption()} }))
	if err != nil {
		return err
	}
	defer func() {
		if err := rt.Close(); err != nil {
			logger.Warn("cosid serve: closing the runtime", "error", err)
		}
	}()
	opts = append(opts, readiness(rt, cfg)...)
	// One reader of the capacity for /metrics and the status page: the same reads.
	capacity := metrics.NewCapacityReader(metrics.RuntimeCapacity(rt))
	opts = append(opts, server.WithCapacity(capacity))
	// The limits bind the id routes too (max-streams, stream-idle), with a served
	// store or without one.
	l := cfg.Serve.Limits
	opts = append(opts, server.WithLimits(server.Limits{MaxReserve: l.MaxReserve, MaxSlots: l.MaxSlots, MaxLeaseTTL: l.MaxLeaseTTL,
		MaxStreams: l.MaxStreams, StreamIdle: l.StreamIdle}))
	if name := cfg.Serve.Store; name != "" {
		opts = append(opts, server.WithStoreFunc(func(ctx context.Context) (store.RangeStore, error) { return rt.Store(ctx, name) }))
		if cfg.Serve.Cosid4x {
			opts = append(opts, server.WithCompat4x())
		}
	}
	opts = append(opts, server.WithRateLimit(server.RateLimit(cfg.Serve.Limits.Rate)))
	if l := cfg.Serve.Leaf; l.Segment != "" || l.Snowflake != "" {
		opts = append(opts, server.WithLeaf(l.Segment, l.Snowflake))
	}
	if t := cfg.Serve.Tinyid.Template; t != "" {
		opts = append(opts, server.WithTinyid(t))
	}
	srv, err := server.New(rt, opts...)
	if err != nil {
		return err
	}
	grpcAddr := f.grpcAddr
	if grpcAddr == "" {
		grpcAddr = cfg.Serve.GRPCAddr
	}
	if err := checkExposure("--addr", f.addr, cfg.Serve, srv); err != nil {
		return err
	}
	if grpcAddr != "" {
		if err := checkExposure("--grpc-addr", grpcAddr, cfg.Serve, srv); err != nil {
			return err
		}
	}
	reg.MustRegister(metrics.NewStatsCollector(srv.SegmentStats), metrics.NewLeaseCollector(srv.Leases),
		capacity.Collector(), metrics.NewKeyCollector(srv.KeyCounts))
	hs := srv.HTTPServer(f.addr)
	maxConns := f.maxConnections
	if maxConns == 0 {
		maxConns = cfg.Serve.MaxConnections
	}
	ln, err := listen(f.addr, maxConns)
	if err != nil {
		return err
	}
	// The gRPC listener serves the same services with grpc-go's own server, on
	// the same certificates; it holds its own maxConns connections.
	var gs *grpc.Server
	var gln net.Listener
	if grpcAddr != "" {
		if gln, err = listen(grpcAddr, maxConns); err != nil {
			ln.Close()
			return fmt.Errorf("the gRPC listener (--grpc-addr, serve.grpc-addr): %w", err)
		}
		var gopts []grpc.ServerOption
		if reload != nil {
			gopts = append(gopts, grpc.Creds(credentials.NewTLS(tlsConfig(reload))))
		}
		gs = srv.GRPCServer(gopts...)
	}
	var roles []string
	for _, role := range server.Roles() {
		if srv.HasToken(role) {
			roles = append(roles, role.String())
		}
	}
	for _, a := range []string{f.addr, grpcAddr} {
		if a != "" && !server.IsLoopback(a) && reload == nil && len(roles) > 0 {
			logger.Warn("cosid serve: the tokens go over the network in plain text: set --tls-cert and --tls-key, or put a TLS proxy in front", "addr", a)
		}
	}
	attrs := []any{"addr", ln.Addr().String()}
	if gln != nil {
		attrs = append(attrs, "grpc-addr", gln.Addr().String())
	}
	logger.Info("cosid serve: listening", append(attrs, "tls", reload != nil, "tokens", strings.Join(roles, ","),
		"generators", len(cfg.Generators), "store-api", cfg.Serve.Store, "tracing", tr.Enabled())...)
	served := make(chan error, 2)
	if gs != nil {
		go func() { served <- gs.Serve(gln) }()
		defer gs.Stop() // a listener that failed first leaves the other to stop
	}
	if name := cfg.Serve.Store; name != "" {
		go logStoreID(ctx, rt, name, logger)
	}
	if reload != nil {
		hs.TLSConfig = tlsConfig(reload)
		go func() { served <- hs.ServeTLS(ln, "", "") }()
	} else {
		go func() { served <- hs.Serve(ln) }()
	}
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("cosid serve: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if gs != nil {
		stopGRPC(sctx, gs)
	}
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// stopGRPC stops gs as hs.Shutdown stops hs: no new calls, the calls in flight
// finish until ctx ends, when the rest are ended.
func stopGRPC(ctx context.Context, gs *grpc.Server) {
	done := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		gs.Stop()
		<-done
	}
}

// shutdownTracing exports the spans not yet exported, within shutdownGrace.
func shutdownTracing(tr *tracing.Tracing, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		logger.Warn("cosid serve: stopping tracing", "error", err)
	}
}

// serverOptions returns the options of the flags and of serve (whose paths are read
// from dir): the tokens, the allowed hosts, and metrics on reg.
func serverOptions(f serveFlags, serve cosid.ServeConfig, dir string, logger *slog.Logger, reg *prometheus.Registry, m *metrics.Metrics) ([]server.Option, error) {
	opts := []server.Option{server.WithLogger(logger), server.WithAllowedHosts(append(serve.AllowedHosts, f.allowedHosts...)...),
		server.WithH2C(serve.H2C)}
	tokens, err := roleTokens(f, serve, dir)
	if err != nil {
		return nil, err
	}
	opts = append(opts, tokens...)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return append(opts, server.WithMetrics(m, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))), nil
}

// logStoreID logs the identity of the store of the store API, which the clients
// that list several servers pin (httpstore's store-id), once the store answers it.
func logStoreID(ctx context.Context, rt *cosid.Runtime, name string, logger *slog.Logger) {
	st, err := rt.Store(ctx, name)
	if err != nil {
		logger.Warn("cosid serve: the store of the store API did not open; its identity is unknown", "store", name, "error", err)
		return
	}
	ider, ok := st.(store.Identifier)
	if !ok {
		return
	}
	id, err := ider.StoreID(ctx)
	if err != nil {
		logger.Warn("cosid serve: reading the identity of the store of the store API", "store", name, "error", err)
		return
	}
	logger.Info("cosid serve: store identity", "store", name, "store-id", id)
}

// readiness returns a check of every configured store: it opens and answers a
// reservation of readyzKey within its timeout.
func readiness(rt *cosid.Runtime, cfg cosid.Config) []server.Option {
	var opts []server.Option
	for name := range cfg.Stores {
		opts = append(opts, server.WithReadiness("store "+name, func(r *http.Request) error {
			st, err := rt.Store(r.Context(), name)
			if err != nil {
				return err
			}
			_, err = st.Reserve(r.Context(), readyzKey, 1, 0)
			return err
		}))
	}
	return opts
}
