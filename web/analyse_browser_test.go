package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// loadAnalyse opens the analysis board at the end of a blitz opening.
func loadAnalyse(b *browser, url string) {
	b.t.Helper()
	b.open(url + "/#analyse")
	b.do("a blitz position", chromedp.SetValue(chromedp.CSS("#an-input"), "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"),
		chromedp.SetValue(chromedp.CSS("#an-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#an-top"), "5"))
	b.click("#an-load")
	b.waitJS("the position", `document.getElementById('an-ply').textContent.startsWith('ply 10/10')`, `document.getElementById('an-ply').textContent`)
}

// TestBrowserAnalyseLive: Live streams the search of the board's position (its visits grow on the
// board and in the table while it runs); a step moves the search to the new position (the server
// runs one search for the page, not two) and stepping back shows the position's cached analysis at
// once; Stop ends the search on the server; the server's bound stops it and the page says so.
func TestBrowserAnalyseLive(t *testing.T) {
	s, ts := newTestServer(t, Options{Player: "rollout:16", MaxStream: 1500 * time.Millisecond})
	running := func() int {
		s.pool.mu.Lock()
		defer s.pool.mu.Unlock()
		return len(s.pool.slots)
	}
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	visits := `((Analyse.cache.get(Analyse.stepper.current().position) || {}).visits || 0)`
	b.click("#an-live")
	b.waitJS("live updates", visits+` > 0 && document.querySelectorAll('#an-board .arrow').length > 0`, `document.getElementById('an-message').textContent`)
	v0 := eval[float64](b, visits)
	b.waitJS("more visits", visits+` > `+fmt.Sprint(v0), `document.getElementById('an-message').textContent`)
	st := eval[map[string]any](b, `({state: document.getElementById('an-live').dataset.state, label: document.getElementById('an-live').textContent,
	  msg: document.getElementById('an-message').textContent, table: document.getElementById('an-table').rows.length})`)
	if st["state"] != "running" || st["label"] != "Stop" || !strings.Contains(fmt.Sprint(st["msg"]), "live") || st["table"].(float64) < 2 {
		t.Fatalf("while live: %v", st)
	}
	b.shot("analyse-live.png")
	ply10 := eval[float64](b, visits)

	// a step back: the search follows; the server runs it alone
	b.click("#an-prev")
	b.waitJS("ply 9's live updates", `document.getElementById('an-ply').textContent.startsWith('ply 9/10') && `+visits+` > 0`, `document.getElementById('an-message').textContent`)
	waitFor(t, "one search on the server", func() bool { return running() == 1 })
	// forward again: ply 10's analysis at once (drawn in the click's handler), never less deep
	b.click("#an-next")
	st = eval[map[string]any](b, `({visits: `+visits+`, arrows: document.querySelectorAll('#an-board .arrow').length, msg: document.getElementById('an-message').textContent})`)
	if st["visits"].(float64) < ply10 || st["arrows"] == 0.0 || !strings.Contains(fmt.Sprint(st["msg"]), "visits") {
		t.Fatalf("back at ply 10 (%v visits before): %v", ply10, st)
	}
	// Stop: the page stops, the server's search ends
	b.click("#an-live")
	if st := eval[string](b, `document.getElementById('an-live').dataset.state + ' ' + document.getElementById('an-live').textContent`); st != "off Live" {
		t.Fatalf("after Stop the button is %q", st)
	}
	waitFor(t, "the search stopped on the server", func() bool { return running() == 0 })
	// the server's bound (1.5 s here) ends a live search; the page says so
	b.click("#an-live")
	b.waitJS("the server's bound", `document.getElementById('an-live').dataset.state === 'done'`, `document.getElementById('an-live').dataset.state`)
	if msg := eval[string](b, `document.getElementById('an-message').textContent`); !strings.Contains(msg, "server's limit") {
		t.Errorf("after the server's bound the message is %q", msg)
	}
	// leaving the page stops it
	b.click("#an-live") // Stop (the button says Stop while live is on)
	b.click("#an-live")
	b.waitJS("live again", `document.getElementById('an-live').dataset.state === 'running'`, `document.getElementById('an-live').dataset.state`)
	b.click("#tab-play")
	waitFor(t, "no search once the page is left", func() bool { return running() == 0 })

	n := newBrowser(t, 400, 800)
	n.do("size", chromedp.EmulateViewport(400, 800))
	loadAnalyse(n, ts.URL)
	n.click("#an-live")
	n.waitJS("live updates", visits+` > 0`, `document.getElementById('an-message').textContent`)
	if w := eval[float64](n, `document.documentElement.scrollWidth`); w > 400 {
		t.Errorf("at 400 px the page is %v px wide", w)
	}
	n.shot("analyse-live-400.png")
}

// TestBrowserAnalyseVariations: a move on the analysis board from an earlier ply starts a
// variation and keeps the mainline; the list shows it in parentheses under the move it is an
// alternative to, nested for a variation of a variation; a click on any move goes there; keys step
// along the current line; a ring move (ring, then its end) at the end of the mainline extends it.
func TestBrowserAnalyseVariations(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	ply := func() string { return eval[string](b, `document.getElementById('an-ply').textContent`) }
	cur := `((document.querySelector('#an-moves .mv.cur') || {dataset: {}}).dataset.path || '')`
	// a legal placement other than the mainline's at the current node
	place := func(not string) string {
		return eval[string](b, `Analyse.legal().find((t) => !t.includes('-') && t !== '`+not+`')`)
	}
	b.click("#an-prev")
	b.click("#an-prev")
	if p := ply(); !strings.HasPrefix(p, "ply 8/10") {
		t.Fatalf("after two steps back: %q", p)
	}
	main := "e5 f6 e6 f7 e7 f8 e8 f9"
	p1 := place("d4")
	b.click(`#an-board .target.on[data-point="` + p1 + `"]`)
	b.waitJS("the variation", cur+` === '`+main+" "+p1+`'`, cur)
	if p := ply(); !strings.HasPrefix(p, "ply 9/9") {
		t.Fatalf("in the variation: %q", p)
	}
	// black answers in the variation: it goes on, no second variation
	p2 := place("")
	b.click(`#an-board .target.on[data-point="` + p2 + `"]`)
	b.waitJS("the variation's next move", cur+` === '`+main+" "+p1+" "+p2+`'`, cur)
	st := eval[map[string]any](b, `({vars: document.querySelectorAll('#an-moves .ml-var').length, text: document.querySelector('#an-moves .ml-var').textContent,
	  main: [...document.querySelectorAll('#an-moves .ml-main > .mv')].map((e) => e.dataset.path.split(' ').pop()).join(' ')})`)
	if st["vars"] != 1.0 || !strings.Contains(fmt.Sprint(st["text"]), p1) || !strings.HasPrefix(fmt.Sprint(st["text"]), "(") ||
		st["main"] != "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6" {
		t.Fatalf("the list after a variation: %v", st)
	}
	// a variation of the variation: back to its first move, another black answer
	b.click(`#an-moves .mv[data-path="` + main + " " + p1 + `"]`)
	b.waitJS("the variation's first move", cur+` === '`+main+" "+p1+`'`, cur)
	if p := ply(); !strings.HasPrefix(p, "ply 9/10") {
		t.Fatalf("on the variation's first move the line is %q", p)
	}
	p3 := place(p2)
	b.click(`#an-board .target.on[data-point="` + p3 + `"]`)
	b.waitJS("the nested variation", `document.querySelectorAll('#an-moves .ml-var .ml-var').length === 1 && `+cur+` === '`+main+" "+p1+" "+p3+`'`, cur)
	b.shot("analyse-variations.png")
	// the mainline by a click, then keys along it
	b.click(`#an-moves .mv[data-path="` + main + ` d4"]`)
	b.waitJS("the mainline", cur+` === '`+main+` d4'`, cur)
	b.do("right", chromedp.KeyEvent(kb.ArrowRight))
	b.waitJS("the key steps along the mainline", cur+` === '`+main+` d4 g6'`, cur)
	if p := ply(); !strings.HasPrefix(p, "ply 10/10") {
		t.Fatalf("at the mainline's end: %q", p)
	}
	// a ring move extends the mainline: the ring, then where it goes
	mv := eval[string](b, `Analyse.legal().find((t) => /^[a-k]\d+-[a-k]\d+$/.test(t))`)
	from, to, _ := strings.Cut(mv, "-")
	b.click(`#an-board .target.on[data-point="` + from + `"]`)
	b.waitJS("the ring's moves", `document.querySelectorAll('#an-board .target.on').length > 0 && !!document.querySelector('#an-board .target.on[data-point="`+to+`"]')`, cur)
	b.click(`#an-board .target.on[data-point="` + to + `"]`)
	b.waitJS("the mainline goes on", cur+` === '`+main+` d4 g6 `+mv+`'`, cur)
	if p := ply(); !strings.HasPrefix(p, "ply 11/11") {
		t.Fatalf("after the ring move: %q", p)
	}
	if n := eval[float64](b, `document.querySelectorAll('#an-moves .ml-main > .ml-var').length`); n != 1 {
		t.Fatalf("the ring move made a variation: %v at the top level, want 1", n)
	}
	if eval[bool](b, `!document.getElementById('an-promote').disabled`) {
		t.Error("Make main line is offered on the main line")
	}
	// the nested variation made the main line: the old main line is a variation now (after p1, the
	// move it is an alternative to), and so is p2 (after p3)
	b.click(`#an-moves .mv[data-path="` + main + " " + p1 + " " + p3 + `"]`)
	b.waitJS("the nested variation's move", cur+` === '`+main+" "+p1+" "+p3+`'`, cur)
	b.click("#an-promote")
	b.waitJS("the new main line", `[...document.querySelectorAll('#an-moves .ml-main > .mv')].map((e) => e.dataset.path.split(' ').pop()).join(' ') === '`+main+" "+p1+" "+p3+`'`,
		`[...document.querySelectorAll('#an-moves .ml-main > .mv')].map((e) => e.dataset.path.split(' ').pop()).join(' ')`)
	if got := eval[string](b, `[...document.querySelectorAll('#an-moves .ml-main > .ml-var > .mv')].map((e) => e.dataset.path.split(' ').pop()).join(' ')`); got != "d4 g6 "+mv+" "+p2 {
		t.Fatalf("after promoting, the variations read %q, want %q", got, "d4 g6 "+mv+" "+p2)
	}
	b.shot("analyse-variations-promoted.png")
	// delete the old main line from d4: one line left, the numbered list again
	b.click(`#an-moves .mv[data-path="` + main + ` d4"]`)
	b.waitJS("d4", cur+` === '`+main+` d4'`, cur)
	b.click("#an-delete")
	b.waitJS("d4 deleted", `document.getElementById('an-ply').textContent.startsWith('ply 8/') && !document.querySelector('#an-moves .mv[data-path="`+main+` d4"]')`, `document.getElementById('an-moves').textContent`)
	if n := eval[float64](b, `document.querySelectorAll('#an-moves .ml-var').length`); n != 1 {
		t.Fatalf("after deleting d4: %v variations, want %s's", n, p2)
	}
}

// TestBrowserAnalysePV: the PV's actions are buttons; hovering one shows the position after the PV
// up to it (the server's replay of those actions), leaving the PV brings the board's position
// back, and a click plays the PV up to it into the variation tree.
func TestBrowserAnalysePV(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:16"})
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	b.do("sims", chromedp.SetValue(chromedp.CSS("#an-sims"), "300"))
	b.click("#an-go")
	b.waitJS("a PV", `document.querySelectorAll('#an-pv .pv-tok').length >= 3`, `document.getElementById('an-pv').textContent`)
	pv := eval[[]string](b, `[...document.querySelectorAll('#an-pv .pv-tok')].map((e) => e.textContent)`)
	here := eval[string](b, `Analyse.stepper.current().position`)
	var r replayAnswer
	callJSON(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"position": here, "variant": "blitz", "moves": pv[:3]}, 200, &r)
	want := r.Plies[3].Position
	box := eval[[]float64](b, `(() => { const r = document.querySelectorAll('#an-pv .pv-tok')[2].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	b.do("hover", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[1]))
	b.waitJS("the preview", `document.getElementById('an-board').dataset.preview === '2' && document.getElementById('an-board').dataset.position === '`+want+`'`,
		`document.getElementById('an-board').dataset.position`)
	b.shot("analyse-pv-preview.png")
	b.do("leave", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 5, 5))
	b.waitJS("the board's position back", `document.getElementById('an-board').dataset.preview === undefined && document.getElementById('an-board').dataset.position === '`+here+`'`,
		`document.getElementById('an-board').dataset.position`)
	// a click plays pv[:3] into the tree
	b.click(`#an-pv .pv-tok[data-k="2"]`)
	path := "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6 " + strings.Join(pv[:3], " ")
	b.waitJS("the PV played", `Analyse.path(Analyse.node).slice(1).map((n) => n.tok).join(' ') === '`+path+`'`, `document.getElementById('an-ply').textContent`)
	st := eval[map[string]any](b, `({ply: document.getElementById('an-ply').textContent, pos: document.getElementById('an-board').dataset.position})`)
	if !strings.HasPrefix(fmt.Sprint(st["ply"]), "ply 13/13") || st["pos"] != want {
		t.Fatalf("after a click on the PV's third action: %v (want %s)", st, want)
	}
}

// TestBrowserAnalyseGame: "Analyse game" searches every ply of the main line (progress bar), draws
// White's win chance over the plies and marks the moves that cost their mover win chance (here the
// server's answers are rewritten to known values: a 40% drop is a blunder, 25% a mistake, 12% an
// inaccuracy) in the graph and in the move list; a click on the graph goes to that ply; Stop stops.
func TestBrowserAnalyseGame(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:8"})
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	b.do("sims", chromedp.SetValue(chromedp.CSS("#an-sims"), "20"))
	// White's win chance by ply: white's e8 (ply 6 → 7) drops it 0.5 → 0.1, a blunder; black's f9
	// (7 → 8) costs black 12%, an inaccuracy; black's g6 (9 → 10) costs black 25%, a mistake
	b.js(`(() => {
	  const want = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.1, 0.22, 0.22, 0.47];
	  window.__want = {};
	  Analyse.lineOf(Analyse.root).forEach((n, i) => { window.__want[n.view.position] = want[i]; });
	  window.__patch["/api/analyze"] = (r) => { const w = window.__want[r.position]; if (w !== undefined) { const p = r.side === 'w' ? w : 1 - w; r.wdl = [p, 0, 1 - p]; } return r; };
	})()`)
	b.click("#an-game")
	b.waitJS("the whole game", `document.getElementById('an-game').dataset.state === 'done'`, `document.getElementById('an-game-status').textContent`)
	st := eval[map[string]any](b, `({value: document.getElementById('an-game-progress').value, max: document.getElementById('an-game-progress').max,
	  dots: document.querySelectorAll('#an-graph .graph-dot').length,
	  blunder: [...document.querySelectorAll('#an-moves .mv.blunder')].map((e) => e.dataset.ply + ' ' + e.textContent),
	  mistake: [...document.querySelectorAll('#an-moves .mv.mistake')].map((e) => e.dataset.ply + ' ' + e.textContent),
	  inacc: [...document.querySelectorAll('#an-moves .mv.inaccuracy')].map((e) => e.dataset.ply + ' ' + e.textContent),
	  marks: [...document.querySelectorAll('#an-graph .graph-dot[class*=mark-]')].map((e) => e.dataset.ply + ' ' + e.getAttribute('class')),
	  legend: document.getElementById('an-graph-legend').textContent})`)
	if st["value"] != 11.0 || st["max"] != 11.0 || st["dots"] != 11.0 {
		t.Fatalf("after Analyse game: %v", st)
	}
	if fmt.Sprint(st["blunder"]) != "[7 e8??]" || fmt.Sprint(st["mistake"]) != "[10 g6?]" || fmt.Sprint(st["inacc"]) != "[8 f9?!]" {
		t.Fatalf("move marks: blunder %v, mistake %v, inaccuracy %v", st["blunder"], st["mistake"], st["inacc"])
	}
	if fmt.Sprint(st["marks"]) != "[7 graph-dot mark-blunder 8 graph-dot mark-inaccuracy 10 graph-dot mark-mistake]" {
		t.Fatalf("graph marks %v", st["marks"])
	}
	for _, w := range []string{"10%", "20%", "30%", "inaccuracy", "mistake", "blunder"} {
		if !strings.Contains(fmt.Sprint(st["legend"]), w) {
			t.Errorf("the legend %q does not say %s", st["legend"], w)
		}
	}
	b.shot("analyse-game.png")
	// a click on the graph goes to that ply
	b.click(`#an-graph .graph-hit[data-ply="3"]`)
	b.waitJS("ply 3", `document.getElementById('an-ply').textContent.startsWith('ply 3/10') && !!document.querySelector('#an-graph [data-cur="3"]')`, `document.getElementById('an-ply').textContent`)

	// Stop: a fresh game (nothing cached), each answer slowed; Stop after the first
	b.do("another game", chromedp.SetValue(chromedp.CSS("#an-input"), "a2 b2 a3 b3 a4 b4"))
	b.click("#an-load")
	b.waitJS("the game", `document.getElementById('an-ply').textContent.startsWith('ply 6/6')`, `document.getElementById('an-ply').textContent`)
	b.js(`window.__delay["/api/analyze"] = 300`)
	b.click("#an-game")
	b.waitJS("one ply", `document.getElementById('an-game-progress').value >= 1`, `document.getElementById('an-game-status').textContent`)
	b.click("#an-game")
	st = eval[map[string]any](b, `({state: document.getElementById('an-game').dataset.state, label: document.getElementById('an-game').textContent, run: !!Analyse.gameRun})`)
	if st["state"] != "stopped" || st["label"] != "Analyse game" || st["run"] != false {
		t.Fatalf("after Stop: %v", st)
	}

	n := newBrowser(t, 400, 800)
	n.do("size", chromedp.EmulateViewport(400, 800))
	loadAnalyse(n, ts.URL)
	n.do("sims", chromedp.SetValue(chromedp.CSS("#an-sims"), "20"))
	n.click("#an-game")
	n.waitJS("the whole game", `document.getElementById('an-game').dataset.state === 'done'`, `document.getElementById('an-game-status').textContent`)
	if w := eval[float64](n, `document.documentElement.scrollWidth`); w > 400 {
		t.Errorf("at 400 px the page is %v px wide", w)
	}
	n.shot("analyse-game-400.png")
}

// TestBrowserAnalyseVariationKeys: in Analyse ↑ and ↓ go to the previous and next variation at the
// current ply (the moves played instead of the current one, the main one first, as the move list
// orders them), stopping at either end; a move without alternatives stays; keys typed into a field
// do nothing; the help line names the keys.
func TestBrowserAnalyseVariationKeys(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	cur := `((document.querySelector('#an-moves .mv.cur') || {dataset: {}}).dataset.path || '')`
	main := "e5 f6 e6 f7 e7 f8 e8 f9"
	// two variations at ply 9, played on the board's node at ply 8: d4 (the main line), p1, p2
	alts := eval[[]string](b, `(async () => {
	  const alts = Analyse.lineOf(Analyse.root)[8].view.legal.filter((t) => t !== 'd4' && !t.includes('-')).slice(0, 2);
	  for (const p of alts) { Analyse.stepper.go(8); await Analyse.move(p); }
	  return alts; })()`)
	if len(alts) != 2 {
		t.Fatalf("alternatives %v", alts)
	}
	b.waitJS("the second variation", cur+` === '`+main+" "+alts[1]+`'`, cur)
	if n := eval[int](b, `document.querySelectorAll('#an-moves .ml-var').length`); n != 2 {
		t.Fatalf("%d variations listed, want 2", n)
	}
	b.js(`document.activeElement.blur()`)
	for _, step := range []struct{ key, want, ply string }{
		{kb.ArrowUp, alts[0], "ply 9/9"}, {kb.ArrowUp, "d4", "ply 9/10"}, {kb.ArrowUp, "d4", "ply 9/10"},
		{kb.ArrowDown, alts[0], "ply 9/9"}, {kb.ArrowDown, alts[1], "ply 9/9"}, {kb.ArrowDown, alts[1], "ply 9/9"},
		{kb.ArrowUp, alts[0], "ply 9/9"},
	} {
		b.do("key", chromedp.KeyEvent(step.key))
		got := eval[[]string](b, `[`+cur+`, document.getElementById('an-ply').textContent.split(' · ')[0]]`)
		if got[0] != main+" "+step.want || got[1] != step.ply {
			t.Fatalf("after %s: at %q (%s), want %q (%s)", map[string]string{kb.ArrowUp: "↑", kb.ArrowDown: "↓"}[step.key], got[0], got[1], main+" "+step.want, step.ply)
		}
	}
	// a move with no alternative (g6 after d4) stays where it is
	b.js(`Analyse.goNode(Analyse.lineOf(Analyse.root)[10])`)
	b.do("keys", chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowDown))
	if got := eval[string](b, cur); got != main+" d4 g6" {
		t.Fatalf("↑ ↓ on a move without alternatives went to %q", got)
	}
	// typing into a field does not change the variation
	b.js(`Analyse.goNode(Analyse.lineOf(Analyse.root)[9])`)
	b.do("type", chromedp.Click(chromedp.CSS("#an-top")), chromedp.KeyEvent(kb.ArrowDown))
	if got := eval[string](b, cur); got != main+" d4" {
		t.Fatalf("↓ in a field went to %q", got)
	}
	if h := eval[string](b, `document.querySelector('#analyse .keys-help').textContent`); !strings.Contains(h, "↑ ↓") || !strings.Contains(h, "variation") {
		t.Errorf("the help line says %q", h)
	}
}
