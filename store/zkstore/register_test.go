package zkstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/zkstore"
)

// TestConfig_OpensZooKeeperStore opens a store of type zookeeper from its settings
// and reserves through it.
func TestConfig_OpensZooKeeperStore(t *testing.T) {
	addr := server(t)
	root := testRoot(t, addr)
	st := testenv.Opened(t, "zookeeper", "ids", "servers: ["+addr+"]\ntimeout: 3s\noptions: { root: "+root+" }", 3*time.Second)
	if got := st.(*zkstore.Store).Root(); got != root {
		t.Errorf("root = %q, want %q", got, root)
	}
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails before any I/O
// with an error wrapping ErrInvalidArgument that names its path, the field and what
// it allows.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "servers: [a:1]\ntimout: 2s", []string{"cosid.stores.ids", "timout"}},
		{"NoServers", "timeout: 2s", []string{"cosid.stores.ids.servers", "missing", "127.0.0.1:2181"}},
		{"BadServer", "servers: [localhost]", []string{"cosid.stores.ids.servers[0]", `"localhost"`, "host:port"}},
		{"ServerWithChroot", "servers: [a:1/chroot]", []string{"servers[0]", "host:port"}},
		{"NegativeTimeout", "servers: [a:1]\ntimeout: -1s", []string{"cosid.stores.ids.timeout", "-1s", "positive"}},
		{"RelativeRoot", "servers: [a:1]\noptions: { root: cosid }", []string{"options.root", `"cosid"`, "absolute"}},
		{"TrailingSlash", "servers: [a:1]\noptions: { root: /cosid/ }", []string{"options.root", "trailing slash"}},
		{"DotElement", "servers: [a:1]\noptions: { root: /a/../b }", []string{"options.root", "dot"}},
		{"ReservedRoot", "servers: [a:1]\noptions: { root: /zookeeper/x }", []string{"options.root", "/zookeeper"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testenv.Refused(t, "zookeeper", "ids", tt.yaml, tt.mention...)
		})
	}
}
