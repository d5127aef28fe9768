package snowflake

// ParseState and EncodeState expose the state file's decoder and encoder to the
// fuzz test.
func ParseState(data []byte) (machine int, untilMs int64, err error) {
	s, err := parseState(data)
	return s.machine, s.untilMs, err
}

func EncodeState(machine int, untilMs int64) []byte {
	return savedState{machine: machine, untilMs: untilMs}.encode()
}
