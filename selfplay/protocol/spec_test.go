package protocol_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		spec string
		want []string
	}{
		{`engine:"yinsh engine --player random"`, []string{"yinsh", "engine", "--player", "random"}},
		{`engine:./bin/yinsh engine --seed 3`, []string{"./bin/yinsh", "engine", "--seed", "3"}},
		{`engine:yinsh`, []string{"yinsh"}},
		{`yinsh engine`, []string{"yinsh", "engine"}},
		{`engine:"'/opt/my engine/bin' --fast"`, []string{"/opt/my engine/bin", "--fast"}},
		{`engine:'/opt/my engine/bin' --fast`, []string{"/opt/my engine/bin", "--fast"}},
		// The outer quotes go first, then the command line is split as a shell would: `\e` is e.
		{`engine:"a \"b c\" d\\e f\\\\g"`, []string{"a", "b c", "de", `f\g`}},
		{`engine:x "b \"c\" \\ \n"`, []string{"x", `b "c" \ \n`}},
		{`engine:a'b c'd`, []string{"ab cd"}},
		{`engine:'it'\''s' x\ y`, []string{"it's", "x y"}},
		{"engine:\t a \t b ", []string{"a", "b"}},
		{`engine:x ''`, []string{"x", ""}},
		{`engine:'"a b"'`, []string{"a b"}},
	} {
		got, err := protocol.ParseSpec(c.spec)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseSpec(%s) = %q, %v; want %q", c.spec, got, err, c.want)
		}
	}
	for _, c := range []struct{ spec, msg string }{
		{`engine:"yinsh engine`, `protocol: engine spec "engine:\"yinsh engine": unterminated quote`},
		{`engine:'a`, `protocol: engine spec "engine:'a": unterminated quote`},
		{`engine:"a 'b"`, `protocol: engine spec "engine:\"a 'b\"": unterminated quote`},
		{`engine:`, `protocol: engine spec "engine:": empty command`},
		{`engine:""`, `protocol: engine spec "engine:\"\"": empty command`},
		{`engine:"   "`, `protocol: engine spec "engine:\"   \"": empty command`},
		{`engine:'' x`, `protocol: engine spec "engine:'' x": empty command`},
		{`engine:a\`, `protocol: engine spec "engine:a\\": trailing backslash`},
	} {
		got, err := protocol.ParseSpec(c.spec)
		if err == nil || err.Error() != c.msg {
			t.Errorf("ParseSpec(%s) = %q, %v; want error %s", c.spec, got, err, c.msg)
		}
	}
}

// quote writes argv so that ParseSpec gives it back: every byte escaped by a backslash, "" as ”.
func quote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if a == "" {
			words[i] = "''"
			continue
		}
		var b strings.Builder
		for j := 0; j < len(a); j++ {
			b.WriteByte('\\')
			b.WriteByte(a[j])
		}
		words[i] = b.String()
	}
	return strings.Join(words, " ")
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{`engine:"yinsh engine --player random"`, `engine:a'b c'd`, `"a \"b"`, `'`, `\`, `engine:x ''`, "a\tb\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		argv, err := protocol.ParseSpec(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("protocol: engine spec %q: ", spec)) {
				t.Fatalf("error %q does not name the spec", err)
			}
			return
		}
		if len(argv) == 0 || argv[0] == "" {
			t.Fatalf("ParseSpec(%q) = %q without error", spec, argv)
		}
		q := protocol.SpecPrefix + quote(argv)
		back, err := protocol.ParseSpec(q)
		if err != nil || !reflect.DeepEqual(back, argv) {
			t.Fatalf("ParseSpec(%q) = %q; quoted %q parses as %q, %v", spec, argv, q, back, err)
		}
	})
}

func ExampleParseSpec() {
	argv, err := protocol.ParseSpec(`engine:"./bin/yinsh engine --player 'rollout:200' --seed 7"`)
	fmt.Printf("%q %v\n", argv, err)
	// Output: ["./bin/yinsh" "engine" "--player" "rollout:200" "--seed" "7"] <nil>
}
