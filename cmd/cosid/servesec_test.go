package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
)

// TestSecurity_H1_OpenStoreAPIOffLoopbackRefused checks that cosid serve refuses to
// serve the store API without a token on an address that is not loopback, saying
// how to set one.
func TestSecurity_H1_OpenStoreAPIOffLoopbackRefused(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	_, errOut, code := runCLI(t, dir, "serve", "--addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "cosid.serve.tokens.store") || !strings.Contains(errOut, "--token-file") {
		t.Errorf("exit %d, stderr %q; want exit 1 saying how to set a token", code, errOut)
	}
	// The gRPC listener serves the store API too: the same refusal, naming its flag.
	_, errOut, code = runCLI(t, dir, "serve", "--addr", "127.0.0.1:0", "--grpc-addr", "0.0.0.0:0")
	if code != 1 || !strings.Contains(errOut, "--grpc-addr 0.0.0.0:0 is not a loopback address") {
		t.Errorf("--grpc-addr 0.0.0.0:0: exit %d, stderr %q; want exit 1 naming --grpc-addr", code, errOut)
	}
	st := cosid.ServeConfig{Store: "db"}
	withToken := newTestServer(t, server.WithRoleToken(server.RoleStore, "t"))
	without := newTestServer(t)
	for _, tt := range []struct {
		addr    string
		srv     *server.Server
		serve   cosid.ServeConfig
		refused bool
	}{
		{"0.0.0.0:8686", without, st, true},
		{":8686", without, st, true},
		{"[::]:8686", without, st, true},
		{"10.0.0.5:8686", without, st, true},
		{"0.0.0.0:8686", withToken, st, false},
		{"0.0.0.0:8686", without, cosid.ServeConfig{}, false}, // no store API
		{"127.0.0.1:8686", without, st, false},
		{"localhost:8686", without, st, false},
		{"[::1]:8686", without, st, false},
	} {
		if err := checkExposure("--addr", tt.addr, tt.serve, tt.srv); (err != nil) != tt.refused {
			t.Errorf("checkExposure(%s, store %q) = %v, want refused %v", tt.addr, tt.serve.Store, err, tt.refused)
		}
	}
}

// newTestServer returns a server of an empty runtime.
func newTestServer(t *testing.T, opts ...server.Option) *server.Server {
	t.Helper()
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := server.New(rt, append(opts, server.WithLogger(nil))...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// TestServe_RoleTokensFromConfig checks where each role's token comes from: its
// flag, else --token-file, else serve.tokens, whose paths are read from the
// configuration file's directory.
func TestServe_RoleTokensFromConfig(t *testing.T) {
	confDir, workDir := t.TempDir(), t.TempDir()
	write := func(dir, name, token string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(confDir, "ids.token", "from-config-ids")
	write(confDir, "sub/admin.token", "from-config-admin")
	write(workDir, "ids.token", "from-workdir") // a relative config path is not read from here
	t.Chdir(workDir)
	cfg := cosid.ServeConfig{Tokens: cosid.ServeTokens{IDs: "ids.token", Admin: "sub/admin.token"}}
	flagMonitor := write(workDir, "monitor.token", "from-flag-monitor")

	opts, err := roleTokens(serveFlags{roleTokens: map[server.Role]string{server.RoleMonitor: "monitor.token"}}, cfg, confDir)
	if err != nil {
		t.Fatal(err)
	}
	_ = flagMonitor
	srv := newTestServer(t, opts...)
	want := map[string]int{"from-config-ids": 200, "from-workdir": 401}
	for token, status := range want {
		req := httptest.NewRequestWithContext(t.Context(), "GET", "/v1/generators", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != status {
			t.Errorf("/v1/generators with %s: %d, want %d", token, rec.Code, status)
		}
	}
	if !srv.HasToken(server.RoleAdmin) || !srv.HasToken(server.RoleMonitor) || srv.HasToken(server.RoleStore) {
		t.Errorf("roles with a token: admin %v, monitor %v, store %v; want admin and monitor only",
			srv.HasToken(server.RoleAdmin), srv.HasToken(server.RoleMonitor), srv.HasToken(server.RoleStore))
	}
	// --token-file is every role's, a role's own flag wins.
	all := write(workDir, "all.token", "every-role")
	opts, err = roleTokens(serveFlags{tokenFile: all, roleTokens: map[server.Role]string{server.RoleIDs: "monitor.token"}}, cfg, confDir)
	if err != nil {
		t.Fatal(err)
	}
	srv = newTestServer(t, opts...)
	for _, role := range server.Roles() {
		if !srv.HasToken(role) {
			t.Errorf("--token-file: role %s has no token", role)
		}
	}
	for _, bad := range []string{write(workDir, "empty.token", "  "), write(workDir, "space.token", "two words"), filepath.Join(workDir, "missing")} {
		if _, err := roleTokens(serveFlags{tokenFile: bad}, cfg, confDir); err == nil || !strings.Contains(err.Error(), "--token-file") {
			t.Errorf("token file %s: %v, want an error naming --token-file", bad, err)
		}
	}
}

// TestSecurity_M3_ConnectionCap checks that the listener hands out at most its cap
// of connections at once, and the next one when one closes.
func TestSecurity_M3_ConnectionCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &fakeListener{conns: make(chan net.Conn, 10)}
		for range 3 {
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			inner.conns <- a
		}
		ln := limitListener(inner, 2)
		var held []net.Conn
		for range 2 {
			c, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		third := make(chan net.Conn, 1)
		go func() {
			c, err := ln.Accept()
			if err == nil {
				third <- c
			}
		}()
		synctest.Wait()
		if len(third) != 0 {
			t.Fatal("a third connection was accepted over the cap of 2")
		}
		held[0].Close()
		synctest.Wait()
		if len(third) != 1 {
			t.Fatal("no connection was accepted after one of the two closed")
		}
		ln.Close()
	})
	if d := limitListener(&fakeListener{conns: make(chan net.Conn)}, 0); d == nil {
		t.Fatal("no listener for the default cap")
	}
}

// fakeListener accepts the connections sent on conns.
type fakeListener struct {
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func (l *fakeListener) Accept() (net.Conn, error) {
	l.once.Do(func() { l.done = make(chan struct{}) })
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *fakeListener) Close() error {
	l.once.Do(func() { l.done = make(chan struct{}) })
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// writeRSACert writes a self-signed certificate for 127.0.0.1 with an RSA key of
// bits and the serial number serial to certFile and keyFile.
func writeRSACert(t *testing.T, certFile, keyFile string, bits int, serial int64) *x509.Certificate {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "cosid test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// TestSecurity_L5_WeakRSAKeyRefused checks that a certificate with an RSA key under
// 2048 bits is refused at start, saying so.
func TestSecurity_L5_WeakRSAKeyRefused(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeRSACert(t, certFile, keyFile, 1024, 1)
	_, errOut, code := runCLI(t, dir, "serve", "--addr", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if code != 1 || !strings.Contains(errOut, "1024 bits") || !strings.Contains(errOut, "2048") {
		t.Errorf("exit %d, stderr %q; want exit 1 naming the 1024-bit key", code, errOut)
	}
}

// TestSecurity_L5_CertificateReloaded checks that a changed certificate is served
// from the first handshake after the next check, and that a broken one keeps the
// loaded certificate.
func TestSecurity_L5_CertificateReloaded(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeRSACert(t, certFile, keyFile, 2048, 1)
	clock := time.Unix(1e9, 0)
	r, err := newCertReloader(certFile, keyFile, slog.New(slog.DiscardHandler), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	serial := func() int64 {
		t.Helper()
		c, err := r.GetCertificate(&tls.ClientHelloInfo{})
		if err != nil {
			t.Fatal(err)
		}
		return c.Leaf.SerialNumber.Int64()
	}
	touch := func(at time.Time) {
		for _, f := range []string{certFile, keyFile} {
			if err := os.Chtimes(f, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeRSACert(t, certFile, keyFile, 2048, 2)
	touch(time.Unix(2e9, 0))
	if got := serial(); got != 1 {
		t.Errorf("before the next check: serial %d, want 1", got)
	}
	clock = clock.Add(certCheckEvery)
	if got := serial(); got != 2 {
		t.Errorf("after the files changed: serial %d, want 2", got)
	}
	if err := os.WriteFile(certFile, []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	touch(time.Unix(3e9, 0))
	clock = clock.Add(certCheckEvery)
	if got := serial(); got != 2 {
		t.Errorf("after a broken certificate: serial %d, want the loaded 2", got)
	}
	writeRSACert(t, certFile, keyFile, 1024, 3)
	touch(time.Unix(4e9, 0))
	clock = clock.Add(certCheckEvery)
	if got := serial(); got != 2 {
		t.Errorf("after a weak certificate: serial %d, want the loaded 2", got)
	}
}

// TestSecurity_L5_HTTP2OverTLS checks that cosid serve over TLS speaks HTTP/2 to a
// client that offers it.
func TestSecurity_L5_HTTP2OverTLS(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	certFile, keyFile, pool := selfSigned(t, dir)
	p := startServe(t, dir, "--tls-cert", certFile, "--tls-key", keyFile)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), "GET", strings.Replace(p.url, "http://", "https://", 1)+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 {
		t.Errorf("GET /healthz over TLS: %s %d, want HTTP/2 200", resp.Proto, resp.StatusCode)
	}
}
