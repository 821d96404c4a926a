// Package strictyaml checks YAML against the Go struct type it decodes into, naming what is wrong
// by line and dotted key path: the one schema walker of the training config, used by the config
// loader (train.ParseConfig: every key of a file and its overrides) and by the command line's
// --set checks (cmd/yinsh, through train.CheckOverride).
//
// A struct's keys are its exported fields' yaml tags (a field without a name in its tag is keyed
// by its lower-cased name, "-" is skipped, ",inline" structs are flattened); a type implementing
// yaml.Unmarshaler decodes itself and is not walked into.
package strictyaml

import (
	"fmt"
	"github.com/yinsh-zero/yinsh/internal/suggest"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a problem at one place of a document: Line 0 means a value set by an override (no line
// in the file); Path is the dotted key path; Msg says what is wrong.
type Error struct {
	Line int
	Path string
	Msg  string
	// subject: Msg continues a sentence whose subject is the path ("selfplay is a section: …")
	// instead of following it after a colon ("selfplay.games: cannot unmarshal …").
	subject bool
}

func (e *Error) Error() string {
	sep := ": "
	if e.subject {
		sep = " "
	}
	switch {
	case e.Path == "":
		return e.Msg
	case e.Line == 0:
		return "override " + e.Path + sep + e.Msg
	}
	return fmt.Sprintf("line %d: %s%s%s", e.Line, e.Path, sep, e.Msg)
}

// Parse parses YAML text whose top level is a mapping and returns that mapping (an empty text is
// an empty mapping).
func Parse(data []byte) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if root.Kind == 0 { // empty text
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("want a mapping of keys at the top level")
	}
	return root.Content[0], nil
}

// Check checks a YAML node against the type t it decodes into: every mapping key must be a key of
// the struct it falls in, and every value must decode into its field's type. The error is an
// *Error.
func Check(n *yaml.Node, t reflect.Type) error { return check(n, t, "") }

func check(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	t = deref(t)
	if t.Kind() != reflect.Struct || decodesItself(t) {
		v := reflect.New(t)
		if err := n.Decode(v.Interface()); err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, ": cannot"); i >= 0 {
				msg = msg[i+2:]
			}
			return &Error{Line: n.Line, Path: path, Msg: msg}
		}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		if path == "" {
			return &Error{Msg: "want a mapping of keys at the top level"}
		}
		return &Error{Line: n.Line, Path: path, Msg: "is a section: want a mapping of keys, got " + n.ShortTag(), subject: true}
	}
	keys, names := Keys(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		p := join(path, k.Value)
		ft, ok := keys[k.Value]
		if !ok {
			msg := fmt.Sprintf("unknown key (%s has %s)", sectionName(path), strings.Join(names, ", "))
			if s := Closest(k.Value, names); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", join(path, s))
			}
			return &Error{Line: k.Line, Path: p, Msg: msg}
		}
		if err := check(v, ft, p); err != nil {
			return err
		}
	}
	return nil
}

// CheckPath checks that path names a value (not a section) of t through its keys, as a
// key=value override must: errors say which key is unknown (with the nearest key if it looks like
// a typo), or that the path ends at a section or goes through a value.
func CheckPath(t reflect.Type, path []string) error {
	var done []string
	for {
		t = deref(t)
		here := strings.Join(done, ".")
		if decodesItself(t) {
			return nil // the decoding check judges it
		}
		if t.Kind() != reflect.Struct {
			if len(path) == 0 || t.Kind() == reflect.Map {
				return nil
			}
			return fmt.Errorf("%s is a value (%s), not a section with keys", here, t.Kind())
		}
		keys, names := Keys(t)
		sorted := append([]string(nil), names...)
		sort.Strings(sorted)
		if len(path) == 0 {
			return fmt.Errorf("%s is a section, not a value: set one of its keys (%s)", here, strings.Join(sorted, ", "))
		}
		ft, ok := keys[path[0]]
		if !ok {
			where := "the config"
			if here != "" {
				where = here
			}
			msg := fmt.Sprintf("unknown key %s: %s has no key %q", strings.Join(append(append([]string(nil), done...), path...), "."), where, path[0])
			if s := Closest(path[0], sorted); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", join(here, s))
			} else {
				msg += fmt.Sprintf(" (keys: %s)", strings.Join(sorted, ", "))
			}
			return fmt.Errorf("%s", msg)
		}
		t, done, path = ft, append(done, path[0]), path[1:]
	}
}

// Keys returns the YAML keys of a struct type with their field types, and the keys in field order.
func Keys(t reflect.Type) (map[string]reflect.Type, []string) {
	keys := map[string]reflect.Type{}
	var names []string
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" {
				continue
			}
			if strings.Contains(","+opts+",", ",inline,") {
				if ft := deref(f.Type); ft.Kind() == reflect.Struct {
					add(ft)
				}
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if _, dup := keys[name]; !dup {
				names = append(names, name)
			}
			keys[name] = f.Type
		}
	}
	add(deref(t))
	return keys, names
}

// Set sets the key path to a value in a YAML mapping, creating the mappings on the way. The value
// is parsed as YAML (Value) and carries no line: errors about it name the override.
func Set(m *yaml.Node, path []string, val string) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		v := m.Content[i+1]
		if len(path) == 1 {
			*v = *Value(val)
			return nil
		}
		if v.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", path[0])
		}
		return Set(v, path[1:], val)
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[0]}
	if len(path) == 1 {
		m.Content = append(m.Content, k, Value(val))
		return nil
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, k, v)
	return Set(v, path[1:], val)
}

// Value parses an override's value as YAML, so numbers, booleans and [lists] keep their types
// (anything that does not parse is a string). The node has no line.
func Value(val string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(val), &doc); err == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		n := doc.Content[0]
		unline(n)
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val}
}

func unline(n *yaml.Node) {
	n.Line, n.Column = 0, 0
	for _, c := range n.Content {
		unline(c)
	}
}

// Closest returns the candidate nearest to s by edit distance, if it is near enough to be a typo
// (suggest.Closest).
func Closest(s string, candidates []string) string { return suggest.Closest(s, candidates) }

var unmarshaler = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

func decodesItself(t reflect.Type) bool { return reflect.PointerTo(t).Implements(unmarshaler) }

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sectionName(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}
