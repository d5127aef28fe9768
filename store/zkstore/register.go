package zkstore

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// The configuration type "zookeeper" opens a store on a connection of its own,
// which the store's Close closes.
func init() { store.Register("zookeeper", storekit.Opener(parseSpec, dialSpec)) }

// SessionTimeout is the ZooKeeper session timeout of the connections that the
// configuration type "zookeeper" opens. The store keeps no ephemeral znodes, so a
// session's end loses nothing; it only bounds how long the client keeps one session
// across a broken connection.
const SessionTimeout = 10 * time.Second

// specConfig is the configuration of a store of type zookeeper:
//
//	type: zookeeper
//	servers: [10.0.0.1:2181, 10.0.0.2:2181]
//	timeout: 2s
//	options: { root: /cosid }
type specConfig struct {
	Servers []string      `yaml:"servers"`
	Timeout time.Duration `yaml:"timeout"`
	Options struct {
		Root string `yaml:"root"`
	} `yaml:"options"`
}

// parsed is a store of type zookeeper as its settings give it, checked.
type parsed struct {
	servers []string
	opts    []Option
}

// parseSpec checks c, the settings of spec, without I/O and returns them with their
// facts. Its errors name the field of spec at fault and the values it allows.
func parseSpec(spec store.Spec, c specConfig) (parsed, store.Facts, error) {
	bad := spec.Invalid
	if len(c.Servers) == 0 {
		return parsed{}, store.Facts{}, bad("servers", "missing; want a list of the ensemble's client addresses, such as [127.0.0.1:2181]")
	}
	for i, srv := range c.Servers {
		if _, _, err := net.SplitHostPort(srv); err != nil || strings.ContainsAny(srv, " \t\n/") {
			return parsed{}, store.Facts{}, bad(fmt.Sprintf("servers[%d]", i), "%q is not an address; want host:port such as 127.0.0.1:2181", srv)
		}
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return parsed{}, store.Facts{}, err
	}
	root := DefaultRoot
	if c.Options.Root != "" {
		if err := checkRoot(c.Options.Root); err != nil {
			return parsed{}, store.Facts{}, bad("options.root", "%v", err)
		}
		root = c.Options.Root
	}
	facts := store.Facts{Timeout: timeout, DefaultTimeout: DefaultTimeout, TimeoutSet: c.Timeout != 0, Leases: true, Checks: []string{
		"reach: connects in the background from open; each call waits for the session within timeout",
	}}
	return parsed{servers: c.Servers, opts: []Option{WithRoot(root), WithTimeout(timeout)}}, facts, nil
}

// dialSpec connects to the servers of p, in the background, and makes the store on
// the connection.
func dialSpec(_ context.Context, spec store.Spec, p parsed) (store.RangeStore, error) {
	logger := spec.Logger
	if logger == nil {
		logger = slog.Default()
	}
	conn, _, err := zk.Connect(p.servers, SessionTimeout, zk.WithLogger(zkLogger{logger}), zk.WithLogInfo(false))
	if err != nil {
		return nil, fmt.Errorf("zkstore: connecting to %v: %w", p.servers, err)
	}
	st, err := newStore(conn, true, p.opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return st, nil
}

// zkLogger passes the ZooKeeper client's log lines, such as a lost connection, to
// slog at debug level: the store's callers see the errors that matter to them.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug("zkstore: "+fmt.Sprintf(format, args...), "source", "go-zookeeper")
}
