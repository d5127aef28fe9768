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
)

func init() { store.Register("zookeeper", openSpec) }

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

// openSpec opens a store of type zookeeper on a connection of its own, which the
// store's Close closes. Its errors name the field of spec at fault and the values it
// allows.
func openSpec(ctx context.Context, spec store.Spec) (store.RangeStore, error) {
	var c specConfig
	if err := spec.DecodeSettings(&c); err != nil {
		return nil, err
	}
	bad := spec.Invalid
	if len(c.Servers) == 0 {
		return nil, bad("servers", "missing; want a list of the ensemble's client addresses, such as [127.0.0.1:2181]")
	}
	for i, srv := range c.Servers {
		if _, _, err := net.SplitHostPort(srv); err != nil || strings.ContainsAny(srv, " \t\n/") {
			return nil, bad(fmt.Sprintf("servers[%d]", i), "%q is not an address; want host:port such as 127.0.0.1:2181", srv)
		}
	}
	timeout, err := spec.Timeout(c.Timeout, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	root := DefaultRoot
	if c.Options.Root != "" {
		if err := checkRoot(c.Options.Root); err != nil {
			return nil, bad("options.root", "%v", err)
		}
		root = c.Options.Root
	}
	logger := spec.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the settings are good; Load checks them so, with no I/O
	}
	conn, _, err := zk.Connect(c.Servers, SessionTimeout, zk.WithLogger(zkLogger{logger}), zk.WithLogInfo(false))
	if err != nil {
		return nil, fmt.Errorf("%s: zkstore: connecting to %v: %w", spec.Path, c.Servers, err)
	}
	st, err := newStore(conn, true, []Option{WithRoot(root), WithTimeout(timeout)})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: %w", spec.Path, err)
	}
	return st, nil
}

// zkLogger passes the ZooKeeper client's log lines, such as a lost connection, to
// slog at debug level: the store's callers see the errors that matter to them.
type zkLogger struct{ l *slog.Logger }

func (z zkLogger) Printf(format string, args ...any) {
	z.l.Debug("zkstore: "+fmt.Sprintf(format, args...), "source", "go-zookeeper")
}
