package cosid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"time"

	"github.com/cosid-go/cosid/internal/strictyaml"
	"go.yaml.in/yaml/v3"
)

// Config is CosId's configuration: the cosid section of a YAML file.
//
//	cosid:
//	  namespace: app
//	  stores:
//	    db: { type: sql, driver: sqlite, dsn: cosid.db, timeout: 2s, options: { initSchema: true } }
//	  generators:
//	    order: { strategy: segment, store: db, step: 100, lookahead: 1s }
type Config struct {
	// Namespace prefixes every key: a generator's key is "{namespace}/{name}".
	// Empty means DefaultNamespace.
	Namespace  string                     `yaml:"namespace"`
	Stores     map[string]StoreConfig     `yaml:"stores"`
	Generators map[string]GeneratorConfig `yaml:"generators"`
	// Serve is what `cosid serve` serves besides the generators.
	Serve ServeConfig `yaml:"serve"`
	// Dir is the directory that the stores read relative file names from: the
	// SQLite dsn, dsn-file, password-file, token-file, the TLS files. ReadConfig sets
	// it to the absolute directory of the file it read, so that a configuration means
	// the same files whatever the working directory (a service manager starts in /).
	// Empty means the working directory.
	Dir string `yaml:"-"`

	src     *configSource // where the YAML came from, for the place of its errors; nil if built in Go
	offline bool          // Offline: Validate and CheckStore read no file and no host name
}

// Offline returns c for a check off the machine it describes: its Validate and
// CheckStore read no file that a store's settings name (dsn-file, password-file,
// token-file, the TLS files) and take machine-id: from-hostname as written, without
// the host name, so that a CI job can check a configuration made for a cluster
// (cosid config check without --open). They check all the rest. Open, Load and
// OpenStore read and resolve everything, whatever c is.
func (c Config) Offline() Config {
	c.offline = true
	return c
}

// ServeConfig is the cosid.serve section:
//
//	serve: { store: db, cosid4x: true, limits: { max-reserve: 1048576, max-slots: 65536, max-lease-ttl: 10m, max-streams: 256, stream-idle: 30s } }
type ServeConfig struct {
	// Store names the entry of cosid.stores whose operations (reserve, seal, and the
	// slot leases acquire, renew, release) the server offers to remote stores of type
	// http. Empty offers none.
	Store string `yaml:"store"`
	// Cosid4x also serves CosId 4.x's segment and machine API over Store. 4.x
	// clients send no token, so that API takes none: turn it on only on a private
	// network (docs/moving-from-4x.md).
	Cosid4x bool `yaml:"cosid4x"`
	// Limits caps what one request may ask of Store over the network.
	Limits ServeLimits `yaml:"limits"`

	// Tokens names the files of the bearer tokens of the server's roles; a role
	// without one is open (see docs/server.md, "Security model"). A relative path
	// is read from the configuration file's directory.
	Tokens ServeTokens `yaml:"tokens"`
	// AllowedHosts are the Host names that a server bound to a loopback address
	// answers besides the loopback ones (a reverse proxy's name, say).
	AllowedHosts []string `yaml:"allowed-hosts"`
	// MaxConnections caps the connections the server holds open at once; 0 is the
	// default of cosid serve (1024).
	MaxConnections int `yaml:"max-connections"`
	// H2C serves HTTP/2 without TLS beside HTTP/1.1, for gRPC clients that dial
	// without TLS (docs/server.md, "Connect and gRPC"); off by default.
	H2C bool `yaml:"h2c"`
	// GRPCAddr is the address (host:port) of a second listener that serves the gRPC
	// protocol with grpc-go's own server, faster than gRPC over the HTTP listener;
	// empty serves none. Connect, gRPC-Web and the HTTP API stay on the HTTP
	// listener (docs/server.md, "The gRPC listener").
	GRPCAddr string `yaml:"grpc-addr"`
	// Leaf serves Meituan Leaf's routes, and Tinyid Didi tinyid's, from generators
	// of this configuration (docs/moving-from-leaf.md).
	Leaf   ServeLeaf   `yaml:"leaf"`
	Tinyid ServeTinyid `yaml:"tinyid"`
}

// ServeLeaf is cosid.serve.leaf: the generators of Leaf's routes.
//
//	serve: { leaf: { segment: leaf, snowflake: event } }
type ServeLeaf struct {
	// Segment is a keyed segment generator: /api/segment/get/{key} serves its key.
	Segment string `yaml:"segment"`
	// Snowflake is a snowflake generator: /api/snowflake/get/{key} serves it.
	Snowflake string `yaml:"snowflake"`
}

// ServeTinyid is cosid.serve.tinyid: the generator of tinyid's routes.
//
//	serve: { tinyid: { template: tinyid } }
type ServeTinyid struct {
	// Template is a keyed segment generator: /tinyid/id/nextId?bizType=K serves
	// its key K.
	Template string `yaml:"template"`
}

// ServeTokens is cosid.serve.tokens: for each role, the file of its token.
//
//	serve: { tokens: { ids: ids.token, store: store.token, admin: admin.token, monitor: monitor.token } }
type ServeTokens struct {
	// IDs guards the ids: /v1/generators/… and 4.x's /ids/….
	IDs string `yaml:"ids"`
	// Store guards the store API of remote stores of type http: /v1/store/….
	Store string `yaml:"store"`
	// Admin guards the admin API /v1/store/admin/…, served only with it.
	Admin string `yaml:"admin"`
	// Monitor guards /metrics, the details of /readyz and the status page.
	Monitor string `yaml:"monitor"`
}

// OwnerKeyPrefix4x begins the owner key of every slot lease that cosid serve's 4.x
// machine API makes (server.OwnerKeyPrefix4x); no generator's owner key may begin
// with it, so that no 4.x request can reach a generator's lease.
const OwnerKeyPrefix4x = "cosid4x:"

// ServeLimits is cosid.serve.limits: what one network request may ask of the served
// store. A field left out (0) takes its default.
type ServeLimits struct {
	// MaxReserve is the most values of one reserve or one 4.x step (default 2^20).
	MaxReserve int64 `yaml:"max-reserve"`
	// MaxSlots is the largest namespace a network call may create or lease in: an
	// acquire's limit, 2^machineBit of a 4.x machine call (default 2^16, at most
	// 2^22). Stores make a slot's record as it is taken, not the namespace's all at
	// once.
	MaxSlots int `yaml:"max-slots"`
	// MaxLeaseTTL is the longest lease TTL or 4.x safeGuardDuration (default 10m).
	MaxLeaseTTL time.Duration `yaml:"max-lease-ttl"`
	// MaxStreams is the most StreamRanges and ReadRanges calls open at once, on
	// both listeners together (default 256); the rest are refused with
	// resource_exhausted.
	MaxStreams int `yaml:"max-streams"`
	// StreamIdle is how long a StreamRanges or ReadRanges call may wait for its
	// client to read, or a ReadRanges call for its client to ask, before it is cut
	// (default 30s).
	StreamIdle time.Duration `yaml:"stream-idle"`
	// Rate caps how fast one caller takes ids; off by default.
	Rate ServeRate `yaml:"rate"`
}

// ServeRate is cosid.serve.limits.rate: the ids, and the new keys, one caller may
// take a second, on every route that hands out ids (docs/server.md, "Rate limits").
// A caller is the ids role's token, or each remote address when that role has none.
//
//	serve: { limits: { rate: { ids-per-second: 10000, burst: 20000, new-keys-per-second: 10 } } }
type ServeRate struct {
	// IDsPerSecond is the ids one caller may take a second, on average; 0 (the
	// default) is no limit. A request for n ids, or a range of n, costs n.
	IDsPerSecond float64 `yaml:"ids-per-second"`
	// Burst is the most ids one caller may take at once; 0 is one second's worth.
	Burst int `yaml:"burst"`
	// NewKeysPerSecond is the keys of keyed generators one caller may open a second
	// that are not open on the server; 0 (the default) is no limit.
	NewKeysPerSecond float64 `yaml:"new-keys-per-second"`
}

// DefaultNamespace is the namespace of a Config that names none.
const DefaultNamespace = "cosid"

// StoreConfig is one entry of cosid.stores.
type StoreConfig struct {
	// Type selects the store: one registered with store.Register. Every binary
	// that imports this package has memory and sql; other types register when
	// their packages are imported.
	Type string
	// Settings holds the entry's other keys, decoded by the store type.
	Settings map[string]any

	node *yaml.Node // the entry as read from a file, for line numbers
}

// GeneratorConfig is one entry of cosid.generators. Unset fields take the defaults
// of segment.DefaultBatchPolicy, segment.DefaultPeriodicPolicy and the snowflake
// package.
type GeneratorConfig struct {
	// Strategy is segment, periodic-segment, snowflake or cosid-generator: one of
	// Strategies().
	Strategy Strategy `yaml:"strategy"`
	// Store names an entry of cosid.stores. A snowflake with a MachineID needs none.
	Store string `yaml:"store"`

	Step           *int64         `yaml:"step"`
	InitialOffset  *int64         `yaml:"initial-offset"`
	Lookahead      *time.Duration `yaml:"lookahead"`
	MaxBatch       *int64         `yaml:"max-batch"`
	ReserveTimeout *time.Duration `yaml:"reserve-timeout"`
	RangeTTL       *time.Duration `yaml:"range-ttl"`
	// GiveBack false keeps a segment or periodic-segment generator's Close from giving
	// the unused tail of its last range back to the store (segment.WithoutGiveBack);
	// default true.
	GiveBack *bool `yaml:"give-back"`

	// Stride and Residue make a segment or periodic-segment generator hand out
	// only ids ≡ Residue (mod Stride), dense in that class: its store counts values
	// v as always, and its ids are v·Stride + Residue. Regions with a store each
	// and one Stride, each with its own Residue, never share an id
	// (docs/regions.md). Stride ≥ 1 (default 1); 0 ≤ Residue < Stride (default 0).
	Stride  *int64 `yaml:"stride"`
	Residue *int64 `yaml:"residue"`

	// Period is YEAR, YEAR_MONTH or YEAR_MONTH_DAY (periodic-segment).
	Period string `yaml:"period"`
	// Zone is the IANA time zone the periods follow, such as Asia/Shanghai or UTC
	// (periodic-segment, required: the zone is explicit), or that a cosid-generator's
	// friendly format writes (default UTC). Local is refused: a period's key, or an
	// id, must not depend on the host.
	Zone      string         `yaml:"zone"`
	Prewarm   *time.Duration `yaml:"prewarm"`
	SealAfter *time.Duration `yaml:"seal-after"`

	// MachineID fixes a snowflake's or a cosid-generator's machine id instead of
	// leasing one from Store: a number, or MachineIDFromHostname.
	MachineID *MachineID `yaml:"machine-id"`
	// Slots limits the machine ids leased from Store to [0, Slots); default
	// 2^machine-bits.
	Slots *int `yaml:"slots"`
	// MachineIDs, two numbers [lo, hi], makes the machine ids leased from Store
	// lo … hi−1 (hi excluded): its slots are hi − lo, and slot s is machine lo + s.
	// Regions with a store each and machine-id ranges that do not overlap never
	// share an id (docs/regions.md). It replaces slots.
	MachineIDs []int `yaml:"machine-ids"`
	// Layout is a snowflake's named bit layout: default (41/10/12, ms) or
	// javascript (53 bits); the fields below change it.
	Layout        string         `yaml:"layout"`
	Epoch         string         `yaml:"epoch"` // a date (2006-01-02) or an RFC 3339 time
	Unit          *time.Duration `yaml:"unit"`  // 1ms or 1s
	TimestampBits *int           `yaml:"timestamp-bits"`
	MachineBits   *int           `yaml:"machine-bits"`
	SequenceBits  *int           `yaml:"sequence-bits"`
	LeaseTTL      *time.Duration `yaml:"lease-ttl"`
	Tolerance     *time.Duration `yaml:"tolerance"`
	// OwnerKey identifies this instance to the slot store; default the host name.
	OwnerKey string `yaml:"owner-key"`
	// StateFile keeps the time up to which a fixed machine-id's ids may be stamped
	// (snowflake.WithStateFile), so that a restart with the clock set back repeats
	// none. A relative path is read from the configuration file's directory.
	StateFile string `yaml:"state-file"`
	// Format is how a cosid-generator writes its 80-bit ids: radix62 (the default,
	// 15 characters), radix36 (17) or friendly (yyyyMMddHHmmssSSS-machine-sequence,
	// in Zone).
	Format string `yaml:"format"`

	// Codec turns ids into text, item after item; see package codec.
	Codec []CodecItem `yaml:"codec"`

	// Keyed makes a segment or periodic-segment generator a template: every key a
	// caller names (Runtime.Source, ?key= over HTTP) is a sequence of its own, at the
	// store key {namespace}/{name}/{key}, with this entry's policy and codec.
	Keyed bool `yaml:"keyed"`
	// MaxLiveKeys bounds the keys of a keyed generator open at once (default
	// DefaultMaxLiveKeys); past it the least recently used key is closed.
	MaxLiveKeys *int `yaml:"max-live-keys"`
	// IdleClose closes a key of a keyed generator unused this long (default
	// DefaultIdleClose). What a closed key had reserved and not handed out is a gap.
	IdleClose *time.Duration `yaml:"idle-close"`
	// MaxKeys bounds the keys a keyed generator may ever make, counted in its store
	// so that restarts and replicas share the count (docs/keyed.md); past it a new
	// key is refused with ErrMaxKeys. Left out: no bound.
	MaxKeys *int64 `yaml:"max-keys"`
}

// Leases reports whether the generator leases a slot of its store, its machine id:
// a snowflake or a cosid-generator without machine-id.
func (gc GeneratorConfig) Leases() bool {
	d := strategyOf(gc.Strategy)
	return d != nil && d.leases != nil && d.leases(gc)
}

// MachineID is a snowflake's fixed machine id, or MachineIDFromHostname. In YAML it
// is a number or the text from-hostname.
type MachineID int

// MachineIDFromHostname takes the machine id from the host name's ordinal, the
// number after its last "-", as a Kubernetes StatefulSet names its pods (web-3 is
// machine 3). The host name is $HOSTNAME, or the system's when that is unset.
const MachineIDFromHostname MachineID = -1

// UnmarshalText reads a machine id: a decimal number or from-hostname.
func (m *MachineID) UnmarshalText(text []byte) error {
	if string(text) == "from-hostname" {
		*m = MachineIDFromHostname
		return nil
	}
	n, err := strconv.Atoi(string(text))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a machine id; want a number ≥ 0 or from-hostname", text)
	}
	*m = MachineID(n)
	return nil
}

// CodecItem is one item of a codec list: exactly one field is set.
type CodecItem struct {
	Radix      *RadixItem      `yaml:"radix"`
	ToString   *ToStringItem   `yaml:"to-string"`
	Prefix     *TextItem       `yaml:"prefix"`
	Suffix     *TextItem       `yaml:"suffix"`
	DatePrefix *DatePrefixItem `yaml:"date-prefix"`
	Period     *PeriodItem     `yaml:"period"`
	Friendly   *FriendlyItem   `yaml:"friendly"`
	UUIDv7     *UUIDv7Item     `yaml:"uuidv7"`
}

// RadixItem writes the value in a radix from 2 to 62 (alphabet 0-9A-Za-z).
type RadixItem struct {
	Radix    int  `yaml:"radix"`
	Width    int  `yaml:"width"`
	PadStart bool `yaml:"pad-start"`
}

// ToStringItem writes the value in decimal.
type ToStringItem struct {
	Width    int  `yaml:"width"`
	PadStart bool `yaml:"pad-start"`
}

// TextItem is fixed text: a prefix or a suffix.
type TextItem struct {
	Value string `yaml:"value"`
}

// DatePrefixItem puts the period first, in Pattern (default the period's own digits).
type DatePrefixItem struct {
	Delimiter string `yaml:"delimiter"`
	Pattern   string `yaml:"pattern"`
}

// PeriodItem places the period after a business prefix.
type PeriodItem struct {
	Delimiter string `yaml:"delimiter"`
}

// FriendlyItem writes a Snowflake id as its time, machine and sequence.
type FriendlyItem struct {
	Zone string `yaml:"zone"`
}

// UUIDv7Item writes a Snowflake id whose unit is 1ms as an RFC 9562 version-7
// UUID, of its time, machine and sequence (codec.UUIDv7); it takes no settings
// (uuidv7: {}) and stands alone in its list.
type UUIDv7Item struct{}

// file is the shape of a configuration file.
type file struct {
	Cosid *yaml.Node `yaml:"cosid"`
}

// rawConfig is Config as decoded strictly, before the stores' settings are split off.
type rawConfig struct {
	Namespace  string                     `yaml:"namespace"`
	Stores     map[string]yaml.Node       `yaml:"stores"`
	Generators map[string]GeneratorConfig `yaml:"generators"`
	Serve      ServeConfig                `yaml:"serve"`
}

// ReadConfig reads and decodes the configuration file at path, and sets its Dir to
// the file's directory: relative file names in the stores' settings are read from
// there. Unknown keys and
// values of the wrong kind are errors that wrap ErrConfig and name the file and the
// YAML path; a file that cannot be read is an error of its own (fs.ErrNotExist, …).
func ReadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("cosid: %w", err)
	}
	cfg, err := parseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("cosid: %w: %w", ErrConfig, parseErr(path, err))
	}
	cfg.src.file = path
	abs, err := filepath.Abs(path)
	if err != nil {
		return Config{}, fmt.Errorf("cosid: %s: %w", path, err)
	}
	cfg.Dir = filepath.Dir(abs)
	return cfg, nil
}

// ParseConfig decodes a configuration from YAML text. Its errors wrap ErrConfig and
// name the line and the YAML path. It does not validate: Validate and Open do.
func ParseConfig(data []byte) (Config, error) {
	cfg, err := parseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("cosid: %w: %w", ErrConfig, parseErr("", err))
	}
	return cfg, nil
}

// yamlLine is the place in the YAML library's syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parseErr puts err, an error of parseConfig, in the one format of configuration
// errors, at file (or "" for text not read from a file).
func parseErr(file string, err error) error {
	var at *strictyaml.Error
	if errors.As(err, &at) {
		located := *at
		located.File = file
		return &located
	}
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &strictyaml.Error{File: file, Line: line, Msg: "yaml: " + msg[len(m[0]):], Err: err}
	}
	return &strictyaml.Error{File: file, Msg: msg, Err: err}
}

func parseConfig(data []byte) (Config, error) {
	root, err := strictyaml.Parse(data)
	if err != nil {
		return Config{}, err
	}
	if root == nil {
		return Config{}, &strictyaml.Error{Path: "cosid", Msg: "missing: the file is empty"}
	}
	var f file
	if err := strictyaml.Decode(root, "", &f); err != nil {
		return Config{}, err
	}
	if strictyaml.IsNull(f.Cosid) {
		return Config{}, strictyaml.Errorf(root, "cosid", "missing; the file's top level must be a cosid: section")
	}
	var raw rawConfig
	if err := strictyaml.Decode(f.Cosid, "cosid", &raw); err != nil {
		return Config{}, err
	}
	cfg := Config{Namespace: raw.Namespace, Generators: raw.Generators, Serve: raw.Serve, Stores: map[string]StoreConfig{},
		src: &configSource{lines: map[string]int{}}}
	strictyaml.Lines(root, "", cfg.src.lines)
	for name, node := range raw.Stores {
		sc, err := splitStore(&node, strictyaml.Join("cosid.stores", name))
		if err != nil {
			return Config{}, err
		}
		cfg.Stores[name] = sc
	}
	return cfg, nil
}

// splitStore takes the type of a store entry out of its settings.
func splitStore(node *yaml.Node, path string) (StoreConfig, error) {
	if node.Kind != yaml.MappingNode {
		return StoreConfig{}, strictyaml.Errorf(node, path, "want a mapping with a type, such as {type: memory}")
	}
	sc := StoreConfig{node: &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: node.Line, Column: node.Column}}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		if k.Value == "type" {
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return StoreConfig{}, strictyaml.Errorf(v, path+".type", "want a store type; one of: %s", typeList())
			}
			sc.Type = v.Value
			continue
		}
		sc.node.Content = append(sc.node.Content, k, v)
	}
	if sc.Type == "" {
		return StoreConfig{}, strictyaml.Errorf(node, path+".type", "missing; want one of: %s", typeList())
	}
	if err := sc.node.Decode(&sc.Settings); err != nil {
		return StoreConfig{}, strictyaml.Errorf(node, path, "%v", err)
	}
	return sc, nil
}

// settingsNode returns the node of a store's settings: as read, for its line
// numbers, unless Settings was changed since; else built from Settings.
func (sc StoreConfig) settingsNode() (*yaml.Node, error) {
	if sc.node != nil {
		var read map[string]any
		if err := sc.node.Decode(&read); err == nil && reflect.DeepEqual(read, sc.Settings) {
			return sc.node, nil
		}
	}
	var n yaml.Node
	if err := n.Encode(sc.Settings); err != nil {
		return nil, err
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		n = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	return &n, nil
}

// plural is n and noun, with an s unless n is 1: "1 machine bit", "10 machine bits".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
