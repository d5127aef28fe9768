package etcdstore_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/cosid-go/cosid/store/etcdstore"
)

// fakeMember answers Status with the release it is given, and nothing else: it
// stands for an etcd 3.5.0–3.5.2, which no package here installs.
type fakeMember struct {
	*pb.UnimplementedMaintenanceServer
	version string
}

func (f fakeMember) Status(context.Context, *pb.StatusRequest) (*pb.StatusResponse, error) {
	return &pb.StatusResponse{Header: &pb.ResponseHeader{ClusterId: 1, MemberId: 1}, Version: f.version}, nil
}

// startFakeMember serves a fakeMember of version on a loopback port until t ends.
func startFakeMember(t *testing.T, version string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pb.RegisterMaintenanceServer(srv, fakeMember{UnimplementedMaintenanceServer: &pb.UnimplementedMaintenanceServer{}, version: version})
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	return ln.Addr().String()
}

// TestReplicationGate_EtcdUnsafeVersionRefused checks the store's first call on a
// member that says it runs etcd 3.5.1 (a fake: only Status answers): refused with
// ErrUnsafeVersion, naming the member, the fix and the opt-in, before any write;
// with WithUnsafeVersion the call goes on to the member (whose KV the fake does not
// serve) after one warning. The real etcd of the tests (3.4) is accepted by every
// other test of the package.
func TestReplicationGate_EtcdUnsafeVersionRefused(t *testing.T) {
	addr := startFakeMember(t, "3.5.1")
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	st, err := etcdstore.New(client, etcdstore.WithTimeout(3*time.Second), etcdstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the check stays due until one passes
		_, err = st.Reserve(t.Context(), "k", 10, 0)
		if !errors.Is(err, etcdstore.ErrUnsafeVersion) {
			t.Fatalf("Reserve on etcd 3.5.1 = %v; want ErrUnsafeVersion", err)
		}
		for _, w := range []string{addr + " runs 3.5.1", "crash", "3.5.3", "allowUnsafeVersion"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q does not mention %q", err, w)
			}
		}
	}
	var log bytes.Buffer
	st, err = etcdstore.New(client, etcdstore.WithTimeout(3*time.Second), etcdstore.WithUnsafeVersion(),
		etcdstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "k", 10, 0); err == nil || errors.Is(err, etcdstore.ErrUnsafeVersion) {
		t.Errorf("Reserve with WithUnsafeVersion = %v; want the fake's refusal of the write, past the gate", err)
	}
	if got := log.String(); !strings.Contains(got, "level=WARN") || !strings.Contains(got, "allowUnsafeVersion") {
		t.Errorf("logged %q, want a warning naming allowUnsafeVersion", got)
	}
}

// TestReplicationGate_EtcdVersions checks which releases the gate calls unsafe.
func TestReplicationGate_EtcdVersions(t *testing.T) {
	for v, want := range map[string]bool{
		"3.5.0": true, "3.5.1": true, "3.5.2": true, "v3.5.2": true, "3.5.2-rc.0": true,
		"3.5.3": false, "3.5.21": false, "3.4.23": false, "3.6.0": false, "3.4.0": false, "": false, "garbage": false,
	} {
		if got := etcdstore.UnsafeVersion(v); got != want {
			t.Errorf("UnsafeVersion(%q) = %v, want %v", v, got, want)
		}
	}
}
