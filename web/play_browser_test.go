package web

import (
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
