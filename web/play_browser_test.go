package web

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Play items of issue #28's Deliver 2 in headless Chromium (see board_browser_test.go).

// TestBrowserOpponent: the opponent selector lists what the server offers, its agent first; a new
// game plays the one chosen; a reload shows the resumed game's opponent.
func TestBrowserOpponent(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random", Offer: []string{"heuristic", "rollout:4"}})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	opts := eval[[]string](b, `[...document.querySelectorAll('#ng-player option')].map((o) => o.value + '=' + o.textContent)`)
	if len(opts) != 3 || opts[0] != "random=Random (server's agent)" || opts[1] != "heuristic=Heuristic" || opts[2] != "rollout:4=Rollout MCTS (4 simulations)" {
		t.Fatalf("opponent options %q", opts)
	}
	b.do("choose", chromedp.SetValue(chromedp.CSS("#ng-color"), "black"), chromedp.SetValue(chromedp.CSS("#ng-player"), "heuristic"))
	b.click("#ng-start")
	b.waitJS("the heuristic's first move", `!!Play.game && Play.game.agent === 'heuristic' && Play.game.moves.length === 1 && Play.game.your_turn`,
		`JSON.stringify(Play.game && [Play.game.agent, Play.game.moves])`)
	if s := eval[string](b, `document.getElementById('play-status').textContent`); !strings.Contains(s, "against heuristic") {
		t.Errorf("status %q does not name the opponent", s)
	}
	// another choice on the selector, then a reload: the game in play shows its own opponent
	b.do("choose", chromedp.SetValue(chromedp.CSS("#ng-player"), "rollout:4"))
	b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	b.waitJS("resumed", `!!Play.game && document.getElementById('ng-player').value === 'heuristic'`,
		`document.getElementById('ng-player').value`)
	b.shot("play-opponent.png")
}

// TestBrowserGameAddress: the game in play is in the address (#play/ID) and in local storage; a
// new game is a history entry, so Back returns to the game before, as it does from another tab; an
// address naming a game opens it (a shared link), from a restarted server's disk too; one the
// server no longer has starts a new game with a note.
func TestBrowserGameAddress(t *testing.T) {
	dir := t.TempDir()
	_, ts := newTestServer(t, Options{Player: "random", GamesDir: dir})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	b.click("#ng-start")
	b.waitJS("the new game in the address", `!!Play.game && location.hash === '#play/' + Play.game.id`, `location.hash`)
	first := eval[string](b, `Play.game.id`)
	if got := eval[string](b, `localStorage.getItem('yinsh.game')`); got != first {
		t.Fatalf("local storage %q, want %s", got, first)
	}
	b.click(`#play-board [data-point="e5"]`)
	b.waitJS("the agent's answer", `Play.game.moves.length === 2 && document.getElementById('play-board').dataset.busy === '0'`, `JSON.stringify(Play.game.moves)`)
	shown := `[...document.querySelectorAll('.page')].filter((p) => !p.hidden).map((p) => p.id).join()`
	b.click("#tab-analyse")
	b.waitJS("analyse", shown+` === 'analyse' && location.hash === '#analyse'`, `location.hash`)
	b.do("back", chromedp.NavigateBack())
	b.waitJS("Back to the game", shown+` === 'play' && location.hash === '#play/`+first+`' && Play.game.id === '`+first+`'`, shown+` + ' ' + location.hash`)
	// a second game, then Back to the first
	b.click("#ng-start")
	b.waitJS("the second game", `Play.game.id !== '`+first+`' && location.hash === '#play/' + Play.game.id`, `location.hash`)
	second := eval[string](b, `Play.game.id`)
	b.do("back", chromedp.NavigateBack())
	b.waitJS("Back to the first game", `Play.game.id === '`+first+`' && Play.game.moves.length === 2 && location.hash === '#play/`+first+`'`,
		`location.hash + ' ' + Play.game.id`)
	b.do("forward", chromedp.NavigateForward())
	b.waitJS("Forward to the second", `Play.game.id === '`+second+`'`, `location.hash + ' ' + Play.game.id`)
	// a link to the first game, typed into the address
	b.do("link", chromedp.Navigate(ts.URL+"/?delay=0#play/"+first))
	b.waitJS("the linked game", `Play.game.id === '`+first+`' && document.getElementById('play-message').textContent.includes('Resumed')`,
		`Play.game.id + ' ' + document.getElementById('play-message').textContent`)

	// a restarted server on the same directory (another port: another origin, nothing stored)
	ts.Close()
	_, ts2 := newTestServer(t, Options{Player: "random", GamesDir: dir})
	b.open(ts2.URL + "/?delay=0#play/" + first)
	b.waitJS("the game from disk", `!!Play.game && Play.game.id === '`+first+`' && Play.game.moves.length === 2`, `JSON.stringify(Play.game)`)
	if n := eval[int](b, `document.querySelectorAll('#play-board .ring').length`); n != 2 {
		t.Fatalf("%d rings on the resumed board, want 2", n)
	}
	// a game the server does not have
	gone := "0123456789abcdef01234567"
	b.open(ts2.URL + "/?delay=0#play/" + gone)
	b.waitJS("a new game with a note", `!!Play.game && Play.game.id !== '`+gone+`' && location.hash === '#play/' + Play.game.id`, `location.hash`)
	msg := eval[[]string](b, `[document.getElementById('play-message').textContent, document.getElementById('play-message').className]`)
	if !strings.Contains(msg[0], "01234567 is no longer on the server: a new game started") || !strings.Contains(msg[1], "info") {
		t.Fatalf("the note on a gone game: %q", msg)
	}
	b.shot("play-game-gone.png")
}

// TestBrowserClock: a game on the clock shows both clocks, the side to act's ticking; a human
// who lets their time run out loses on time (the server's verdict, shown as the result); and a
// standard game with clocks on is played by clicks to its end, the clocks stopping there.
func TestBrowserClock(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	// a 1-second clock (an option the test adds), white to play and not playing
	b.js(`document.getElementById('ng-clock').add(new Option('1 s', '1+0'))`)
	b.do("choose", chromedp.SetValue(chromedp.CSS("#ng-clock"), "1+0"), chromedp.SetValue(chromedp.CSS("#ng-color"), "white"),
		chromedp.SetValue(chromedp.CSS("#ng-variant"), "standard"))
	b.click("#ng-start")
	b.waitJS("the clocks", `!!Play.game && !!Play.game.clock && !document.getElementById('play-clocks').hidden &&
	  document.getElementById('clock-w').classList.contains('running')`, `JSON.stringify(Play.game && Play.game.clock)`)
	b.waitJS("white's flag", `Play.game.timeout === 'w' && document.getElementById('clock-w').classList.contains('flagged') &&
	  document.getElementById('play-status').textContent.includes('you lost on time; black wins.')`,
		`document.getElementById('play-status').textContent + ' ' + JSON.stringify(Play.game.clock)`)
	if txt := eval[string](b, `document.getElementById('clock-w').textContent + '|' + document.getElementById('clock-b').textContent`); txt != "0.0|1.0" {
		t.Errorf("clocks after the flag: %q", txt)
	}
	var g gameView
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+eval[string](b, `Play.game.id`), nil, 200, &g)
	if g.Timeout != "w" || g.Result != "black" {
		t.Fatalf("the server's game: timeout %q, result %s", g.Timeout, g.Result)
	}
	b.shot("play-clock-flag.png")

	// a standard game on a 15 min + 10 s clock, by clicks to the end
	b.do("choose", chromedp.SetValue(chromedp.CSS("#ng-clock"), "900+10"))
	b.click("#ng-start")
	b.waitJS("the new game", `!!Play.game && Play.game.moves.length === 0 && !!Play.game.clock && Play.game.clock.base_ms === 900000`,
		`JSON.stringify(Play.game && Play.game.clock)`)
	b.waitJS("white's clock ticks", `Number(document.getElementById('clock-w').dataset.ms) < 900000 && document.getElementById('clock-b').textContent === '15:00'`,
		`document.getElementById('clock-w').dataset.ms + ' ' + document.getElementById('clock-b').textContent`)
	rng := rand.New(rand.NewPCG(28, 3))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	state := func() pageState { return eval[pageState](b, pageStateJS) }
	settled := `(() => { const b = document.getElementById('play-board');
	  return b.dataset.busy !== '1' && (b.dataset.yourTurn === '1' || Play.game.result !== 'ongoing'); })()`
	st := state()
	for n := 0; st.Result == "ongoing"; n++ {
		if n > 600 {
			t.Fatal("the game does not end")
		}
		before := st.Moves
		switch st.Phase {
		case "place", "remove-ring":
			b.click(`#play-board [data-point="` + pick(st.Hints) + `"]`)
		case "move":
			if len(st.Hints) == 0 && st.Pass {
				b.click("#play-pass")
				break
			}
			b.click(`#play-board [data-point="` + pick(st.Hints) + `"]`)
			sel := state()
			if !sel.Sel || len(sel.Hints) == 0 {
				t.Fatalf("clicking a ring selected nothing: %+v", sel)
			}
			b.click(`#play-board [data-point="` + pick(sel.Hints) + `"]`)
		case "remove-row":
			b.click(`#play-board .row-choice[data-action="` + pick(st.Rows) + `"]`)
		default:
			t.Fatalf("unexpected phase %+v", st)
		}
		b.waitJS("the agent's answer", `Play.game.moves.length > `+fmt.Sprint(before)+` && `+settled, `JSON.stringify(Play.game.moves.slice(-3)) + ' ' + document.getElementById('play-message').textContent`)
		st = state()
		if st.Msg != "" {
			t.Fatalf("the page says %q", st.Msg)
		}
	}
	end := eval[map[string]any](b, `({result: Play.game.result, timeout: Play.game.timeout || '', running: Play.game.clock.running,
	  runningShown: document.querySelectorAll('.clock.running').length, status: document.getElementById('play-status').textContent,
	  w: Play.game.clock.white_ms, b: Play.game.clock.black_ms})`)
	if end["result"] == "ongoing" || end["timeout"] != "" || end["running"] != "" || end["runningShown"] != 0.0 ||
		!strings.Contains(fmt.Sprint(end["status"]), "Game over") || end["w"].(float64) <= 0 || end["b"].(float64) <= 0 {
		t.Fatalf("the end of the game on the clock: %v", end)
	}
	t.Logf("a standard game on the clock by clicks: %d actions, %v", st.Moves, end)
	b.shot("play-clock-end.png")
}

// TestBrowserPlayControlsNarrow: at 400×800 the opponent and clock selectors and both clocks fit
// the width (no sideways scrolling), with a screenshot.
func TestBrowserPlayControlsNarrow(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random", Offer: []string{"heuristic", "rollout:100000"}})
	b := newBrowser(t, 400, 800)
	b.do("size", chromedp.EmulateViewport(400, 800))
	b.open(ts.URL + "/?delay=0#play")
	b.do("choose", chromedp.SetValue(chromedp.CSS("#ng-clock"), "900+10"), chromedp.SetValue(chromedp.CSS("#ng-player"), "rollout:100000"))
	b.click("#ng-start")
	b.waitJS("the clocks", `!!Play.game && !!Play.game.clock && !document.getElementById('play-clocks').hidden`, `JSON.stringify(Play.game && Play.game.clock)`)
	out := eval[[]string](b, `(() => {
	  const out = [], W = document.documentElement.clientWidth;
	  if (document.documentElement.scrollWidth > W) out.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + W);
	  for (const id of ['ng-player', 'ng-clock', 'clock-w', 'clock-b', 'ng-start']) {
	    const r = document.getElementById(id).getBoundingClientRect();
	    if (r.width === 0 || r.left < 0 || r.right > W) out.push(id + ' at ' + Math.round(r.left) + '..' + Math.round(r.right));
	  }
	  return out;
	})()`)
	if len(out) > 0 {
		t.Errorf("at 400 px: %v", out)
	}
	b.shot("play-controls-400.png")
}
