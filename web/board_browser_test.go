package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The board's browser tests: each "Broken" item of issue #28 in headless Chromium, in the style of
// TestBrowserPlaysBlitzGame (skipped without Chromium, mandatory under YINSH_BROWSER_TEST=1,
// skipped under -short). Each starts its own server and page (of the package's one Chromium,
// chromium_test.go) and takes a few seconds.

// browser is a headless Chromium on one page, failing the test on any JavaScript error.
type browser struct {
	t   *testing.T
	ctx context.Context
	art string
}

// needBrowser returns Chromium's path, or skips t (fails it under YINSH_BROWSER_TEST=1) without one
// and under -short.
func needBrowser(t *testing.T) string {
	t.Helper()
	path := chromiumPath()
	switch {
	case path == "" && os.Getenv("YINSH_BROWSER_TEST") == "1":
		t.Fatal("YINSH_BROWSER_TEST=1 but no Chromium found (install Debian's chromium package, or set YINSH_CHROMIUM)")
	case path == "":
		t.Skip("skipping the browser test: Chromium is not installed (apt-get install -y chromium; YINSH_BROWSER_TEST=1 makes this a failure)")
	case testing.Short():
		t.Skip("skipping the browser test in -short mode (go test ./... runs it)")
	}
	return path
}

func newBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	return &browser{t: t, ctx: newPage(t, width, height, 60*time.Second), art: artifactsDir(t)}
}

func (b *browser) do(what string, acts ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, acts...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open loads the page at url and waits until it is ready; then fetch answers can be slowed down
// (window.__delay: path suffix → ms) or rewritten (window.__patch: path suffix → function of the
// decoded JSON answer), as a slow search or a given answer of the server would be.
func (b *browser) open(url string) {
	b.t.Helper()
	b.do("load "+url, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	b.hook()
}

// hook installs the fetch wrapper of open (again after a reload)
func (b *browser) hook() {
	b.t.Helper()
	b.js(`(() => { if (window.__delay) return;
	  window.__delay = {}; window.__patch = {};
	  const f0 = window.fetch;
	  const find = (m, u) => Object.keys(m).find((k) => String(u).endsWith(k));
	  window.fetch = async (u, o) => {
	    const r = await f0(u, o);
	    const d = find(window.__delay, u);
	    if (d) await new Promise((res) => setTimeout(res, window.__delay[d]));
	    const p = find(window.__patch, u);
	    if (!p || !r.ok) return r;
	    const body = window.__patch[p](await r.json());
	    return new Response(JSON.stringify(body), { status: r.status, headers: { "Content-Type": "application/json" } });
	  };
	})()`)
}

// js evaluates a script, ignoring its value
func (b *browser) js(script string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](script)); err != nil {
		b.t.Fatalf("script %.80q: %v", script, err)
	}
}

// eval evaluates a script into a T
func eval[T any](b *browser, script string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](script, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("script %.80q: %v", script, err)
	}
	return v
}

// waitJS waits until cond (a script) is true, failing with what and the value of show
func (b *browser) waitJS(what, cond, show string) {
	b.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !eval[bool](b, cond); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.t.Fatalf("%s: timed out; %s", what, eval[string](b, show))
		}
	}
}

// click clicks the first element sel matches (clickCSS), failing the test if it cannot.
func (b *browser) click(sel string) {
	b.t.Helper()
	if err := clickCSS(b.ctx, sel); err != nil {
		b.t.Fatalf("click %s: %v", sel, err)
	}
}

// clickCSS clicks the first element sel matches, with the mouse events a user's click makes.
// chromedp looks the element up and then clicks its node; a page that replaces the element in
// between (the analysis graph is redrawn when an answer arrives) leaves it a node id that no longer
// exists, and the click is tried again from the lookup, up to 5 times. A loaded machine made that
// window wide enough to hit once (TestBrowserAnalyseGame beside go test -count=5).
func clickCSS(ctx context.Context, sel string) error {
	var err error
	for try := 0; try < 5; try++ {
		if err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err == nil || !staleNode(err) {
			break
		}
	}
	return err
}

// staleNode says whether err is the DevTools protocol's answer for a node id of an element the page
// has removed since it was looked up.
func staleNode(err error) bool {
	return strings.Contains(err.Error(), "Could not find node with given id") || strings.Contains(err.Error(), "No node with given id")
}

// shot saves a PNG of the whole page (not only the viewport) into the artifacts directory, if any
func (b *browser) shot(name string) {
	b.t.Helper()
	if b.art == "" {
		return // no $YINSH_ARTIFACTS: no screenshots (artifactsDir)
	}
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.art, name), buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", filepath.Join(b.art, name))
}

// TestBrowserPlayDuringAgentTurn: "New game" while the agent thinks starts the new game for good
// (the old game's answer does not bring it back); clicks and Undo while it thinks say why nothing
// happens, as an info message; a reload resumes the game in play; Resign while the agent thinks
// ends the game (after a second click) and stays so.
func TestBrowserPlayDuringAgentTurn(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	b.js(`window.__delay["/agent"] = 900`) // the agent thinks for 0.9 s
	b.do("black", chromedp.SetValue(chromedp.CSS("#ng-variant"), "standard"), chromedp.SetValue(chromedp.CSS("#ng-color"), "black"))
	b.click("#ng-start")
	b.waitJS("the agent thinks", `document.getElementById('play-board').dataset.busy === '1'`, `document.getElementById('play-status').textContent`)
	old := eval[string](b, `Play.game.id`)
	b.click(`#play-board [data-point="e5"]`)
	msg := eval[[]string](b, `[document.getElementById('play-message').textContent, document.getElementById('play-message').className]`)
	if !strings.Contains(msg[0], "thinking") || !strings.Contains(msg[1], "info") {
		t.Errorf("a click during the agent's turn says %q (class %q)", msg[0], msg[1])
	}
	b.click("#play-undo")
	msg = eval[[]string](b, `[document.getElementById('play-message').textContent, document.getElementById('play-message').className]`)
	if !strings.Contains(msg[0], "undo") || !strings.Contains(msg[1], "info") {
		t.Errorf("Undo during the agent's turn says %q (class %q)", msg[0], msg[1])
	}
	// a new game as white while the agent of the old one thinks
	b.do("white", chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	b.click("#ng-start")
	b.waitJS("the new game", `!!Play.game && Play.game.id !== '`+old+`'`, `JSON.stringify(Play.game && Play.game.id)`)
	id := eval[string](b, `Play.game.id`)
	time.Sleep(1500 * time.Millisecond) // the old agent's answer comes back meanwhile
	st := eval[map[string]any](b, `({id: Play.game.id, you: Play.game.you, moves: Play.game.moves.length, color: document.getElementById('ng-color').value,
	  rings: document.querySelectorAll('#play-board .ring').length, hints: document.querySelectorAll('#play-board [data-hint]').length,
	  sgf: document.getElementById('dl-sgf').getAttribute('href'), busy: document.getElementById('play-board').dataset.busy})`)
	if st["id"] != id || st["you"] != "w" || st["moves"] != 0.0 || st["color"] != "white" || st["rings"] != 0.0 || st["hints"] != 85.0 ||
		st["sgf"] != "/api/games/"+id+"/sgf" || st["busy"] != "0" {
		t.Fatalf("after New game during the agent's turn (new game %s, old %s): %v", id, old, st)
	}
	// the old game is the agent's too: on the server it got the agent's action
	var g gameView
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+old, nil, 200, &g)
	if len(g.Moves) != 1 {
		t.Fatalf("the old game has %d actions, want the agent's 1", len(g.Moves))
	}
	// play on, then reload: the game comes back
	b.js(`window.__delay = {}`)
	b.click(`#play-board [data-point="e5"]`)
	b.waitJS("the agent's answer", `Play.game.moves.length === 2 && document.getElementById('play-board').dataset.busy === '0'`, `JSON.stringify(Play.game.moves)`)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	st = eval[map[string]any](b, `({id: Play.game && Play.game.id, moves: Play.game ? Play.game.moves.length : -1, rings: document.querySelectorAll('#play-board .ring').length,
	  msg: document.getElementById('play-message').textContent})`)
	if st["id"] != id || st["moves"] != 2.0 || st["rings"] != 2.0 || !strings.Contains(fmt.Sprint(st["msg"]), "Resumed") {
		t.Fatalf("after a reload: %v, want game %s with 2 actions", st, id)
	}

	// resign while the agent thinks: asked once more, then the game is over for good
	b.hook()
	b.js(`window.__delay["/agent"] = 900`)
	b.click(`#play-board [data-point="f6"]`)
	// busy from the click on: f6 taken (the agent's turn) and the agent asked
	b.waitJS("the agent thinks", `document.getElementById('play-board').dataset.busy === '1' && Play.game.moves.length === 3 && !Play.game.your_turn`,
		`document.getElementById('play-status').textContent`)
	b.click("#play-resign")
	if txt := eval[string](b, `document.getElementById('play-resign').textContent`); !strings.Contains(txt, "Really") {
		t.Fatalf("the first click on Resign does not ask again: %q", txt)
	}
	b.click("#play-resign")
	b.waitJS("resigned", `document.getElementById('play-status').textContent.includes('resigned')`, `document.getElementById('play-status').textContent`)
	time.Sleep(1200 * time.Millisecond) // the agent's answer to f6 comes back meanwhile
	status := eval[string](b, `document.getElementById('play-status').textContent + ' ' + Play.game.result + ' ' + Play.game.resigned`)
	if !strings.Contains(status, "Game over: you resigned; black wins.") || !strings.HasSuffix(status, " black w") {
		t.Fatalf("after resigning: %q", status)
	}
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+id, nil, 200, &g)
	if g.Result != "black" || g.Resigned != "w" || len(g.Moves) != 4 {
		t.Fatalf("the server's game after resigning: result %s, resigned %q, %d actions", g.Result, g.Resigned, len(g.Moves))
	}
	b.shot("play-resigned.png")
}

// TestBrowserAnalyse: an answer that comes after the stepper moved is kept for its ply and not
// drawn under another; candidate labels ending on one point do not cover each other; a
// non-searching player's best move is shown; the WDL bar prints no clipped number; info messages
// are not in the error style.
func TestBrowserAnalyse(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/#analyse")
	b.do("a blitz position", chromedp.SetValue(chromedp.CSS("#an-input"), "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"),
		chromedp.SetValue(chromedp.CSS("#an-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#an-player"), "rollout:300"),
		chromedp.SetValue(chromedp.CSS("#an-sims"), "300"), chromedp.SetValue(chromedp.CSS("#an-top"), "30"))
	b.click("#an-load")
	b.waitJS("the position", `document.getElementById('an-ply').textContent.startsWith('ply 10/10')`, `document.getElementById('an-ply').textContent`)
	rings := `document.querySelectorAll('#an-board .ring').length`

	// step back while the search runs: the board stays the stepper's ply
	b.js(`window.__delay["/api/analyze"] = 700`)
	b.click("#an-go")
	b.click("#an-prev")
	b.waitJS("the answer", `!document.getElementById('an-message').textContent.startsWith('searching')`, `document.getElementById('an-message').textContent`)
	st := eval[map[string]any](b, `({ply: document.getElementById('an-ply').textContent, rings: `+rings+`, arrows: document.querySelectorAll('#an-board .arrow').length})`)
	if !strings.HasPrefix(fmt.Sprint(st["ply"]), "ply 9/10") || st["rings"] != 9.0 || st["arrows"] != 0.0 {
		t.Fatalf("an answer for ply 10 arriving at ply 9 drew %v (want ply 9's 9 rings and no candidates)", st)
	}
	// back at ply 10 its answer is drawn
	b.click("#an-next")
	b.waitJS("ply 10's candidates", `document.querySelectorAll('#an-board .arrow').length > 0 && `+rings+` === 10`, `document.getElementById('an-ply').textContent`)
	b.js(`window.__delay = {}`)

	// labels: candidates ending on one point have their labels apart
	overlap := eval[map[string]any](b, `(() => {
	  const r = Analyse.cache.get(Analyse.stepper.current().position);
	  const ends = {}; for (const a of r.top) { const to = a.action.split('-')[1]; ends[to] = (ends[to] || 0) + 1; }
	  const shared = Object.values(ends).filter((n) => n > 1).length;
	  const boxes = [...document.querySelectorAll('#an-board .arrow-label')].map((e) => ({l: e.textContent, b: e.getBoundingClientRect()}));
	  const hits = [];
	  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
	    const a = boxes[i].b, c = boxes[j].b;
	    const w = Math.min(a.right, c.right) - Math.max(a.left, c.left), h = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
	    if (w > 0.5 && h > 0.5) hits.push(boxes[i].l + '/' + boxes[j].l);
	  }
	  return {shared, labels: boxes.length, hits};
	})()`)
	if overlap["shared"] == 0.0 {
		t.Fatalf("no two candidates end on one point: the label test tests nothing (%v)", overlap)
	}
	if hits := overlap["hits"].([]any); len(hits) > 0 {
		t.Errorf("candidate labels cover each other: %v (%v labels, %v points shared)", hits, overlap["labels"], overlap["shared"])
	}
	msg := eval[[]string](b, `[document.getElementById('an-message').className, getComputedStyle(document.getElementById('an-message')).color]`)
	if !strings.Contains(msg[0], "info") || msg[1] == "rgb(170, 51, 51)" {
		t.Errorf("the analysis summary is shown as %v, the error style", msg)
	}
	b.shot("analyse-labels.png")

	// a narrow WDL segment: its number is not clipped ("2%" read as "2!"), the caption says all
	b.js(`window.__patch["/api/analyze"] = (r) => { r.wdl = [0.9, 0.02, 0.08]; return r; }`)
	b.click("#an-go")
	b.waitJS("the patched answer", `document.getElementById('an-wdl-caption').textContent.includes('draw 2%')`, `document.getElementById('an-wdl').textContent`)
	clipped := eval[[]string](b, `[...document.querySelectorAll('#an-wdl div')].filter((d) => d.textContent && d.scrollWidth > d.clientWidth + 1).map((d) => d.textContent + ' in ' + d.clientWidth + ' px')`)
	if len(clipped) > 0 {
		t.Errorf("WDL numbers clipped: %v", clipped)
	}
	if c := eval[string](b, `document.getElementById('an-wdl-caption').textContent`); !strings.Contains(c, "white") {
		t.Errorf("the WDL caption %q does not say whose view it is", c)
	}
	b.js(`window.__patch = {}`)

	// heuristic does not search: its best move is on the board and in the table
	b.do("heuristic", chromedp.SetValue(chromedp.CSS("#an-player"), "heuristic"))
	b.click("#an-go")
	b.waitJS("heuristic's answer", `document.getElementById('an-message').textContent.includes('heuristic')`, `document.getElementById('an-message').textContent`)
	st = eval[map[string]any](b, `({msg: document.getElementById('an-message').textContent, arrows: document.querySelectorAll('#an-board .arrow').length,
	  table: document.getElementById('an-table').textContent, best: Analyse.cache.get(Analyse.stepper.current().position).best})`)
	best := fmt.Sprint(st["best"])
	if best == "" || !strings.Contains(fmt.Sprint(st["msg"]), best) || st["arrows"] != 1.0 || !strings.Contains(fmt.Sprint(st["table"]), best) ||
		strings.Contains(fmt.Sprint(st["msg"]), "0 visits") {
		t.Fatalf("heuristic's analysis shows %v", st)
	}
}

// TestBrowserTabsFollowTheAddress: #watch typed into the address shows the watch page, tabs are
// history entries (Back returns to the page before), and the run lists refresh themselves: a new
// run and its new generations appear without clicking the tab again.
func TestBrowserTabsFollowTheAddress(t *testing.T) {
	runs, _, _ := makeRunsWriter(t)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs, Poll: 50 * time.Millisecond})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?poll=300#play")
	shown := `[...document.querySelectorAll('.page')].filter((p) => !p.hidden).map((p) => p.id).join()`
	b.js(`location.hash = '#watch'`)
	b.waitJS("#watch in the address", shown+` === 'watch'`, shown)
	b.click("#tab-dashboard")
	b.waitJS("the dashboard", shown+` === 'dashboard' && location.hash === '#dashboard'`, shown)
	b.do("back", chromedp.NavigateBack())
	b.waitJS("Back to watch", shown+` === 'watch' && location.hash === '#watch'`, shown+` + ' ' + location.hash`)
	b.do("back", chromedp.NavigateBack())
	b.waitJS("Back to play", shown+` === 'play'`, shown+` + ' ' + location.hash`)
	b.do("forward", chromedp.NavigateForward())
	b.waitJS("Forward to watch", shown+` === 'watch'`, shown)
	b.click("#tab-dashboard")

	// a new run, then more generations of it
	if err := os.MkdirAll(filepath.Join(runs, "r2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "r2", "metrics.jsonl"), []byte(metricsLine(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := `[...document.querySelectorAll('#d-run option')].map((o) => o.textContent).join(' | ')`
	b.waitJS("r2 listed", opt+`.includes('r2 (1 gen')`, opt)
	var more strings.Builder
	for gen := 2; gen <= 10; gen++ {
		more.WriteString(metricsLine(gen))
	}
	f, err := os.OpenFile(filepath.Join(runs, "r2", "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(more.String())
	f.Close()
	b.waitJS("r2's 10 generations", opt+`.includes('r2 (10 gen')`, opt)
	b.click("#tab-watch")
	wopt := `[...document.querySelectorAll('#w-run option')].map((o) => o.textContent).join(' | ')`
	b.waitJS("r2 in watch", wopt+`.includes('r2 (10 gen')`, wopt)
}

// contrast of highlights: each highlight's colour (its opacity applied over the board) against the
// board's background, by WCAG's relative luminance
const contrastJS = `(() => {
  const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const bg = rgb(getComputedStyle(document.getElementById('play-board')).backgroundColor);
  const out = {};
  for (const [name, sel, prop] of SELECTORS) {
    const e = document.querySelector(sel.split(',').map((x) => '#play-board ' + x.trim()).join());
    if (!e) { out[name] = -1; continue; }
    const cs = getComputedStyle(e);
    let c = rgb(cs[prop]);
    let a = Number(cs.opacity) * Number(prop === 'stroke' ? cs.strokeOpacity : cs.fillOpacity) * (c.length > 3 ? c[3] : 1);
    c = c.slice(0, 3).map((x, i) => a * x + (1 - a) * bg[i]);
    const l1 = lum(c), l2 = lum(bg);
    out[name] = Math.round(100 * (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)) / 100;
  }
  return out;
})()`

// TestBrowserRowHighlights: every highlight of the board has a contrast of at least 3:1 against it;
// rows of four and rows to remove differ by more than colour (dashed against solid); two rows to
// remove that overlap (six in a line) are drawn apart, each clicked where it is drawn, and named
// as buttons beside the board.
func TestBrowserRowHighlights(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/#play")
	// a position with a white and a black row of four and rings of both, drawn with every mark:
	// the last move, hints, a selected ring and two overlapping rows to remove on e1..e6
	b.js(`window.__rows = []; (async () => {
	  const at = {a2: 'W', a3: 'W', a4: 'W', a5: 'W', b1: 'W', k7: 'B', k8: 'B', k9: 'B', k10: 'B', j5: 'B',
	    b2: 'w', b3: 'w', b4: 'w', b5: 'w', h4: 'b', h5: 'b', h6: 'b', h7: 'b'};
	  const pos = YINSH.points.map((p) => at[p.name] || '.').join('') + ' w 0-0';
	  const r = await api('POST', '/api/replay', {position: pos, tokens: ''});
	  const v = Object.assign({}, r.plies[0], {last: 'k7-g3'});
	  Play.board.onRow((t) => window.__rows.push(t));
	  Play.board.render(v, {hints: ['c2', 'c3'], selected: 'a2', rows: ['xe1-e5', 'xe2-e6']});
	  window.__fours = v.fours.length;
	})()`)
	b.waitJS("the marks", `window.__fours !== undefined`, `'none'`)
	if n := eval[int](b, `window.__fours`); n < 2 {
		t.Fatalf("%d rows of four in the test position", n)
	}
	sel := `const SELECTORS = [['white four', '.four-w.four', 'stroke'], ['black four', '.four-b.four', 'stroke'],
	  ['white fifth', '.four-fifth.four-w', 'stroke'], ['black fifth', '.four-fifth.four-b', 'stroke'], ['hint', '.hint', 'fill'],
	  ['selected', '.selected', 'stroke'], ['last mark', '.lastmark', 'stroke'], ['last line', '.lastline', 'stroke'],
	  ['row to remove', '.row-bar, .row-choice', 'stroke']];`
	ratios := eval[map[string]float64](b, `(() => { `+sel+` return `+contrastJS+`; })()`)
	for name, r := range ratios {
		if r < 3 {
			t.Errorf("%s: contrast %.2f:1 against the board, want at least 3:1", name, r)
		}
	}
	t.Logf("highlight contrasts: %v", ratios)
	dash := eval[[]string](b, `[getComputedStyle(document.querySelector('#play-board .four')).strokeDasharray,
	  getComputedStyle(document.querySelector('#play-board .row-bar') || document.querySelector('#play-board .row-choice')).strokeDasharray]`)
	if dash[0] == dash[1] {
		t.Errorf("rows of four and rows to remove are drawn alike but for colour (dashes %q and %q)", dash[0], dash[1])
	}
	// the two rows: apart, and each picked where it is drawn
	geo := eval[[][]float64](b, `[...document.querySelectorAll('#play-board .row-choice')].map((e) => { const r = e.getBoundingClientRect();
	  return [r.left + r.width / 2, r.top + r.height / 2, +e.getAttribute('x1'), +e.getAttribute('y1')]; })`)
	if len(geo) != 2 {
		t.Fatalf("%d rows drawn, want 2", len(geo))
	}
	if geo[0][2] == geo[1][2] && geo[0][3] == geo[1][3] {
		t.Errorf("the two rows start at the same point of the drawing: %v", geo)
	}
	// a click at the middle of each bar (e3/e4, shared by both rows) picks that bar's row
	for i, want := range []string{"xe1-e5", "xe2-e6"} {
		b.do("click row", chromedp.MouseClickXY(geo[i][0], geo[i][1]))
		got := eval[[]string](b, `window.__rows.splice(0)`)
		if len(got) != 1 || got[0] != want {
			t.Errorf("a click on the middle of row %s's bar picked %v", want, got)
		}
	}
	b.shot("rows-and-fours.png")
}

// TestBrowserNarrow: at 400×800 the move line breaks between tokens, never inside one
// ("e5-" / "e10"), and screenshots of play and analyse at that width.
func TestBrowserNarrow(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	// a game of 60 actions (ring moves and all) played through the API
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "standard"}, 201, &g)
	rng := rand.New(rand.NewPCG(3, 3))
	for len(g.Moves) < 60 && g.Result == "ongoing" {
		if g.YourTurn {
			callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"action": g.Legal[rng.IntN(len(g.Legal))]}, 200, &g)
		} else {
			callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
		}
	}
	b := newBrowser(t, 400, 800)
	b.do("size", chromedp.EmulateViewport(400, 800))
	b.open(ts.URL + "/#play")
	b.js(`localStorage.setItem('yinsh.game', '` + g.ID + `')`)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	// the game resumed (the agent may play its turn on)
	b.waitJS("the game", `!!Play.game && Play.game.id === '`+g.ID+`' && Play.game.moves.length >= `+fmt.Sprint(len(g.Moves))+
		` && document.getElementById('play-board').dataset.busy === '0'`, `JSON.stringify(Play.game && Play.game.moves.length)`)
	broken := func(sel string) []string {
		return eval[[]string](b, `(() => {
		  const el = document.querySelector('`+sel+`'), text = el.textContent, out = [];
		  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); const nodes = []; let n, off = 0;
		  while ((n = walker.nextNode())) { nodes.push([n, off]); off += n.length; }
		  const pos = (i) => { for (let k = nodes.length - 1; k >= 0; k--) if (nodes[k][1] <= i) return [nodes[k][0], i - nodes[k][1]]; };
		  const re = /[a-kx][^\s]*/g; let m, lines = new Set();
		  while ((m = re.exec(text))) {
		    const r = document.createRange(), [a, ao] = pos(m.index), [z, zo] = pos(m.index + m[0].length - 1);
		    r.setStart(a, ao); r.setEnd(z, zo + 1);
		    const tops = new Set([...r.getClientRects()].map((q) => Math.round(q.top)));
		    [...tops].forEach((t) => lines.add(t));
		    if (tops.size > 1) out.push(m[0]);
		  }
		  if (lines.size < 3) out.push('only ' + lines.size + ' lines: the test tests nothing');
		  return out;
		})()`)
	}
	if bad := broken("#play-moves"); len(bad) > 0 {
		t.Errorf("the move line breaks inside %v", bad)
	}
	b.shot("play-400.png")
	b.click("#play-to-analyse")
	b.waitJS("the analysis board", `document.querySelectorAll('#an-board .ring').length > 0`, `document.getElementById('an-ply').textContent`)
	b.do("player", chromedp.SetValue(chromedp.CSS("#an-player"), "rollout:200"), chromedp.SetValue(chromedp.CSS("#an-sims"), "200"))
	b.click("#an-go")
	b.waitJS("the analysis", `document.querySelectorAll('#an-board .arrow, #an-board .arrow-spot').length > 0`, `document.getElementById('an-message').textContent`)
	b.shot("analyse-400.png")
}

// TestBrowserPlayTwiceInFlight: a second click while the human's action is on its way (the answer
// slowed down) is told to wait, as an info message; it is not sent against the game before that
// action (the server would refuse it as played in the agent's turn, an error left on the page).
func TestBrowserPlayTwiceInFlight(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	b.do("white", chromedp.SetValue(chromedp.CSS("#ng-variant"), "standard"), chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	b.click("#ng-start")
	b.waitJS("the game", `!!Play.game && Play.game.your_turn && !Play.busy`, `document.getElementById('play-status').textContent`)
	b.js(`window.__plays = 0; window.__delay["/play"] = 600;
	  const f1 = window.fetch; window.fetch = (u, o) => { if (String(u).endsWith('/play')) window.__plays++; return f1(u, o); }`)
	b.click(`#play-board [data-point="e5"]`)
	if busy := eval[string](b, `document.getElementById('play-board').dataset.busy`); busy != "1" {
		t.Errorf("while the human's action is on its way the board is busy %q, want 1", busy)
	}
	b.click(`#play-board [data-point="e5"]`)
	msg := eval[[]string](b, `[document.getElementById('play-message').textContent, document.getElementById('play-message').className]`)
	if !strings.Contains(msg[1], "info") || strings.Contains(msg[1], "error") {
		t.Errorf("a second click while the first action is on its way says %q (class %q), want an info message", msg[0], msg[1])
	}
	b.waitJS("the agent's answer", `Play.game.moves.length === 2 && !Play.busy && Play.game.your_turn`, `JSON.stringify(Play.game.moves)`)
	got := eval[[]any](b, `[window.__plays, document.getElementById('play-message').className, document.getElementById('play-message').textContent]`)
	if got[0] != 1.0 || strings.Contains(fmt.Sprint(got[1]), "error") {
		t.Errorf("after two clicks on e5: %v /play requests, message %q (class %q); want one request and no error", got[0], got[2], got[1])
	}
}
