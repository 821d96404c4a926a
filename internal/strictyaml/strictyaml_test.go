package strictyaml

import (
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Rate  float64  `yaml:"rate"`
	Names []string `yaml:"names"`
}

type Common struct {
	Shared int `yaml:"shared"`
}

type doc struct {
	Games  int   `yaml:"games"`
	Inner  inner `yaml:"inner"`
	Plain  int
	Hidden int `yaml:"-"`
	Common `yaml:",inline"`
	Ptr    *inner            `yaml:"ptr"`
	Extra  map[string]string `yaml:"extra"`
}

var docType = reflect.TypeOf(doc{})

func TestKeys(t *testing.T) {
	keys, names := Keys(docType)
	if got := strings.Join(names, " "); got != "games inner plain shared ptr extra" {
		t.Fatalf("names %q", got)
	}
	if keys["inner"] != reflect.TypeOf(inner{}) || keys["shared"] != reflect.TypeOf(0) {
		t.Fatalf("keys %v", keys)
	}
}

// TestCheck: every problem of a document is named by its line (or as an override) and dotted path.
func TestCheck(t *testing.T) {
	for _, tc := range []struct{ yaml, set, want string }{
		{"games: 3\ninner:\n  rate: 0.5\n  names: [a, b]\nplain: 1\nshared: 2\nptr: {rate: 1}\nextra: {x: y}\n", "", ""},
		{"games: x\n", "", "line 1: games: cannot unmarshal !!str `x` into int"},
		{"inner:\n  rat: 1\n", "", "line 2: inner.rat: unknown key (inner has rate, names); did you mean inner.rate?"},
		{"zzzzzz: 1\n", "", "line 1: zzzzzz: unknown key (the top level has games, inner, plain, shared, ptr, extra)"},
		{"hidden: 1\n", "", "line 1: hidden: unknown key"},
		{"inner: 5\n", "", "line 1: inner is a section: want a mapping of keys, got !!int"},
		{"games: 1\n", "inner.names=x", "override inner.names: cannot unmarshal !!str `x` into []string"},
		{"games: 1\n", "inner.names=[x, y]", ""},
		{"games: 1\n", "ptr.rate=nope", "override ptr.rate: cannot unmarshal"},
	} {
		m, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if tc.set != "" {
			k, v, _ := strings.Cut(tc.set, "=")
			if err := Set(m, strings.Split(k, "."), v); err != nil {
				t.Fatal(err)
			}
		}
		err = Check(m, docType)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q %q: %v", tc.yaml, tc.set, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q %q: %v, want %q", tc.yaml, tc.set, err, tc.want)
		}
	}
	if _, err := Parse([]byte("- a\n")); err == nil {
		t.Error("a list at the top level parsed")
	}
	if m, err := Parse(nil); err != nil || len(m.Content) != 0 {
		t.Errorf("empty text: %v %v", m, err)
	}
}

// TestCheckPath: an override's key must name a value; the errors say why not.
func TestCheckPath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"games", ""},
		{"inner.rate", ""},
		{"ptr.names", ""},
		{"extra.anything", ""},
		{"inner.rat", `unknown key inner.rat: inner has no key "rat" (did you mean inner.rate?)`},
		{"qqqqqq", `unknown key qqqqqq: the config has no key "qqqqqq" (keys: extra, games, inner, plain, ptr, shared)`},
		{"inner", "inner is a section, not a value: set one of its keys (names, rate)"},
		{"games.x", "games is a value (int), not a section with keys"},
	} {
		err := CheckPath(docType, strings.Split(tc.path, "."))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"simulatons", "simulations"}, {"gams", "games"}, {"zzzzzzzz", ""}, {"games", "games"},
	} {
		if got := Closest(tc.s, []string{"games", "simulations", "parallel"}); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestValue(t *testing.T) {
	for val, tag := range map[string]string{"3": "!!int", "0.5": "!!float", "true": "!!bool", "[a, b]": "!!seq", "x y": "!!str", "a: [": "!!str"} {
		if n := Value(val); n.ShortTag() != tag || n.Line != 0 {
			t.Errorf("Value(%q): %s line %d, want %s and no line", val, n.ShortTag(), n.Line, tag)
		}
	}
}
