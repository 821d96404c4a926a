package web

import (
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The Play items of issue #28's Deliver 2 over the API: the opponents a server offers (strength
// selector), games kept on disk, clocks.

func gonumLoad(path string) (model.Net, error) { return gonum.Load(path) }

// TestOpponents: /api/info lists the offered opponents with labels, the server's agent first; a
// new game plays the one it names, opening its players once; any other name, a file path among
// them, is a 400 naming the field; without --players a server offers its player and, with a
// network to load, the ten levels; a bad spec in the list fails New.
func TestOpponents(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	po := selfplay.PlayerOptions{Search: selfplay.Search{Sims: 8}, Variant: env.Standard, Load: gonumLoad}
	s, ts := newTestServer(t, Options{Player: "random", Offer: []string{"heuristic", "level:1", "level:3", "heuristic"}, Players: po, Searches: 1})
	var info infoAnswer
	callJSON(t, nil, "GET", ts.URL+"/api/info", nil, 200, &info)
	var got []string
	for _, o := range info.Opponents {
		got = append(got, o.Spec+"="+o.Label)
	}
	if strings.Join(got, ",") != "random=Random,heuristic=Heuristic,level:1=Level 1,level:3=Level 3" || !info.Opponents[0].Default ||
		info.Opponents[1].Default || info.Opponents[3].About == "" {
		t.Fatalf("opponents %+v", info.Opponents)
	}
	for _, spec := range []string{"level:3", "level:3", "heuristic"} {
		var g gameView
		callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "black", "player": spec}, 201, &g)
		if g.Agent != spec || g.Player != spec {
			t.Fatalf("player %s: game %+v", spec, g)
		}
		callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
		if len(g.Moves) != 1 {
			t.Fatalf("player %s: moves %v", spec, g.Moves)
		}
		callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
		if g.Player != spec {
			t.Fatalf("player %s: the game reads back %q", spec, g.Player)
		}
	}
	s.vmu.Lock()
	if n := len(s.factories); n != 2 { // level:3 once, heuristic once; random is the server's own
		t.Errorf("%d factories opened, want 2: %v", n, s.factories)
	}
	s.vmu.Unlock()
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{}, 201, &g)
	if g.Agent != "random" || g.Player != "random" {
		t.Fatalf("default opponent: %+v", g)
	}
	for _, bad := range []string{"level:5", "/etc/passwd", "rollout:10", "reference", "../x.ckpt"} {
		status, data := call(t, nil, "POST", ts.URL+"/api/games", map[string]any{"player": bad})
		wantError(t, status, data, 400, `player "`+bad+`": not one this server offers`)
		wantError(t, status, data, 400, "level:3")
	}
	status, data := call(t, nil, "POST", ts.URL+"/api/games", map[string]any{"player": 3})
	wantError(t, status, data, 400, "player")

	// the default offer: the player, and the levels when there is a network to load
	_, ts2 := newTestServer(t, Options{Player: "heuristic", Players: po})
	callJSON(t, nil, "GET", ts2.URL+"/api/info", nil, 200, &info)
	if len(info.Opponents) != 11 || info.Opponents[0].Spec != "heuristic" || info.Opponents[10].Label != "Level 10" {
		t.Fatalf("default opponents %+v", info.Opponents)
	}
	_, ts3 := newTestServer(t, Options{Player: "heuristic"})
	callJSON(t, nil, "GET", ts3.URL+"/api/info", nil, 200, &info)
	if len(info.Opponents) != 1 || info.Opponents[0].Spec != "heuristic" {
		t.Fatalf("opponents without a network loader %+v", info.Opponents)
	}
	for _, bad := range [][]string{{"rollout:0"}, {"level:11"}, {""}, {t.TempDir()}, {"/does/not/exist.ckpt"}} {
		if _, err := New(Options{Player: "random", Offer: bad, Players: po}); err == nil || !strings.Contains(err.Error(), "players") {
			t.Errorf("offer %q: error %v", bad, err)
		}
	}
}
