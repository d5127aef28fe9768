package zkstore

// Internals for the external tests: the names of znodes and the parsers of their
// data.
var (
	Escape     = escape
	ParseValue = parseValue
	ParseMeta  = parseMeta
	ParseRow   = parseRow
)

// Ms returns the offset in milliseconds.
func (c *ClockOffset) Ms() int64 { return c.ms.Load() }
