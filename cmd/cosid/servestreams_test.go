package main

import (
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// TestServe_StreamLimitsFromTheConfiguration checks that cosid serve applies
// cosid.serve.limits.max-streams, with a served store and without one: with
// max-streams 1 a second StreamRanges is refused naming the setting while the
// first is open.
func TestServe_StreamLimitsFromTheConfiguration(t *testing.T) {
	for _, tc := range []struct{ name, serve string }{
		{"WithStore", "  serve: { store: db, limits: { max-streams: 1, stream-idle: 1m } }"},
		{"WithoutStore", "  serve: { limits: { max-streams: 1, stream-idle: 1m } }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeConfig(t, strings.Replace(serveConfig, "  serve: { store: db }", tc.serve, 1))
			p := startServe(t, dir, "--grpc-addr", "127.0.0.1:0")
			m := grpcListening.FindStringSubmatch(p.log())
			if m == nil {
				t.Fatalf("no grpc-addr in the log:\n%s", p.log())
			}
			conn, err := grpc.NewClient(m[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			ids := cosidv1.NewIdServiceClient(conn)
			first, err := ids.StreamRanges(t.Context(), &cosidv1.StreamRangesRequest{Name: "order", Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := first.Recv(); err != nil {
				t.Fatalf("the first stream: %v\n%s", err, p.log())
			}
			second, err := ids.StreamRanges(t.Context(), &cosidv1.StreamRangesRequest{Name: "order", Size: 1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = second.Recv()
			if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "cosid.serve.limits.max-streams") {
				t.Fatalf("a second stream with max-streams 1: %v; want ResourceExhausted naming cosid.serve.limits.max-streams", err)
			}
		})
	}
}
