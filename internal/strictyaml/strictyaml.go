// Package strictyaml decodes YAML nodes into Go values strictly: an unknown or repeated
// key is an error, a value of the wrong kind is an error, and every error names the
// YAML path of the value (cosid.generators.bill.period) and, where there is a choice,
// what is allowed. Durations are strings such as "1s" or "48h".
package strictyaml

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Error is an error at a YAML path: FILE:LINE: path: what is wrong; what is allowed.
// It is the one format of every configuration error, whoever finds it.
type Error struct {
	File string // the file the YAML was read from; "" when unknown
	Path string // cosid.generators.bill.period
	Line int    // 0 when unknown
	Msg  string
	// Err is the error the message was made of, or nil: Unwrap returns it, so that
	// what it wraps (store.ErrInvalidArgument, …) still matches.
	Err error
}

func (e *Error) Error() string {
	var at string
	switch {
	case e.File != "" && e.Line > 0:
		at = fmt.Sprintf("%s:%d: ", e.File, e.Line)
	case e.File != "":
		at = e.File + ": "
	case e.Line > 0:
		at = fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Path == "" {
		return at + e.Msg
	}
	return at + e.Path + ": " + e.Msg
}

// Unwrap returns the error the message was made of, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at node's path and line.
func Errorf(node *yaml.Node, path, format string, args ...any) error {
	e := &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
	if node != nil {
		e.Line = node.Line
	}
	return e
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	nodeType     = reflect.TypeFor[yaml.Node]()
)

// Decode decodes node, found at path, into v, a non-nil pointer. Struct fields are
// matched by their yaml tags; a field of type yaml.Node takes its value undecoded.
func Decode(node *yaml.Node, path string, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("strictyaml: Decode needs a non-nil pointer, got %T", v)
	}
	return decode(resolve(node), path, rv.Elem())
}

// Parse parses a YAML document and returns its root node (nil for an empty document).
func Parse(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return resolve(&doc), nil
}

// resolve follows documents and aliases to the node that holds the value.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

// IsNull reports whether n is absent or an explicit null.
func IsNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func decode(n *yaml.Node, path string, v reflect.Value) error {
	if v.Type() == nodeType {
		if n != nil {
			v.Set(reflect.ValueOf(*n))
		}
		return nil
	}
	if IsNull(n) {
		return nil // leaves the zero value: "unset"
	}
	if u, ok := textUnmarshaler(v); ok {
		if n.Kind != yaml.ScalarNode {
			return Errorf(n, path, "want a scalar, got %s", describe(n))
		}
		if err := u.UnmarshalText([]byte(n.Value)); err != nil {
			return Errorf(n, path, "%v", err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return decode(n, path, v.Elem())
	case reflect.Struct:
		return decodeStruct(n, path, v)
	case reflect.Map:
		return decodeMap(n, path, v)
	case reflect.Slice:
		return decodeSlice(n, path, v)
	}
	return decodeScalar(n, path, v)
}

func mappingPairs(n *yaml.Node, path string) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, Errorf(n, path, "want a mapping of keys to values, got %s", describe(n))
	}
	pairs := make([][2]*yaml.Node, 0, len(n.Content)/2)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, Errorf(k, path, "keys must be plain names, got %s", describe(k))
		}
		if seen[k.Value] {
			return nil, Errorf(k, Join(path, k.Value), "defined twice")
		}
		seen[k.Value] = true
		pairs = append(pairs, [2]*yaml.Node{k, val})
	}
	return pairs, nil
}

func decodeStruct(n *yaml.Node, path string, v reflect.Value) error {
	pairs, err := mappingPairs(n, path)
	if err != nil {
		return err
	}
	fields := map[string]int{}
	var names []string
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields[name] = i
		names = append(names, name)
	}
	slices.Sort(names)
	for _, p := range pairs {
		i, ok := fields[p[0].Value]
		if !ok && len(names) == 0 {
			return Errorf(p[0], Join(path, p[0].Value), "unknown key; %s takes no settings", path)
		}
		if !ok {
			return Errorf(p[0], Join(path, p[0].Value), "unknown key; %s", OneOf(p[0].Value, names))
		}
		if err := decode(p[1], Join(path, p[0].Value), v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}

func decodeMap(n *yaml.Node, path string, v reflect.Value) error {
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("strictyaml: map keys of %v must be strings", v.Type())
	}
	pairs, err := mappingPairs(n, path)
	if err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(v.Type(), len(pairs)))
	}
	for _, p := range pairs {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := decode(p[1], Join(path, p[0].Value), elem); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(p[0].Value).Convert(v.Type().Key()), elem)
	}
	return nil
}

func decodeSlice(n *yaml.Node, path string, v reflect.Value) error {
	if n.Kind != yaml.SequenceNode {
		return Errorf(n, path, "want a list, got %s", describe(n))
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if err := decode(resolve(item), fmt.Sprintf("%s[%d]", path, i), s.Index(i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func decodeScalar(n *yaml.Node, path string, v reflect.Value) error {
	if n.Kind != yaml.ScalarNode {
		return Errorf(n, path, "want %s, got %s", kindName(v.Type()), describe(n))
	}
	if v.Type() == durationType {
		d, err := time.ParseDuration(n.Value)
		if err != nil || n.ShortTag() != "!!str" {
			return Errorf(n, path, "%q is not a duration; write one like \"500ms\", \"2s\", \"48h\"", n.Value)
		}
		v.SetInt(int64(d))
		return nil
	}
	if v.Kind() == reflect.String {
		if tag := n.ShortTag(); tag != "!!str" && tag != "!!int" && tag != "!!float" && tag != "!!timestamp" { // a date as written
			return Errorf(n, path, "want a string, got %s", describe(n))
		}
		v.SetString(n.Value)
		return nil
	}
	if k := v.Kind(); k >= reflect.Int && k <= reflect.Uint64 && n.ShortTag() == "!!float" {
		// yaml.v3 would truncate it: stride 2.5 would be stride 2, another class
		// of ids than the one written.
		return Errorf(n, path, "%q is not %s", n.Value, kindName(v.Type()))
	}
	target := reflect.New(v.Type())
	if err := n.Decode(target.Interface()); err != nil {
		return Errorf(n, path, "%q is not %s", n.Value, kindName(v.Type()))
	}
	v.Set(target.Elem())
	return nil
}

// Lines indexes the line of every key and list item below n, whose path is path:
// lines[cosid.generators.bill.period] is the line of that key. An alias is indexed
// at the line it is written on, and its target not again, so that a document of
// aliases upon aliases costs its size, not its expansion.
func Lines(n *yaml.Node, path string, lines map[string]int) {
	for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			p := Join(path, k.Value)
			if _, seen := lines[p]; !seen {
				lines[p] = k.Line
			}
			Lines(n.Content[i+1], p, lines)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			lines[p] = item.Line
			Lines(item, p, lines)
		}
	}
}

// Line returns the line of path in lines, an index of Lines, or of the nearest of
// its parents there: the line of a generator for a setting it leaves out. It is 0
// when none is there.
func Line(lines map[string]int, path string) int {
	for path != "" {
		if l, ok := lines[path]; ok {
			return l
		}
		i := max(strings.LastIndexByte(path, '.'), strings.LastIndexByte(path, '['))
		if i <= 0 {
			return 0
		}
		path = path[:i]
	}
	return 0
}

// Join appends key to a YAML path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "nothing"
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return t.String()
}

// textUnmarshaler returns v's encoding.TextUnmarshaler, for a type that reads itself
// from a scalar's text.
func textUnmarshaler(v reflect.Value) (encoding.TextUnmarshaler, bool) {
	if v.Kind() == reflect.Pointer || !v.CanAddr() {
		return nil, false
	}
	u, ok := v.Addr().Interface().(encoding.TextUnmarshaler)
	return u, ok
}

// OneOf says what may stand where value does, for the end of an error: "want one
// of: " and names, after "did you mean NAME? " when one of names is a slip away
// from value (Closest).
func OneOf(value string, names []string) string {
	if near, found := Closest(value, names); found {
		return "did you mean " + near + "? want one of: " + strings.Join(names, ", ")
	}
	return "want one of: " + strings.Join(names, ", ")
}

// Closest returns the name of names nearest to key, for a "did you mean": the one
// with the fewest edits (inserted, deleted, replaced or swapped neighbouring
// characters, case ignored), the first of names on a tie. found is false when even
// that one is too far to be a slip: more than 2 edits, or a third of the key.
func Closest(key string, names []string) (name string, found bool) {
	best := -1
	for _, n := range names {
		d := editDistance(strings.ToLower(key), strings.ToLower(n))
		if best < 0 || d < best {
			best, name = d, n
		}
	}
	limit := min(2, max(1, len([]rune(key))/3))
	return name, best >= 0 && best <= limit
}

// editDistance is the optimal string alignment distance of a and b: the edits of
// Levenshtein plus the swap of two neighbouring characters, each counted once.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
