package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The page at "/" is one request: style and scripts inlined, each allowed by its hash in the
// Content-Security-Policy and nothing else inline, and the /api/info answer as a JSON data block
// (which the policy need not allow: it is not run). The separate files are still served.
func TestPageInlinesItsFiles(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "heuristic"})
	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if bytes.Contains(page, []byte(`src=`)) || bytes.Contains(page, []byte(`rel="stylesheet"`)) {
		t.Fatal("the page still loads a file")
	}
	policy := resp.Header.Get("Content-Security-Policy")
	allowed := func(directive, content string) bool {
		sum := sha256.Sum256([]byte(content))
		h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		for _, d := range strings.Split(policy, ";") {
			if f := strings.Fields(d); len(f) > 0 && f[0] == directive {
				return strings.Contains(d, h)
			}
		}
		return false
	}
	for _, m := range regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page, -1) {
		if !allowed("script-src", string(m[1])) {
			t.Errorf("an inline script (%d bytes) is not allowed by %q", len(m[1]), policy)
		}
	}
	styles := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllSubmatch(page, -1)
	if len(styles) != 1 || !allowed("style-src", string(styles[0][1])) {
		t.Errorf("%d inline styles, not allowed by %q", len(styles), policy)
	}
	if n := len(regexp.MustCompile(`<script>`).FindAll(page, -1)); n != 2 {
		t.Errorf("%d inline scripts, want board.js and app.js", n)
	}
	info := regexp.MustCompile(`(?s)<script id="info-json" type="application/json">(.*?)</script>`).FindSubmatch(page)
	_, want := call(t, nil, "GET", ts.URL+"/api/info", nil)
	if info == nil || string(info[1]) != strings.TrimSpace(string(want)) {
		t.Fatalf("inlined info %q, /api/info %q", info, want)
	}
	for _, f := range []string{"/style.css", "/board.js", "/app.js"} {
		if status, body := call(t, nil, "GET", ts.URL+f, nil); status != 200 || len(body) == 0 {
			t.Errorf("%s: %d", f, status)
		}
	}
}

// TestNoMethodDefinedTwice: in the page's objects and classes (const X = { … }; and class X { … }
// at the top level of a script, methods indented by two spaces), no method name is defined twice. A
// later definition silently replaces the earlier one: Play once had two tick methods, the sound's
// and the clocks', and the Sound box never made a sound.
func TestNoMethodDefinedTwice(t *testing.T) {
	start := regexp.MustCompile(`^(?:const (\w+) = \{|class (\w+) \{)$`)
	method := regexp.MustCompile(`^  (?:async )?(\w+)\([^)]*\) \{`)
	for _, name := range []string{"static/app.js", "static/board.js"} {
		src, err := staticFS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		obj, seen, objects := "", map[string]int{}, 0
		for i, line := range strings.Split(string(src), "\n") {
			if m := start.FindStringSubmatch(line); m != nil {
				obj, seen = m[1]+m[2], map[string]int{}
				objects++
				continue
			}
			if obj != "" && (line == "};" || line == "}") {
				obj = ""
				continue
			}
			if m := method.FindStringSubmatch(line); m != nil && obj != "" {
				if prev, ok := seen[m[1]]; ok {
					t.Errorf("%s:%d: %s.%s is defined again (first at line %d): the later one replaces it", name, i+1, obj, m[1], prev)
				}
				seen[m[1]] = i + 1
			}
		}
		if name == "static/app.js" && objects < 4 {
			t.Errorf("%s: found %d objects (Play, Analyse, Watch, Dash, ...): the pattern no longer matches the file", name, objects)
		}
	}
}
