package web

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/yinsh-zero/yinsh/env"
)

// The board's browser tests of issue #28's Deliver 2 and 3 beyond the Broken items: the numbered
// move list, the side-to-act marker and removed-ring tray, keyboard shortcuts and board flipping.
// Same style as board_browser_test.go (skipped without Chromium or under -short).

// randomTokens plays a random game of v (to its end, at most 600 actions) and returns its tokens.
func randomTokens(rng *rand.Rand, v env.Variant) []string {
	r := randomGame(rng, rng.Uint64(), v)
	toks := make([]string, len(r.Actions))
	for i, a := range r.Actions {
		toks[i] = a.String()
	}
	return toks
}

// apiGame plays n actions of a new standard game through the API (random moves for the human, the
// random agent for the other side) and returns it.
func apiGame(t *testing.T, url string, n int, seed uint64) gameView {
	t.Helper()
	var g gameView
	callJSON(t, nil, "POST", url+"/api/games", map[string]any{"variant": "standard"}, 201, &g)
	rng := rand.New(rand.NewPCG(seed, seed))
	for len(g.Moves) < n && g.Result == "ongoing" {
		if g.YourTurn {
			callJSON(t, nil, "POST", url+"/api/games/"+g.ID+"/play", map[string]any{"action": g.Legal[rng.IntN(len(g.Legal))]}, 200, &g)
		} else {
			callJSON(t, nil, "POST", url+"/api/games/"+g.ID+"/agent", nil, 200, &g)
		}
	}
	return g
}

// wantTurns is the move list of a replay: "num color tok tok…" per turn, a turn being one side's
// actions in a row (from the server's side to act at each ply).
func wantTurns(r replayAnswer) []string {
	var out []string
	num, prev := 0, ""
	for i, tok := range r.Moves {
		c := r.Plies[i].ToAct
		if c == prev {
			out[len(out)-1] += " " + tok
			continue
		}
		if c == "w" || len(out) == 0 { // a record that starts with black's turn: line 1 is "… black"
			num++
		}
		out = append(out, fmt.Sprintf("%d %s %s", num, c, tok))
		prev = c
	}
	return out
}

// the page's move list in el, as wantTurns gives it
func listedTurns(b *browser, el string) []string {
	return eval[[]string](b, `[...document.querySelectorAll('#`+el+` .ml-turn:not(.ml-empty)')].map((c) =>
	  c.dataset.turn + ' ' + c.dataset.color + ' ' + [...c.querySelectorAll('.mv')].map((a) => a.textContent).join(' '))`)
}

// TestBrowserMoveList: Play and Analyse show the numbered move list (a turn: one side's move with
// its row and ring removals; a line: white's turn and black's after it); the page tells who played
// each action from the tokens alone as the server does, also for rows that the opponent's move made;
// a click on an action in Play opens that ply in Analyse, and in Analyse goes to it, marked.
func TestBrowserMoveList(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")

	// who played each action: the page's actorsOf against the server's side to act, at every cut
	// of random games to their end (rows, rings, rows the opponent's move made)
	rng := rand.New(rand.NewPCG(7, 28))
	var games [][]string
	for range 12 {
		games = append(games, randomTokens(rng, env.Standard))
	}
	games = append(games, randomTokens(rng, env.Blitz), randomTokens(rng, env.Blitz))
	js, _ := json.Marshal(games)
	res := eval[map[string]any](b, `(async () => {
	  const games = `+string(js)+`; let bad = [], rows = 0, theirs = 0, cuts = 0;
	  for (const [k, moves] of games.entries()) {
	    const r = await api('POST', '/api/replay', {tokens: moves.join(' '), variant: k < 12 ? 'standard' : 'blitz'});
	    const want = r.plies.map((p) => p.to_act);
	    moves.forEach((m, i) => { if (m.startsWith('x') && m.includes('-')) { rows++; if (i > 0 && want[i] !== want[i - 1] && !moves[i - 1].startsWith('x')) theirs++; } });
	    for (let n = 0; n <= moves.length; n++) {
	      cuts++;
	      const got = actorsOf(moves.slice(0, n), r.plies[n].to_act);
	      for (let i = 0; i < n; i++) if (got[i] !== want[i]) { bad.push('game ' + k + ' cut ' + n + ' action ' + i + ' ' + moves[i] + ': ' + got[i] + ' want ' + want[i]); break; }
	      if (bad.length > 5) break;
	    }
	  }
	  return {bad, rows, theirs, cuts};
	})()`)
	if bad := res["bad"].([]any); len(bad) > 0 {
		t.Fatalf("the page's actors differ from the server's: %v", bad)
	}
	if res["rows"].(float64) < 10 || res["theirs"].(float64) < 1 {
		t.Fatalf("the random games have %v row removals, %v by the opponent of the mover: the test tests too little", res["rows"], res["theirs"])
	}
	t.Logf("actors checked at %v cuts, %v row removals, %v of them rows the opponent's move made", res["cuts"], res["rows"], res["theirs"])

	// Play: a game of 40 actions, resumed; its list is numbered by turns
	g := apiGame(t, ts.URL, 40, 5)
	b.js(`localStorage.setItem('yinsh.game', '` + g.ID + `')`)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	b.waitJS("the game", `!!Play.game && Play.game.id === '`+g.ID+`' && document.getElementById('play-board').dataset.busy === '0'`, `JSON.stringify(Play.game && Play.game.moves.length)`)
	g.Moves = eval[[]string](b, `Play.game.moves`)
	var r replayAnswer
	callJSON(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"tokens": strings.Join(g.Moves, " "), "variant": "standard"}, 200, &r)
	want := wantTurns(r)
	if got := listedTurns(b, "play-moves"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Play's move list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	nums := eval[[]string](b, `[...document.querySelectorAll('#play-moves .ml-num')].map((e) => e.textContent)`)
	if len(nums) < 10 || nums[0] != "1." || nums[len(nums)-1] != fmt.Sprint(len(nums))+"." {
		t.Fatalf("line numbers %v", nums)
	}
	last := eval[string](b, `document.querySelector('#play-moves .mv.cur').dataset.ply`)
	if last != fmt.Sprint(len(g.Moves)) {
		t.Errorf("Play marks ply %s, want the last, %d", last, len(g.Moves))
	}

	// a long list scrolls itself (not the page) to keep the marked action in sight
	inSight := func(list string) string {
		return eval[string](b, `(() => { const el = document.getElementById('`+list+`'), m = el.querySelector('.mv.cur');
		  const a = el.getBoundingClientRect(), c = m.getBoundingClientRect();
		  return el.scrollHeight > el.clientHeight + 20 && c.top >= a.top - 1 && c.bottom <= a.bottom + 1 ? 'ok' :
		    'list ' + a.top + '..' + a.bottom + ' (scroll ' + el.scrollTop + ' of ' + el.scrollHeight + '), mark ' + c.top + '..' + c.bottom; })()`)
	}
	if s := inSight("play-moves"); s != "ok" {
		t.Errorf("Play's last action is not in sight: %s", s)
	}

	// a click on the 7th action opens ply 7 in Analyse
	b.click(`#play-moves .mv[data-ply="7"]`)
	b.waitJS("ply 7 in Analyse", `!document.getElementById('analyse').hidden && document.getElementById('an-ply').textContent.startsWith('ply 7/`+fmt.Sprint(len(g.Moves))+`')`,
		`document.getElementById('an-ply').textContent`)
	if got := listedTurns(b, "an-moves"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Analyse's move list:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	st := eval[map[string]any](b, `({cur: [...document.querySelectorAll('#an-moves .mv.cur')].map((a) => a.dataset.ply + ' ' + a.textContent),
	  rings: document.querySelectorAll('#an-board .ring').length})`)
	if fmt.Sprint(st["cur"]) != fmt.Sprintf("[7 %s]", g.Moves[6]) || st["rings"] != 7.0 {
		t.Fatalf("at ply 7: %v", st)
	}
	if s := inSight("an-moves"); s != "ok" {
		t.Errorf("Analyse's ply 7 is not in sight: %s", s)
	}
	b.do("end", chromedp.KeyEvent(kb.End))
	if s := inSight("an-moves"); s != "ok" {
		t.Errorf("Analyse's last ply is not in sight: %s", s)
	}
	// in Analyse a click goes to the ply it names
	b.click(`#an-moves .mv[data-ply="12"]`)
	b.waitJS("ply 12", `document.getElementById('an-ply').textContent.startsWith('ply 12/')`, `document.getElementById('an-ply').textContent`)
	if cur := eval[string](b, `[...document.querySelectorAll('#an-moves .mv.cur')].map((a) => a.dataset.ply).join()`); cur != "12" {
		t.Errorf("marked after the click: %q, want 12", cur)
	}
}

// TestBrowserBoardInfo: over the board in Play, Analyse and Watch, each side's removed rings are a
// tray with the score (3 to win, blitz 1) and the side to act is marked with what it does; at the
// end the winner is marked.
func TestBrowserBoardInfo(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#analyse")
	info := func(el string) map[string]any {
		return eval[map[string]any](b, `(() => { const el = document.getElementById('`+el+`');
		  const side = (c) => { const s = el.querySelector('.side-' + c); return s && {
		    removed: s.querySelectorAll('[data-removed="1"]').length, slots: s.querySelectorAll('circle').length,
		    score: s.querySelector('.score').textContent, acts: s.classList.contains('to-act'), won: s.classList.contains('won'),
		    tag: s.querySelector('.side-tag').textContent, visible: s.getBoundingClientRect().height > 0 }; };
		  return {w: side('w'), b: side('b')}; })()`)
	}
	check := func(where, el string, v boardView, need int) {
		t.Helper()
		got := info(el)
		for k, c := range []string{"w", "b"} {
			s, _ := got[c].(map[string]any)
			if s == nil {
				t.Fatalf("%s: no %s side in #%s", where, c, el)
			}
			over := v.Result != "ongoing"
			won := over && v.Result == map[string]string{"w": "white", "b": "black"}[c]
			if s["removed"] != float64(v.Removed[k]) || s["slots"] != float64(need) || s["score"] != fmt.Sprintf("%d/%d", v.Removed[k], need) ||
				s["acts"] != (!over && v.ToAct == c) || s["won"] != won || s["visible"] != true {
				t.Fatalf("%s: %s's side shows %v for rings removed %v, to act %s, result %s", where, c, s, v.Removed, v.ToAct, v.Result)
			}
			if !over && v.ToAct == c && !strings.Contains(fmt.Sprint(s["tag"]), phaseWords[v.Phase]) {
				t.Errorf("%s: the side to act says %q in phase %s", where, s["tag"], v.Phase)
			}
		}
	}

	// Analyse: a random standard game to its end, won by removing rings
	rng := rand.New(rand.NewPCG(11, 28))
	var toks []string
	var r replayAnswer
	for range 60 {
		toks = randomTokens(rng, env.Standard)
		callJSON(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"tokens": strings.Join(toks, " "), "variant": "standard"}, 200, &r)
		end := r.Plies[len(r.Plies)-1]
		if end.Result != "draw" && end.Removed[0] > 0 && end.Removed[1] > 0 {
			break
		}
	}
	end := r.Plies[len(r.Plies)-1]
	if end.Result == "draw" || end.Removed[0] == 0 || end.Removed[1] == 0 {
		t.Fatalf("no random game with a winner and rings removed by both: %v", end.Removed)
	}
	b.do("tokens", chromedp.SetValue(chromedp.CSS("#an-input"), strings.Join(toks, " ")), chromedp.SetValue(chromedp.CSS("#an-variant"), "standard"))
	b.click("#an-load")
	b.waitJS("the game", `document.getElementById('an-ply').textContent.startsWith('ply `+fmt.Sprint(len(toks))+`/')`, `document.getElementById('an-ply').textContent`)
	check("Analyse at the end", "an-info", end, 3)
	// a ply where a row is to be removed, and a ply of each side's ring move
	seen := map[string]bool{}
	for i, v := range r.Plies {
		k := v.Phase + v.ToAct
		if seen[k] || v.Result != "ongoing" {
			continue
		}
		seen[k] = true
		b.js(`Analyse.stepper.go(` + fmt.Sprint(i) + `)`)
		check(fmt.Sprintf("Analyse at ply %d", i), "an-info", v, 3)
	}
	if !seen["remove-roww"] && !seen["remove-rowb"] {
		t.Fatalf("no ply with a row to remove: the test tests too little (%v)", seen)
	}
	b.js(`Analyse.stepper.go(` + fmt.Sprint(len(toks)-3) + `)`)
	b.shot("board-info-analyse.png")

	// Play: the resumed game's info
	g := apiGame(t, ts.URL, 14, 9)
	b.js(`localStorage.setItem('yinsh.game', '` + g.ID + `'); location.hash = '#play'`)
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	b.waitJS("the game", `!!Play.game && Play.game.id === '`+g.ID+`' && document.getElementById('play-board').dataset.busy === '0'`, `JSON.stringify(Play.game && Play.game.moves.length)`)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	check("Play", "play-info", g.boardView, 3)
	b.shot("board-info-play.png")

	// Watch: a blitz game of the run (one ring to win)
	b.click("#tab-watch")
	b.waitJS("the games", `document.querySelectorAll('#w-games tr').length > 2`, `document.getElementById('w-message').textContent`)
	b.click(`#w-games tr:last-child`)
	b.waitJS("a game", `document.getElementById('w-ply').textContent !== 'ply 0/0'`, `document.getElementById('w-ply').textContent`)
	n := eval[int](b, `Watch.stepper.plies.length`)
	for _, i := range []int{0, n / 2, n - 1} {
		b.js(`Watch.stepper.go(` + fmt.Sprint(i) + `)`)
		var v boardView
		if err := json.Unmarshal([]byte(eval[string](b, `JSON.stringify(Watch.stepper.current())`)), &v); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("Watch at ply %d", i), "w-info", v, 1)
	}
}

// the words the page uses for each phase (app.js's phaseWord)
var phaseWords = map[string]string{"place": "place a ring", "move": "move a ring", "remove-row": "remove one of your rows", "remove-ring": "remove one of your rings"}

// TestBrowserKeys: in Analyse and Watch ← → step a ply, Home and End go to the ends and f flips the
// board (turned by 180°, texts upright, clicks and marks on the turned points); keys typed into a
// field do nothing; a help line says so. The WDL bar names whose view it is. At 400×800.
func TestBrowserKeys(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs})
	b := newBrowser(t, 400, 800)
	b.do("size", chromedp.EmulateViewport(400, 800))
	b.open(ts.URL + "/#analyse")
	toks := "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6 e5-e2 f6-f3 e6-c4"
	b.do("tokens", chromedp.SetValue(chromedp.CSS("#an-input"), toks), chromedp.SetValue(chromedp.CSS("#an-variant"), "standard"))
	b.click("#an-load")
	ply := func() string {
		return eval[string](b, `document.getElementById('an-ply').textContent.split(' · ')[0]`)
	}
	b.waitJS("the game", `document.getElementById('an-ply').textContent.startsWith('ply 13/13')`, `document.getElementById('an-ply').textContent`)
	if h := eval[string](b, `[...document.querySelectorAll('.keys-help')].filter((e) => e.closest('#analyse')).map((e) => e.textContent).join()`); !strings.Contains(h, "←") || !strings.Contains(h, "Home") || !strings.Contains(h, "flip") {
		t.Errorf("the help line says %q", h)
	}
	b.js(`document.activeElement.blur()`)
	for _, step := range []struct{ key, want string }{
		{kb.ArrowLeft, "ply 12/13"}, {kb.ArrowLeft, "ply 11/13"}, {kb.ArrowRight, "ply 12/13"}, {kb.Home, "ply 0/13"},
		{kb.ArrowLeft, "ply 0/13"}, {kb.ArrowRight, "ply 1/13"}, {kb.End, "ply 13/13"}, {kb.ArrowRight, "ply 13/13"},
	} {
		b.do("key", chromedp.KeyEvent(step.key))
		if got := ply(); got != step.want {
			t.Fatalf("after key %q: %s, want %s", step.key, got, step.want)
		}
	}
	// typing into a field does not step
	b.do("type", chromedp.Click(chromedp.CSS("#an-top")), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.Home))
	if got := ply(); got != "ply 13/13" {
		t.Fatalf("keys in a field stepped to %s", got)
	}
	b.js(`document.activeElement.blur()`)

	// f flips: each point to the one the board's centre mirrors it on, texts upright
	where := `(() => { const sv = document.getElementById('an-board').getBoundingClientRect();
	  const at = (sel) => { const r = document.querySelector('#an-board ' + sel).getBoundingClientRect(); return [r.x + r.width / 2 - sv.x, r.y + r.height / 2 - sv.y]; };
	  const txt = [...document.querySelectorAll('#an-board text')].map((e) => { const m = e.getScreenCTM(); return m.a; });
	  return {e5: at('[data-point="e5"]'), g7: at('[data-point="g7"]'), upright: txt.every((a) => a > 0), texts: txt.length,
	    flipped: document.getElementById('an-board').dataset.flipped || '0'}; })()`
	before := eval[map[string]any](b, where)
	b.do("f", chromedp.KeyEvent("f"))
	after := eval[map[string]any](b, where)
	near := func(p, q any) bool {
		a, c := p.([]any), q.([]any)
		return abs(a[0].(float64)-c[0].(float64)) < 1 && abs(a[1].(float64)-c[1].(float64)) < 1
	}
	// e5 and g7 are mirror images about the centre f6: flipped, each is where the other was
	if after["flipped"] != "1" || !near(after["e5"], before["g7"]) || !near(after["g7"], before["e5"]) || after["upright"] != true || after["texts"].(float64) < 20 {
		t.Fatalf("after f: %v (before %v)", after, before)
	}
	b.shot("keys-flipped-400.png")
	b.do("f", chromedp.KeyEvent("f"))
	if back := eval[map[string]any](b, where); back["flipped"] != "0" || !near(back["e5"], before["e5"]) {
		t.Fatalf("after f twice: %v", back)
	}
	// the Flip button does the same, and its state is announced
	b.click("#an-flip")
	if st := eval[[]string](b, `[document.getElementById('an-board').dataset.flipped, document.getElementById('an-flip').getAttribute('aria-pressed')]`); st[0] != "1" || st[1] != "true" {
		t.Fatalf("after the Flip button: %v", st)
	}

	// the WDL bar says whose view it is
	b.do("player", chromedp.SetValue(chromedp.CSS("#an-player"), "rollout:50"), chromedp.SetValue(chromedp.CSS("#an-sims"), "50"))
	b.js(`Analyse.stepper.go(12)`)
	b.click("#an-go")
	b.waitJS("the analysis", `document.getElementById('an-wdl').children.length === 3`, `document.getElementById('an-message').textContent`)
	wdl := eval[[]string](b, `[document.getElementById('an-wdl').dataset.side, document.getElementById('an-wdl').getAttribute('aria-label'), Analyse.stepper.current().to_act]`)
	if wdl[0] != wdl[2] || !strings.HasPrefix(wdl[1], map[string]string{"w": "white", "b": "black"}[wdl[2]]+"'s view: win") {
		t.Fatalf("the WDL bar: side %q, label %q; to act %q", wdl[0], wdl[1], wdl[2])
	}
	b.shot("keys-analyse-400.png")

	// Watch: the same keys
	b.click("#tab-watch")
	b.waitJS("the games", `document.querySelectorAll('#w-games tr').length > 2`, `document.getElementById('w-message').textContent`)
	b.click(`#w-games tr:last-child`)
	b.waitJS("a game", `Watch.stepper.plies.length > 1`, `document.getElementById('w-ply').textContent`)
	b.js(`document.activeElement.blur()`)
	wply := `document.getElementById('w-ply').textContent.split(' · ')[0]`
	b.do("keys", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	if got := eval[string](b, wply); !strings.HasPrefix(got, "ply 2/") {
		t.Fatalf("Watch after → →: %s", got)
	}
	b.do("end", chromedp.KeyEvent(kb.End), chromedp.KeyEvent("f"))
	st := eval[[]string](b, `[`+wply+`, 'ply ' + (Watch.stepper.plies.length - 1) + '/' + (Watch.stepper.plies.length - 1), document.getElementById('w-board').dataset.flipped]`)
	if st[0] != st[1] || st[2] != "1" {
		t.Fatalf("Watch after End, f: %v", st)
	}
	if h := eval[string](b, `document.querySelector('#watch .keys-help').textContent`); !strings.Contains(h, "flip") {
		t.Errorf("Watch's help line: %q", h)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
