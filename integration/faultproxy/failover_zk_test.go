package faultproxy_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	_ "github.com/cosid-go/cosid/store/zkstore"
)

// zkJars is where Debian's zookeeper package keeps its jars, run with java as
// .ci/run runs the ZooKeeper of the tests.
const zkJars = "/usr/share/java/zookeeper.jar"

// zkMode returns the Mode line of the srvr command of the server at addr
// ("leader", "follower"), "" when it does not answer.
func zkMode(addr string) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprint(c, "srvr")
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return v
		}
	}
	return ""
}

// newZKCluster starts a three-server ZooKeeper ensemble on free loopback ports and
// directories of its own (tickTime 200 ms, so a lost leader is noticed within a
// second).
func newZKCluster(t *testing.T) []*quorumMember {
	t.Helper()
	needFailover(t)
	testenv.Server(t, testenv.ZooKeeper) // the family of tests this machine runs
	java := program(t, "java")
	if _, err := os.Stat(zkJars); err != nil {
		if os.Getenv(testenv.Require) == "1" {
			t.Fatalf("ZooKeeper is not installed (%v) and %s=1", err, testenv.Require)
		}
		t.Skipf("ZooKeeper is not installed: %v", err)
	}
	var servers []string
	clients := make([]int, 3)
	for i := range 3 {
		clients[i] = freePort(t)
		servers = append(servers, fmt.Sprintf("server.%d=127.0.0.1:%d:%d", i+1, freePort(t), freePort(t)))
	}
	ms := make([]*quorumMember, 3)
	for i := range 3 {
		dir := t.TempDir()
		data := filepath.Join(dir, "data")
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, "myid"), []byte(strconv.Itoa(i+1)), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(dir, "zoo.cfg")
		lines := append([]string{"tickTime=200", "initLimit=20", "syncLimit=5", "dataDir=" + data,
			"clientPort=" + strconv.Itoa(clients[i]), "clientPortAddress=127.0.0.1", "admin.enableServer=false",
			"maxClientCnxns=0", "4lw.commands.whitelist=ruok,srvr"}, servers...)
		if err := os.WriteFile(cfg, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		client := "127.0.0.1:" + strconv.Itoa(clients[i])
		m := &quorumMember{client: client, args: []string{java, "-Xmx128m", "-Dzookeeper.log.dir=" + dir,
			"-cp", "/usr/share/java/*:/etc/zookeeper/conf", "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg}}
		m.leader = func() bool { return zkMode(client) == "leader" }
		m.ownServer = &ownServer{t: t, args: m.args, up: listening(client)}
		ms[i] = m
	}
	return startQuorum(t, ms)
}

// TestFailover_ZooKeeperThreeServers_NoIdTwice runs stores that list every server
// on a three-server ensemble, killing the leader with SIGKILL and starting it again,
// then stopping the new leader with SIGSTOP, again and again: no id is held twice.
// A write is acknowledged once a quorum has logged it, and a reserve is a setData at
// the version it read.
func TestFailover_ZooKeeperThreeServers_NoIdTwice(t *testing.T) {
	t.Parallel()
	ms := newZKCluster(t)
	open := quorumStore(ms, "zookeeper", "servers", "{ root: /f }")
	noIDTwice(t, quorumFailovers(t, ms, open, failoverRounds(t, 2)))
}
