package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// TestSitePage: the export's page is serve's page with the shim inlined before board.js and app.js,
// and its Content-Security-Policy (a meta element: a static server sends no headers) allows exactly
// the inlined style and scripts and nothing from elsewhere.
func TestSitePage(t *testing.T) {
	page := string(SitePage())
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	policy := m[1]
	for _, want := range []string{"default-src 'self'", "connect-src 'self'", "worker-src 'self'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	if len(scripts) != 3 {
		t.Fatalf("%d inline scripts, want 3 (shim, board.js, app.js)", len(scripts))
	}
	if !strings.Contains(scripts[0][1], "window.yinshFetch") || scripts[2][1] != readStatic("app.js") {
		t.Error("the shim is not the first script or app.js not the last")
	}
	for _, s := range scripts {
		if !strings.Contains(policy, cspHash(s[1])) {
			t.Errorf("the policy does not allow the script %.40q", s[1])
		}
	}
	if !strings.Contains(policy, cspHash(readStatic("style.css"))) {
		t.Error("the policy does not allow the style")
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) {
		t.Error("the page names another site")
	}
	// the info block is null: the page asks the worker
	if !strings.Contains(page, `<script id="info-json" type="application/json">null</script>`) {
		t.Error("the info block is not null")
	}
}

func TestWriteSiteRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSite(dir, SiteFiles{Wasm: []byte("not wasm"), WasmExec: []byte("globalThis.Go = class {}")}); err == nil || !strings.Contains(err.Error(), "not WebAssembly") {
		t.Errorf("bad wasm: %v", err)
	}
	if err := WriteSite(dir, SiteFiles{Wasm: []byte("\x00asm\x01\x00\x00\x00"), WasmExec: []byte("x")}); err == nil || !strings.Contains(err.Error(), "wasm_exec.js") {
		t.Errorf("bad wasm_exec.js: %v", err)
	}
	if err := WriteSite(dir, SiteFiles{Wasm: []byte("\x00asm\x01\x00\x00\x00"), WasmExec: []byte("globalThis.Go = class {}")}); err != nil {
		t.Fatal(err)
	}
	for _, name := range SiteFileNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}

// buildWasmSite builds cmd/yinsh-wasm with this toolchain and writes the site into a temporary
// directory.
func buildWasmSite(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on the PATH to build the wasm binary")
	}
	dir := t.TempDir()
	wasm := filepath.Join(t.TempDir(), "yinsh.wasm")
	cmd := exec.Command(goBin, "build", "-o", wasm, "github.com/yinsh-zero/yinsh/cmd/yinsh-wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the wasm binary: %v\n%s", err, out)
	}
	root, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	var exec_ []byte
	for _, sub := range []string{"lib/wasm", "misc/wasm"} {
		if exec_, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), sub, "wasm_exec.js")); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("wasm_exec.js: %v", err)
	}
	w, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSite(dir, SiteFiles{Wasm: w, WasmExec: exec_}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBrowserWebExport serves the web export from a plain file server and plays a whole blitz game
// in headless Chromium by clicks against level:3, which runs in the page's worker; every request
// the page and its worker make must be one of the site's files.
func TestBrowserWebExport(t *testing.T) {
	needBrowser(t)
	dir := buildWasmSite(t) // before the browser, whose context's time runs from its start
	b := newBrowser(t, 1280, 900)
	var mu sync.Mutex
	var got []string
	files := http.FileServer(http.Dir(dir))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	defer ts.Close()
	start := time.Now()
	b.do("load", chromedp.Navigate(ts.URL+"/?delay=0&player=level:3&variant=blitz#play"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	t.Logf("page ready (the agent started in the worker) %v after navigation", time.Since(start).Round(time.Millisecond))
	st := func() pageState { return eval[pageState](b, pageStateJS) }
	settle := func(moves int) pageState {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			s := st()
			if s.Busy != "1" && s.Moves > moves && (s.Your == "1" || s.Result != "ongoing") {
				return s
			}
			if s.Msg != "" {
				t.Fatalf("the page says %q", s.Msg)
			}
		}
		t.Fatalf("the page did not settle: %+v", st())
		return pageState{}
	}
	// the worker answers each request whole: the analysis board offers no streamed Live
	if !eval[bool](b, `document.getElementById('an-live').hidden`) {
		t.Error("the web export offers Live analysis, which its worker cannot stream")
	}
	b.do("blitz as white", chromedp.SetValue(chromedp.CSS("#ng-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	b.click("#ng-start")
	s := settle(-1)
	if s.Phase != "place" || len(s.Hints) != 85 || !strings.Contains(s.Status, "level:3") {
		t.Fatalf("new game: %+v", s)
	}
	first := time.Now()
	b.click(fmt.Sprintf(`#play-board [data-point="%s"]`, s.Hints[0]))
	s = settle(0)
	t.Logf("first agent answer %v after the click; %v after navigation", time.Since(first).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	// the whole game by clicks (random legal choices), the agent answering each
	rng := rand.New(rand.NewPCG(29, 3))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	for n := 0; s.Result == "ongoing"; n++ {
		if n > 400 {
			t.Fatal("the game does not end")
		}
		if n == 12 {
			b.shot("web-export-midgame.png")
		}
		before := s.Moves
		switch s.Phase {
		case "place", "remove-ring":
			b.click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(s.Hints)))
		case "move":
			if len(s.Hints) == 0 && s.Pass {
				b.click("#play-pass")
				break
			}
			b.click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(s.Hints)))
			sel := st()
			if !sel.Sel || len(sel.Hints) == 0 {
				t.Fatalf("clicking a ring selected nothing: %+v", sel)
			}
			b.click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(sel.Hints)))
		case "remove-row":
			if len(s.Rows) == 0 {
				t.Fatalf("remove-row without rows to click: %+v", s)
			}
			b.click(fmt.Sprintf(`#play-board .row-choice[data-action="%s"]`, pick(s.Rows)))
		default:
			t.Fatalf("unexpected phase %+v", s)
		}
		s = settle(before)
	}
	b.shot("web-export-end.png")
	wantWord := map[string]string{"white": "White wins", "black": "Black wins", "draw": "Draw"}[s.Result]
	if wantWord == "" || !strings.Contains(s.Status, "Game over") || !strings.Contains(s.Status, wantWord) {
		t.Fatalf("result %q, status %q", s.Result, s.Status)
	}
	// the worker's record of the game (asked through the page's yinshFetch) agrees
	g := eval[gameView](b, `yinshFetch("/api/games/"+Play.game.id).then(r => r.json())`)
	if g.Result != s.Result || len(g.Moves) != s.Moves {
		t.Fatalf("page result %s after %d moves, worker %s after %d", s.Result, s.Moves, g.Result, len(g.Moves))
	}
	t.Logf("game over after %d actions: %s (%s)", s.Moves, s.Result, s.Status)
	// every request the page and its worker made went to the static server, for the site's files
	res := eval[[]string](b, `performance.getEntriesByType('resource').map(e => e.name)`)
	for _, u := range res {
		if !strings.HasPrefix(u, ts.URL+"/") {
			t.Errorf("the page fetched %s, outside the static server", u)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	allowed := map[string]bool{"GET /": true}
	for _, name := range SiteFileNames {
		allowed["GET /"+name] = true
	}
	for _, r := range got {
		if !allowed[r] {
			t.Errorf("the static server was asked %s, not a file of the site", r)
		}
	}
	if !bytes.Contains([]byte(strings.Join(got, "\n")), []byte("GET /yinsh.wasm")) {
		t.Errorf("the worker never fetched yinsh.wasm: %q", got)
	}
	t.Logf("static server requests: %q", got)
}

// TestWasmSpeed (YINSH_WASM_BENCH=1; BENCHMARKS.md, "Web export (wasm)") measures the web export:
// cold start to the agent's first move with the reference network, and the simulations per
// second of one search of the same position by the reference network in headless Chromium's
// worker and natively (this process, one thread: GOMAXPROCS 1, as wasm has one), through the same
// /api/analyze handler.
func TestWasmSpeed(t *testing.T) {
	if os.Getenv("YINSH_WASM_BENCH") != "1" {
		t.Skip("set YINSH_WASM_BENCH=1 to measure the web export")
	}
	const sims, rounds = 800, 3
	body := fmt.Sprintf(`{"moves":["e5","f6","e6","f7","e7","f8","e8","f9","d4","g6"],"variant":"standard","sims":%d,"top":1}`, sims)
	type answer struct {
		Sims   int     `json:"sims"`
		TimeMS float64 `json:"time_ms"`
	}
	best := func(as []answer) float64 {
		r := 0.0
		for _, a := range as {
			r = max(r, float64(a.Sims)/a.TimeMS*1000)
		}
		return r
	}
	needBrowser(t)
	// native, one thread
	load := func(path string) (model.Net, error) { return gonum.Load(path) }
	_, ts := newTestServer(t, Options{Player: "reference", Searches: 1, Players: selfplay.PlayerOptions{
		Search: selfplay.Search{Sims: 200, LeavesInFlight: 8}, Variant: env.Standard, Parallel: 1, Load: load}})
	prev := runtime.GOMAXPROCS(1)
	var native []answer
	for i := 0; i < rounds; i++ {
		var a answer
		callJSON(t, nil, "POST", ts.URL+"/api/analyze", json.RawMessage(body), 200, &a)
		native = append(native, a)
	}
	runtime.GOMAXPROCS(prev)
	// the browser: a fresh one, cold
	dir := buildWasmSite(t)
	b := newBrowser(t, 1280, 900)
	site := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer site.Close()
	start := time.Now()
	b.do("load", chromedp.Navigate(site.URL+"/?delay=0&player=reference#play"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	ready := time.Since(start)
	b.do("play black", chromedp.SetValue(chromedp.CSS("#ng-variant"), "standard"), chromedp.SetValue(chromedp.CSS("#ng-color"), "black"))
	b.click("#ng-start")
	b.waitJS("the agent's first move", `!!Play.game && Play.game.moves.length >= 1`, `JSON.stringify(Play.game)`)
	first := time.Since(start)
	var wasm []answer
	for i := 0; i < rounds; i++ {
		a := eval[answer](b, `yinshFetch("/api/analyze", {method: "POST", headers: {"Content-Type": "application/json"}, body: `+strconv.Quote(body)+`}).then(r => r.json())`)
		wasm = append(wasm, a)
	}
	t.Logf("cold start: page ready (wasm compiled, agent built) %v, the reference's first move %v after navigation", ready.Round(time.Millisecond), first.Round(time.Millisecond))
	t.Logf("native (GOMAXPROCS 1): %+v; best %.0f sims/s", native, best(native))
	t.Logf("wasm (headless Chromium worker): %+v; best %.0f sims/s", wasm, best(wasm))
	t.Logf("ratio wasm/native %.2f", best(wasm)/best(native))
}
