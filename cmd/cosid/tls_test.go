package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir and returns their
// paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cosid test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServe_TLS serves HTTPS with --tls-cert and --tls-key: a store of type http that
// trusts the certificate reserves through it, one that does not is refused.
func TestServe_TLS(t *testing.T) {
	dir := writeConfig(t, serveConfig)
	certFile, keyFile, pool := selfSigned(t, dir)
	p := startServe(t, dir, "--tls-cert", certFile, "--tls-key", keyFile)
	url := strings.Replace(p.url, "http://", "https://", 1)
	st, err := httpstore.New(url, httpstore.WithTLSConfig(&tls.Config{RootCAs: pool}))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := st.Reserve(t.Context(), "tls/key", 5, 1); err != nil || r.Start != 1 || r.End != 6 {
		t.Errorf("reserve over TLS: %v, %v; want [1, 6)", r, err)
	}
	untrusting, err := httpstore.New(url)
	if err != nil {
		t.Fatal(err)
	}
	var unknownCA x509.UnknownAuthorityError
	if _, err := untrusting.Reserve(t.Context(), "tls/key", 5, 1); !errors.As(err, &unknownCA) || errors.Is(err, wire.ErrRemote) {
		t.Errorf("reserve without trusting the certificate: %v, want an unknown authority error", err)
	}
}
