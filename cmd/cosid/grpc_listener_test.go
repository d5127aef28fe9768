package main

import (
	"crypto/tls"
	"regexp"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

var grpcListening = regexp.MustCompile(`grpc-addr=(\S+)`)

// TestServe_GRPCListener serves with --grpc-addr, without TLS and with the
// server's certificates: a grpc-go client takes ids there.
func TestServe_GRPCListener(t *testing.T) {
	for _, tc := range []struct {
		name string
		tls  bool
	}{{"h2c", false}, {"TLS", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeConfig(t, serveConfig)
			args := []string{"--grpc-addr", "127.0.0.1:0"}
			creds := insecure.NewCredentials()
			if tc.tls {
				certFile, keyFile, pool := selfSigned(t, dir)
				args = append(args, "--tls-cert", certFile, "--tls-key", keyFile)
				creds = credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
			}
			p := startServe(t, dir, args...)
			m := grpcListening.FindStringSubmatch(p.log())
			if m == nil {
				t.Fatalf("no grpc-addr in the log:\n%s", p.log())
			}
			conn, err := grpc.NewClient(m[1], grpc.WithTransportCredentials(creds))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			res, err := cosidv1.NewIdServiceClient(conn).Next(t.Context(), &cosidv1.NextRequest{Name: "order", Count: 3})
			if err != nil || len(res.GetIds()) != 3 {
				t.Fatalf("Next on the gRPC listener: %v, %v; want 3 ids\n%s", res, err, p.log())
			}
		})
	}
}
