package faultproxy_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

// pauseTime is how long a failover keeps the new leader stopped with SIGSTOP:
// longer than the election timeout, so that the others elect another.
const pauseTime = 3 * time.Second

// quorumMember is a member of a three-member cluster (etcd or ZooKeeper) that a
// test starts itself, kills with SIGKILL, starts again on its directory, and
// stops with SIGSTOP.
type quorumMember struct {
	*ownServer
	client string // its client address, host:port
	args   []string
	leader func() bool // whether it leads now
}

// restart starts the member again on its directory, after a crash.
func (m *quorumMember) restart(t *testing.T) {
	t.Helper()
	m.ownServer = &ownServer{t: t, args: m.args, up: m.ownServer.up}
	m.start()
	t.Cleanup(m.crash)
}

// leaderOf returns the member that leads now, waiting for one for at most 30 s.
func leaderOf(t *testing.T, ms []*quorumMember, not *quorumMember) *quorumMember {
	t.Helper()
	var found *quorumMember
	until(t, 30*time.Second, "a leader", func() bool {
		for _, m := range ms {
			if m != not && m.cmd != nil && m.leader() {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// quorumFailover kills the leader with SIGKILL, waits for the others to elect
// another, starts the old one again, then stops the new leader with SIGSTOP for
// pauseTime and lets it go on: the failovers of the review (../shared/reviews/failover.md, case 3).
func quorumFailover(t *testing.T, ms []*quorumMember) {
	t.Helper()
	time.Sleep(time.Second) // sleep-ok: a second of load before the failover
	old := leaderOf(t, ms, nil)
	old.crash()
	next := leaderOf(t, ms, old)
	old.restart(t)
	pid := next.cmd.Process.Pid
	syscall.Kill(pid, syscall.SIGSTOP)
	time.Sleep(pauseTime) // sleep-ok: the leader's pause, under load
	syscall.Kill(pid, syscall.SIGCONT)
	leaderOf(t, ms, nil)
}

// quorumFailovers runs the harness's load on the cluster ms through rounds
// failovers and returns the report.
func quorumFailovers(t *testing.T, ms []*quorumMember, open opener, rounds int) failoverReport {
	t.Helper()
	logs := failoverLoad(t, open, "order", rounds, func(int) { quorumFailover(t, ms) })
	rep := checkRanges(logs)
	rep.Failovers = rounds
	return rep
}

// listening returns the up check of a server that accepts connections on addr.
func listening(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}
}

// etcdStatus returns the Status of the member at ep, within a second.
func etcdStatus(ep string) (*clientv3.StatusResponse, error) {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.Status(ctx, ep)
}

// newEtcdCluster starts three etcd members on free loopback ports and directories
// of their own (heartbeat 100 ms, election timeout 1 s).
func newEtcdCluster(t *testing.T) []*quorumMember {
	t.Helper()
	needFailover(t)
	testenv.Server(t, testenv.Etcd) // the family of tests this machine runs
	bin := program(t, "etcd")
	var peers []string
	type ports struct{ client, peer int }
	var ps []ports
	for i := range 3 {
		p := ports{freePort(t), freePort(t)}
		ps = append(ps, p)
		peers = append(peers, fmt.Sprintf("e%d=http://127.0.0.1:%d", i+1, p.peer))
	}
	ms := make([]*quorumMember, 3)
	for i, p := range ps {
		client := "127.0.0.1:" + strconv.Itoa(p.client)
		peer := fmt.Sprintf("http://127.0.0.1:%d", p.peer)
		m := &quorumMember{client: client, args: []string{bin, "--name", fmt.Sprintf("e%d", i+1), "--data-dir", t.TempDir(),
			"--listen-client-urls", "http://" + client, "--advertise-client-urls", "http://" + client,
			"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
			"--initial-cluster", strings.Join(peers, ","), "--initial-cluster-state", "new",
			"--heartbeat-interval", "100", "--election-timeout", "1000"}}
		m.leader = func() bool {
			st, err := etcdStatus(client)
			return err == nil && st.Leader != 0 && st.Header.MemberId == st.Leader
		}
		// Up once it listens: a member answers nothing else before it has its peers.
		m.ownServer = &ownServer{t: t, args: m.args, up: listening(client)}
		ms[i] = m
	}
	return startQuorum(t, ms)
}

// TestFailover_EtcdThreeMembers_NoIdTwice runs stores that list every member's
// endpoint on a three-member etcd, killing the leader with SIGKILL and starting it
// again, then stopping the new leader with SIGSTOP, again and again: no id is held
// twice. Raft acknowledges a write once a majority has it in its log.
func TestFailover_EtcdThreeMembers_NoIdTwice(t *testing.T) {
	t.Parallel()
	ms := newEtcdCluster(t)
	open := quorumStore(ms, "etcd", "endpoints", "{ prefix: /f/ }")
	noIDTwice(t, quorumFailovers(t, ms, open, failoverRounds(t, 2)))
}

// startQuorum starts the members ms, stopped when t ends, and returns them once
// one of them leads.
func startQuorum(t *testing.T, ms []*quorumMember) []*quorumMember {
	for _, m := range ms {
		m.start()
		t.Cleanup(m.crash)
	}
	leaderOf(t, ms, nil)
	return ms
}

// quorumStore opens stores of type typ that list every member of ms under the
// setting list, with options.
func quorumStore(ms []*quorumMember, typ, list, options string) opener {
	var addrs []string
	for _, m := range ms {
		addrs = append(addrs, strconv.Quote(m.client))
	}
	yaml := fmt.Sprintf("%s: [%s]\ntimeout: %v\noptions: %s\n", list, strings.Join(addrs, ", "), storeTimeout, options)
	openStoreType, _ := store.Lookup(typ)
	openStore := openStoreType.Open
	return func(ctx context.Context) (store.RangeStore, error) {
		return openStore(ctx, testenv.Spec("failover", yaml, slog.New(slog.DiscardHandler)))
	}
}
