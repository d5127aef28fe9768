package main

import (
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
)

// defaultMaxConnections is serve.max-connections when the configuration sets none:
// enough for many clients with keep-alive connections, far below the process's
// file limit, so that one client cannot hold every descriptor.
const defaultMaxConnections = 1024

// minRSABits is the smallest RSA key a TLS certificate may have.
const minRSABits = 2048

// certCheckEvery is how often the TLS certificate's files are checked for a change
// at most: a handshake checks them when they were last checked this long ago.
const certCheckEvery = time.Second

// roleTokens returns the token options of the flags and of cfg.Serve.Tokens: a
// role's own flag, else --token-file (every role), else serve.tokens.ROLE. A path of
// the configuration is read from dir, the configuration file's directory; a flag's
// from the working directory.
func roleTokens(f serveFlags, cfg cosid.ServeConfig, dir string) ([]server.Option, error) {
	fromConfig := map[server.Role]string{server.RoleIDs: cfg.Tokens.IDs, server.RoleStore: cfg.Tokens.Store,
		server.RoleAdmin: cfg.Tokens.Admin, server.RoleMonitor: cfg.Tokens.Monitor}
	var opts []server.Option
	for _, role := range server.Roles() {
		file, setting := f.roleTokens[role], "--"+role.String()+"-token-file"
		switch {
		case file != "":
		case f.tokenFile != "":
			file, setting = f.tokenFile, "--token-file"
		case fromConfig[role] != "":
			file, setting = fromConfig[role], "cosid.serve.tokens."+role.String()
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
		default:
			continue
		}
		token, err := readToken(file, setting)
		if err != nil {
			return nil, err
		}
		opts = append(opts, server.WithRoleToken(role, token))
	}
	return opts, nil
}

// readToken reads the token in file, white space around it trimmed.
func readToken(file, setting string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", setting, err)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", fmt.Errorf("%s: the file %s is empty", setting, file)
	}
	if strings.ContainsAny(token, " \t\r\n") {
		return "", fmt.Errorf("%s: the token in %s has white space in it, which no client could send", setting, file)
	}
	return token, nil
}

// checkExposure refuses to serve the store API without a token on an address
// that is not loopback: anyone who reaches it could reserve, seal and lease.
func checkExposure(flag, addr string, cfg cosid.ServeConfig, srv *server.Server) error {
	if server.IsLoopback(addr) || cfg.Store == "" || srv.HasToken(server.RoleStore) {
		return nil
	}
	return fmt.Errorf("cosid serve: %s %s is not a loopback address, and the store API (cosid.serve.store: %s) has no token: "+
		"anyone who reaches the port could reserve, seal and lease on that store; "+
		"set cosid.serve.tokens.store (or --store-token-file, or --token-file for every role), or bind 127.0.0.1", flag, addr, cfg.Store)
}

// listen listens on addr, holding at most max connections at once (a further one
// waits in the kernel's backlog until one closes).
func listen(addr string, max int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return limitListener(ln, max), nil
}

func limitListener(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		max = defaultMaxConnections
	}
	return netutil.LimitListener(ln, max)
}

// certReloader serves a certificate from its files, reloading it when they
// change: a renewed certificate needs no restart.
type certReloader struct {
	certFile, keyFile string
	logger            *slog.Logger
	now               func() time.Time

	mu              sync.Mutex
	cert            *tls.Certificate
	certMod, keyMod time.Time
	checked         time.Time
}

// newCertReloader loads the certificate of certFile and keyFile, or says why it
// cannot serve it.
func newCertReloader(certFile, keyFile string, logger *slog.Logger, now func() time.Time) (*certReloader, error) {
	c := &certReloader{certFile: certFile, keyFile: keyFile, logger: logger, now: now}
	certMod, keyMod, err := c.mtimes()
	if err != nil {
		return nil, fmt.Errorf("--tls-cert, --tls-key: %w", err)
	}
	cert, err := loadCert(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert, --tls-key: %w", err)
	}
	c.cert, c.certMod, c.keyMod, c.checked = cert, certMod, keyMod, now()
	return c, nil
}

func (c *certReloader) mtimes() (certMod, keyMod time.Time, err error) {
	ci, err := os.Stat(c.certFile)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	ki, err := os.Stat(c.keyFile)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	return ci.ModTime(), ki.ModTime(), nil
}

// GetCertificate is the tls.Config hook: the certificate, reloaded first when its
// files changed since they were last checked, at most every certCheckEvery. A
// changed certificate that cannot be loaded is logged, and the old one kept.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(c.checked) < certCheckEvery {
		return c.cert, nil
	}
	c.checked = now
	certMod, keyMod, err := c.mtimes()
	if err != nil {
		c.logger.Warn("cosid serve: checking the TLS certificate's files; serving the loaded one", "error", err)
		return c.cert, nil
	}
	if certMod.Equal(c.certMod) && keyMod.Equal(c.keyMod) {
		return c.cert, nil
	}
	cert, err := loadCert(c.certFile, c.keyFile)
	if err != nil {
		// A pair caught half written fails here; it is tried again once its files
		// change again, or at the next check.
		c.logger.Warn("cosid serve: reloading the TLS certificate; serving the loaded one", "error", err)
		return c.cert, nil
	}
	c.cert, c.certMod, c.keyMod = cert, certMod, keyMod
	c.logger.Info("cosid serve: reloaded the TLS certificate", "cert", c.certFile)
	return c.cert, nil
}

// loadCert loads a certificate and its key, refusing an RSA key under minRSABits.
func loadCert(certFile, keyFile string) (*tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	leaf := cert.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, err
		}
	}
	if pub, ok := leaf.PublicKey.(*rsa.PublicKey); ok && pub.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("%s: an RSA key of %d bits; want at least %d", certFile, pub.N.BitLen(), minRSABits)
	}
	return &cert, nil
}

// tlsConfig is the TLS configuration of the server: TLS 1.2 or later, the
// certificate of reload. http.Server.ServeTLS adds HTTP/2 to it.
func tlsConfig(reload *certReloader) *tls.Config {
	return &tls.Config{GetCertificate: reload.GetCertificate, MinVersion: tls.VersionTLS12}
}

var errTLSFlags = errors.New("--tls-cert and --tls-key go together: give both or neither")
