package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// touchTargetsJS lists the clickable controls of the page shown that are smaller than 44×44 CSS
// pixels: buttons, selects, inputs, text areas, links, tabs and Watch's game rows, each measured by
// its bounding box, a check box or radio button by its label's (a click on the label is a click on
// it). Hidden controls are skipped. Board points and graph columns are not HTML controls: they are
// not measured (see TestBrowserAccessibility).
const touchTargetsJS = `(() => {
  const out = [];
  const sel = 'button, select, input, textarea, a[href], [role="tab"], #w-games tr';
  for (const e of document.querySelectorAll(sel)) {
    if (e.closest('[hidden]') || getComputedStyle(e).display === 'none' || getComputedStyle(e).visibility === 'hidden') continue;
    if (e.matches('#w-games tr') && !e.querySelector('td')) continue; // the header row
    let box = e;
    if (e.matches('input[type="checkbox"], input[type="radio"]') && e.closest('label')) box = e.closest('label');
    const r = box.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.width < 44 - 0.01 || r.height < 44 - 0.01) {
      const name = e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' "' + (e.textContent || e.value || '').trim().slice(0, 12) + '"';
      out.push(name + ' ' + Math.round(r.width) + '×' + Math.round(r.height));
    }
  }
  return out;
})()`

// liveJS is the text of the page's live regions (aria-live, role status, log or alert) inside sel
func liveJS(sel string) string {
	return `[...document.querySelectorAll('` + sel + ` [aria-live], ` + sel + ` [role="status"], ` + sel + ` [role="log"], ` + sel + ` [role="alert"]')]
	  .filter((e) => e.getAttribute('aria-live') !== 'off').map((e) => e.textContent).join(' | ')`
}

// contrastOf is a JS function (c1, c2 CSS colours, c1 possibly translucent over c2) → WCAG contrast
const contrastOfJS = `const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const contrast = (fg, bg) => { let f = rgb(fg), b = rgb(bg); const a = f.length > 3 ? f[3] : 1;
    f = f.slice(0, 3).map((x, i) => a * x + (1 - a) * b[i]); const l1 = lum(f), l2 = lum(b);
    return Math.round(100 * (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)) / 100; };`

// TestBrowserAccessibility, at 400×800 (a phone): every button, select, input, link, tab and game
// row of every page, filled with a game, an analysis with variations, a run's game and its charts,
// is at least 44×44 px; moves and results are announced through live regions in Play and Analyse;
// the tabs are a tablist (aria-selected, aria-controls, one tab in the tab order, ← → between
// them); the highlights of the move list, the side to act and the running clock have a contrast of
// at least 3:1, and the three kinds of rows on the board (white's and black's rows of four, a row
// to remove) differ by their dashes, not only by colour. Board points (33 px apart at this width)
// cannot be 44 px targets without overlapping: they are exempt, and every board action can be
// typed as a token (Play) or picked from the move list, the PV and the row buttons instead.
func TestBrowserAccessibility(t *testing.T) {
	runs, _ := makeRuns(t)
	makeTargetRun(t, runs, "0.5")
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs, Offer: []string{"heuristic"}})
	b := newBrowser(t, 400, 800)
	b.do("size", chromedp.EmulateViewport(400, 800))
	b.open(ts.URL + "/?delay=0#play")
	small := func(page string) {
		t.Helper()
		if bad := eval[[]string](b, touchTargetsJS); len(bad) > 0 {
			t.Errorf("%s at 400 px: %d controls under 44×44 px: %s", page, len(bad), strings.Join(bad, ", "))
		}
	}

	// Play: a new game, a move by a click and the agent's answer, announced; then the result
	b.do("white", chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	b.click("#ng-start")
	b.waitJS("the game", `!!Play.game && Play.game.your_turn && !Play.busy`, `document.getElementById('play-status').textContent`)
	b.click(`#play-board [data-point="e5"]`)
	b.waitJS("the agent's answer", `Play.game.moves.length === 2 && !Play.busy`, `document.getElementById('play-status').textContent`)
	agent := eval[string](b, `Play.game.moves[1]`)
	if live := eval[string](b, liveJS("#play")); !strings.Contains(live, "White played e5") || !strings.Contains(live, "Black played "+agent) || !strings.Contains(live, "Your turn") {
		t.Errorf("Play's live regions after e5 and the agent's %s say %q", agent, live)
	}
	small("Play")
	// what is hidden takes no room: the clocks of a game without a clock, the graph before an analysis
	if shown := eval[[]string](b, `['play-clocks', 'an-graph'].filter((id) => getComputedStyle(document.getElementById(id)).display !== 'none')`); len(shown) > 0 {
		t.Errorf("hidden but displayed: %v", shown)
	}
	b.shot("a11y-play-400.png")
	b.click("#play-resign")
	b.click("#play-resign")
	b.waitJS("the end", `Play.game.result !== 'ongoing'`, `document.getElementById('play-status').textContent`)
	if live := eval[string](b, liveJS("#play")); !strings.Contains(live, "resigned") || !strings.Contains(strings.ToLower(live), "black wins") {
		t.Errorf("Play's live regions after resigning say %q", live)
	}

	// the tabs
	tabs := eval[[]string](b, `[...document.querySelectorAll('[role="tab"]')].map((e) => {
	  const p = document.getElementById(e.getAttribute('aria-controls') || '');
	  return [e.id, e.getAttribute('aria-selected'), e.tabIndex, e.closest('[role="tablist"]') ? 'in' : 'out',
	    p ? p.getAttribute('role') : 'none', p ? p.getAttribute('aria-labelledby') : ''].join(' '); })`)
	want := []string{"tab-play true 0 in tabpanel tab-play", "tab-analyse false -1 in tabpanel tab-analyse", "tab-watch false -1 in tabpanel tab-watch", "tab-dashboard false -1 in tabpanel tab-dashboard"}
	if fmt.Sprint(tabs) != fmt.Sprint(want) {
		t.Errorf("tabs (id, aria-selected, tabindex, tablist, panel role, panel label):\n got %q\nwant %q", tabs, want)
	}
	b.js(`document.getElementById('tab-play').focus()`)
	b.do("→ on the tabs", chromedp.KeyEvent(kb.ArrowRight))
	if st := eval[string](b, `document.activeElement.id + ' ' + currentTab + ' ' + document.getElementById('tab-analyse').getAttribute('aria-selected')`); st != "tab-analyse analyse true" {
		t.Errorf("→ on the Play tab: focus, page, selected = %q, want the Analyse tab", st)
	}

	// Analyse: a game with a variation and an analysis; steps announced
	b.click("#tab-analyse")
	b.do("a blitz game", chromedp.SetValue(chromedp.CSS("#an-input"), "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"),
		chromedp.SetValue(chromedp.CSS("#an-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#an-player"), "rollout:50"), chromedp.SetValue(chromedp.CSS("#an-sims"), "50"))
	b.click("#an-load")
	b.waitJS("the game", `document.getElementById('an-ply').textContent.startsWith('ply 10/10')`, `document.getElementById('an-ply').textContent`)
	b.js(`(async () => { Analyse.stepper.go(8); await Analyse.move('a2'); })()`)
	b.waitJS("the variation", `document.querySelectorAll('#an-moves .ml-var').length === 1`, `document.getElementById('an-moves').textContent`)
	b.js(`document.activeElement.blur()`)
	b.do("↑", chromedp.KeyEvent(kb.ArrowUp))
	if live := eval[string](b, liveJS("#analyse")); !strings.Contains(live, "Ply 9 of 10") || !strings.Contains(live, "White played d4") || !strings.Contains(live, "variation 1 of 2") {
		t.Errorf("Analyse's live regions after ↑ to d4 say %q", live)
	}
	b.click("#an-go")
	b.waitJS("the analysis", `document.querySelectorAll('#an-pv .pv-tok').length > 0`, `document.getElementById('an-message').textContent`)
	if live := eval[string](b, liveJS("#analyse")); !strings.Contains(live, "visits") {
		t.Errorf("Analyse's live regions after an analysis say %q", live)
	}
	small("Analyse")
	b.shot("a11y-analyse-400.png")

	// Watch: a game with its targets
	b.click("#tab-watch")
	b.waitJS("the run", `!!document.querySelector('#w-run option[value="t1"]')`, `document.getElementById('w-run').innerHTML`)
	b.js(`(() => { const s = document.getElementById('w-run'); s.value = 't1'; s.dispatchEvent(new Event('change')); })()`)
	b.waitJS("t1's games", `document.querySelectorAll('#w-games tr').length === 3`, `document.getElementById('w-message').textContent`)
	b.click(`#w-games tr:last-child`)
	b.waitJS("a game", `Watch.stepper.plies.length > 1 && !document.getElementById('w-target').hidden`, `document.getElementById('w-title').textContent`)
	small("Watch")
	b.shot("a11y-watch-400.png")
	b.click("#tab-dashboard")
	b.waitJS("the charts", `document.querySelectorAll('#d-charts svg').length > 0`, `document.getElementById('d-live').textContent`)
	small("Dashboard")

	// contrast of the page's highlights, and the rows' kinds by their dashes
	b.click("#tab-analyse")
	b.js(`Analyse.stepper.go(3)`)
	ratios := eval[map[string]float64](b, `(() => { `+contrastOfJS+`
	  const cs = (sel) => getComputedStyle(document.querySelector(sel));
	  const page = getComputedStyle(document.body).backgroundColor;
	  const out = {};
	  out['current move'] = contrast(cs('#an-moves .mv.cur').backgroundColor, page);
	  out['current move text'] = contrast(cs('#an-moves .mv.cur').color, cs('#an-moves .mv.cur').backgroundColor);
	  out['move on the line'] = contrast(cs('#an-moves .mv.on-line').borderBottomColor, page);
	  out['side to act'] = contrast(cs('#an-info .side.to-act').borderTopColor, cs('#an-info .side.to-act').backgroundColor);
	  return out; })()`)
	for name, r := range ratios {
		if r < 3 {
			t.Errorf("%s: contrast %.2f:1, want at least 3:1", name, r)
		}
	}
	t.Logf("page highlight contrasts: %v", ratios)
	dashes := eval[[]string](b, `(() => { const svg = document.getElementById('an-board'), g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
	  svg.append(g); const out = ['four four-w', 'four four-b', 'row-bar'].map((c) => { const l = document.createElementNS('http://www.w3.org/2000/svg', 'line');
	  l.setAttribute('class', c); g.append(l); return getComputedStyle(l).strokeDasharray; }); g.remove(); return out; })()`)
	if dashes[0] == dashes[1] || dashes[0] == dashes[2] || dashes[1] == dashes[2] {
		t.Errorf("white's row of four, black's and a row to remove are dashed %q: the same dashes tell them apart by colour alone", dashes)
	}
}
