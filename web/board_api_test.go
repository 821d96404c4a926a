package web

import (
	"strings"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// TestOtherVariantAgainstNetworkRefused: a server whose agent is a checkpoint trained for standard
// games refuses a blitz game and a blitz analysis by its own player, naming the mismatch, as yinsh
// play does; standard games, and blitz analyses by a named built-in player, go on. A server of a
// player that is no network plays both. (Failed before: the blitz game was created.)
func TestOtherVariantAgainstNetworkRefused(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	load := func(path string) (model.Net, error) { return gonum.Load(path) }
	file, err := nets.Path(env.Standard) // the standard network as a file: a fixed network, not "reference"
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{Player: file, Players: selfplay.PlayerOptions{Search: selfplay.Search{Sims: 8}, Variant: env.Standard, Load: load}, Searches: 1})
	status, data := call(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz"})
	wantError(t, status, data, 400, "trained for standard")
	wantError(t, status, data, 400, "--variant blitz")
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "standard"}, 201, &g)
	blitz := "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"
	status, data = call(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"variant": "blitz", "tokens": blitz})
	wantError(t, status, data, 400, "trained for standard")
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"variant": "blitz", "tokens": blitz, "player": "heuristic"}, 200, nil)

	_, ts2 := newTestServer(t, Options{Player: "heuristic"})
	for _, v := range []string{"standard", "blitz"} {
		callJSON(t, nil, "POST", ts2.URL+"/api/games", map[string]any{"variant": v}, 201, &g)
	}
}

// TestReferenceFollowsTheGamesVariant: a server whose agent is reference or a level, started for
// standard games, plays and analyses blitz games too, each over the blitz network (loaded once, on
// the first blitz game); where a variant has no network (blitz, hidden by nets.Hide) such a
// server refuses its games, naming the missing network.
func TestReferenceFollowsTheGamesVariant(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	var mu sync.Mutex
	loaded := map[string]int{} // variant recorded in each loaded file → loads
	load := func(path string) (model.Net, error) {
		h, err := model.ReadMetadata(path)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		loaded[h.Meta.Variant]++
		mu.Unlock()
		return gonum.Load(path)
	}
	blitz := "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"
	for _, spec := range []string{"reference", "level:3"} {
		clear(loaded)
		_, ts := newTestServer(t, Options{Player: spec, Players: selfplay.PlayerOptions{Search: selfplay.Search{Sims: 8}, Variant: env.Standard, Load: load}, Searches: 1})
		if loaded["blitz"] != 0 {
			t.Errorf("%s: the blitz network was loaded before any blitz game", spec)
		}
		for k := 0; k < 2; k++ {
			var g gameView
			callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz", "color": "black"}, 201, &g)
			if g.Variant != "blitz" || g.Agent != spec {
				t.Fatalf("%s: game %+v", spec, g)
			}
			callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
			if len(g.Moves) != 1 || g.Played == "" {
				t.Errorf("%s: the agent's blitz move: %+v", spec, g)
			}
		}
		callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"variant": "blitz", "tokens": blitz}, 200, nil)
		callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"variant": "standard", "tokens": blitz}, 200, nil)
		mu.Lock()
		// the games' players and the analyzer: one blitz load each, however many games
		if loaded["blitz"] < 1 || loaded["blitz"] > 2 || loaded["standard"] < 1 {
			t.Errorf("%s: networks loaded %v", spec, loaded)
		}
		mu.Unlock()
	}

	nets.Hide(t, env.Blitz)
	_, ts := newTestServer(t, Options{Player: "reference", Players: selfplay.PlayerOptions{Search: selfplay.Search{Sims: 8}, Variant: env.Standard, Load: load}, Searches: 1})
	status, data := call(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz"})
	wantError(t, status, data, 400, "there is none for blitz")
	status, data = call(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"variant": "blitz", "tokens": blitz})
	wantError(t, status, data, 400, "there is none for blitz")
}

// TestAgentViewListsThePlayedMoveFirst: the agent's reported candidates put the action it played
// before every other candidate with as many visits. rollout:2 ties often (two simulations over a
// dozen actions); before, its list had the played action second at 12 of the agent's actions here.
func TestAgentViewListsThePlayedMoveFirst(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:2"})
	checked, tied := 0, 0
	for k := 0; k < 5; k++ {
		var g gameView
		callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "black", "variant": "blitz"}, 201, &g)
		for i := 0; i < 30 && g.Result == "ongoing"; i++ {
			if g.YourTurn {
				callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"action": g.Legal[0]}, 200, &g)
				continue
			}
			callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
			av := g.AgentView
			at := -1
			for j, c := range av.Top {
				if c.Action == av.Action {
					at = j
				}
			}
			if at < 0 {
				t.Fatalf("game %d ply %d: played %s, not among its candidates %+v", k, len(g.Moves), av.Action, av.Top)
			}
			for _, c := range av.Top[:at] {
				if c.Visits <= av.Top[at].Visits {
					t.Fatalf("game %d ply %d: played %s (%d visits) listed after %s (%d visits)", k, len(g.Moves), av.Action, av.Top[at].Visits, c.Action, c.Visits)
				}
			}
			if len(av.Top) > 1 && av.Top[1].Visits == av.Top[0].Visits {
				tied++
			}
			checked++
		}
	}
	if tied == 0 {
		t.Fatalf("no ties among %d agent actions: the test tests nothing", checked)
	}
	t.Logf("%d agent actions, %d with a tie at the top", checked, tied)
}

// TestResign: the human resigns (on their turn or the agent's); the agent wins, every action on
// the game is then refused with 409, and the downloads record it: the token file's result line
// and a boardspace "resign" move that env.ReadSGF reads back. (Failed before: no endpoint, 404.)
func TestResign(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz", "color": "black"}, 201, &g)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"action": g.Legal[0]}, 200, &g)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/resign", nil, 200, &g) // on the agent's turn
	if g.Result != "white" || g.Resigned != "b" || g.YourTurn || len(g.Legal) != 0 || len(g.Moves) != 2 {
		t.Fatalf("after black resigned: result %s, resigned %q, your turn %v, %d legal, %d moves", g.Result, g.Resigned, g.YourTurn, len(g.Legal), len(g.Moves))
	}
	for _, c := range []struct{ path, body string }{{"/resign", ""}, {"/agent", ""}, {"/undo", ""}, {"/play", `{"action":"e5"}`}} {
		status, data := call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+c.path, c.body)
		wantError(t, status, data, 409, "resigned")
	}
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	if g.Result != "white" || g.Resigned != "b" {
		t.Fatalf("the game read again: result %s, resigned %q", g.Result, g.Resigned)
	}
	_, tok := call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/tokens", nil)
	if !strings.Contains(string(tok), "# result: white (black resigned)") {
		t.Fatalf("token file:\n%s", tok)
	}
	_, sgf := call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/sgf", nil)
	rec, err := env.ReadSGF(strings.NewReader(string(sgf)))
	if err != nil {
		t.Fatalf("%v:\n%s", err, sgf)
	}
	if rec.Resigned != int(env.Black) || rec.Outcome() != env.WhiteWins || len(rec.Actions) != 2 {
		t.Fatalf("the SGF record reads back resigned %d, outcome %v, %d actions:\n%s", rec.Resigned, rec.Outcome(), len(rec.Actions), sgf)
	}
	// on the human's turn, in a new game
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz"}, 201, &g)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/resign", nil, 200, &g)
	if g.Result != "black" || g.Resigned != "w" {
		t.Fatalf("after white resigned: result %s, resigned %q", g.Result, g.Resigned)
	}
}
