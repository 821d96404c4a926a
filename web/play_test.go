package web

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/testenv"
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
// network to load, the ten levels (each described with its calibrated Elo); a bad spec in the list fails New.
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
	// a level's description names its calibrated Elo in the server's variant
	if want := fmt.Sprintf("; Elo %.0f (random 0, yinsh levels)", selfplay.Levels[2].Standard.Elo); !strings.HasSuffix(info.Opponents[3].About, want) {
		t.Errorf("level:3 about %q, want it to end with %q", info.Opponents[3].About, want)
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

// TestGamesKeptOnDisk: with GamesDir a game is in a file after every change, and a new server on
// the same directory (a restart) resumes it where it was, resignation and agent view included,
// and plays on; past SavedGames the least recently changed file goes; DELETE removes the file; a
// file that does not read is a 404 and a log line, never a panic.
func TestGamesKeptOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "games")
	var logs testenv.SyncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	_, ts := newTestServer(t, Options{Player: "heuristic", Offer: []string{"random"}, GamesDir: dir, SavedGames: 3, Logger: logger})
	var a, b gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "white", "player": "random"}, 201, &a)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+a.ID+"/play", map[string]any{"action": "e5"}, 200, &a)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+a.ID+"/agent", nil, 200, &a)
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"variant": "blitz", "color": "black"}, 201, &b)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+b.ID+"/agent", nil, 200, &b)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+b.ID+"/resign", nil, 200, &b)
	if _, err := os.Stat(filepath.Join(dir, a.ID+".json")); err != nil {
		t.Fatal(err)
	}
	// a restart: a new server on the same directory
	ts.Close()
	_, ts2 := newTestServer(t, Options{Player: "heuristic", Offer: []string{"random"}, GamesDir: dir, SavedGames: 3, Logger: logger})
	var a2, b2 gameView
	callJSON(t, nil, "GET", ts2.URL+"/api/games/"+a.ID, nil, 200, &a2)
	if a2.Position != a.Position || strings.Join(a2.Moves, " ") != strings.Join(a.Moves, " ") || !a2.YourTurn || a2.Player != "random" ||
		a2.AgentView == nil || a2.AgentView.Action != a.Moves[1] {
		t.Fatalf("resumed game %+v, was %+v", a2, a)
	}
	callJSON(t, nil, "GET", ts2.URL+"/api/games/"+b.ID, nil, 200, &b2)
	if b2.Variant != "blitz" || b2.Resigned != "b" || b2.Result != "white" || b2.Player != "heuristic" {
		t.Fatalf("resumed resigned game %+v", b2)
	}
	callJSON(t, nil, "POST", ts2.URL+"/api/games/"+a.ID+"/play", map[string]any{"action": "f6"}, 200, &a2)
	callJSON(t, nil, "POST", ts2.URL+"/api/games/"+a.ID+"/agent", nil, 200, &a2)
	if len(a2.Moves) != 4 {
		t.Fatalf("played on: %v", a2.Moves)
	}
	status, data := call(t, nil, "GET", ts2.URL+"/api/games/"+b.ID+"/tokens", nil)
	if status != 200 || !strings.Contains(string(data), "# result: white (black resigned)") {
		t.Fatalf("tokens of the resumed game: %d %s", status, data)
	}

	// the bound: a is the least recently changed of three, and goes when a fourth comes
	var c, d gameView
	callJSON(t, nil, "POST", ts2.URL+"/api/games", nil, 201, &c)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, a.ID+".json"), old, old); err != nil {
		t.Fatal(err)
	}
	callJSON(t, nil, "POST", ts2.URL+"/api/games", nil, 201, &d)
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 3 || contains(names, a.ID+".json") {
		t.Fatalf("files after a fourth game: %v (a %s)", names, a.ID)
	}
	// DELETE removes the file
	if status, _ := call(t, nil, "DELETE", ts2.URL+"/api/games/"+c.ID, nil); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	if _, err := os.Stat(filepath.Join(dir, c.ID+".json")); !os.IsNotExist(err) {
		t.Fatalf("the deleted game's file: %v", err)
	}

	// files that do not read: each a 404 and a log line
	bad := map[string]string{
		"0123456789abcdef01234567": "not json",
		"1123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"1123456789abcdef01234567","variant":"standard","you":"w","player":"random","moves":["e5","e5"]}`,
		"2123456789abcdef01234567": `{"format":"other","id":"2123456789abcdef01234567"}`,
		"3123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"0123456789abcdef01234567","variant":"standard","you":"w","moves":[]}`,
		"4123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"4123456789abcdef01234567","variant":"speed","you":"w","moves":[]}`,
		"5123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"5123456789abcdef01234567","variant":"blitz","you":"x","moves":[]}`,
		"6123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"6123456789abcdef01234567","variant":"blitz","you":"w","moves":["zz9"]}`,
		"9123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"9123456789abcdef01234567","variant":"blitz","you":"w","moves":[],"clock":{"base_ms":1000,"increment_ms":0,"left_ms":[-5,1000]}}`,
		"a123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"a123456789abcdef01234567","variant":"blitz","you":"w","moves":[],"clock":{"base_ms":1000,"increment_ms":0,"left_ms":[5,1000],"flagged":"x"}}`,
		"7123456789abcdef01234567": `{"format":"yinsh-serve-game/1","id":"7123456789abcdef01234567","variant":"blitz","you":"w","moves":` + strings.Repeat(" ", maxSavedBytes) + `[]}`,
	}
	for id, text := range bad {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "8123456789abcdef01234567.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad["8123456789abcdef01234567"] = ""
	// a link to a valid game file elsewhere, and a FIFO (which must not block the server)
	elsewhere := filepath.Join(t.TempDir(), "g.json")
	valid := `{"format":"yinsh-serve-game/1","id":"b123456789abcdef01234567","variant":"blitz","you":"w","player":"heuristic","moves":[]}`
	if err := os.WriteFile(elsewhere, []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "b123456789abcdef01234567.json")); err != nil {
		t.Fatal(err)
	}
	bad["b123456789abcdef01234567"] = ""
	if err := syscall.Mkfifo(filepath.Join(dir, "c123456789abcdef01234567.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad["c123456789abcdef01234567"] = ""
	_, ts3 := newTestServer(t, Options{Player: "heuristic", GamesDir: dir, Logger: logger})
	for id := range bad {
		status, data := call(t, nil, "GET", ts3.URL+"/api/games/"+id, nil)
		wantError(t, status, data, 404, "no game")
		if !strings.Contains(logs.String(), id) {
			t.Errorf("no log line names the file of %s: %s", id, logs.String())
		}
	}
	for _, id := range []string{"nothex", "0123456789ABCDEF01234567", "0123456789abcdef0123456"} {
		status, data := call(t, nil, "GET", ts3.URL+"/api/games/"+id, nil)
		wantError(t, status, data, 404, "no game")
	}
	// a file where the directory should be
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o644)
	if _, err := New(Options{Player: "random", GamesDir: file}); err == nil || !strings.Contains(err.Error(), "games directory") {
		t.Fatalf("a file as the games directory: %v", err)
	}
}

// TestClock: a game on the clock charges each side the time from its turn's start to each action
// it plays, adds the increment when the turn passes, and ends the game when the side to act's
// time is spent (read on any request: the server decides), naming the loser on time; the agent's
// search gets its share of its clock; no undo on the clock; a resignation stops the clock; the
// clock survives a restart; bad time controls are 400s naming the field.
func TestClock(t *testing.T) {
	dir := t.TempDir()
	ft := testenv.NewFakeClock(time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC))
	s, ts := newTestServer(t, Options{Player: "random", GamesDir: dir})
	s.now = ft.Now
	for _, c := range []struct {
		clock any
		want  string
	}{
		{map[string]any{"base": 0}, "clock.base"},
		{map[string]any{"base": -5}, "clock.base"},
		{map[string]any{"base": 1e9}, "clock.base"},
		{map[string]any{"base": 60, "increment": 61}, "clock.increment"},
		{map[string]any{"base": 60, "increment": -1}, "clock.increment"},
		{"5+3", "clock"},
		{map[string]any{"base": 60, "inc": 2}, "inc"},
	} {
		status, data := call(t, nil, "POST", ts.URL+"/api/games", map[string]any{"clock": c.clock})
		wantError(t, status, data, 400, c.want)
	}
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "white", "clock": map[string]any{"base": 10, "increment": 2}}, 201, &g)
	want := func(what string, c *clockView, w, b int64, running string) {
		t.Helper()
		if c == nil || c.BaseMS != 10000 || c.IncrementMS != 2000 || c.WhiteMS != w || c.BlackMS != b || c.Running != running {
			t.Fatalf("%s: clock %+v, want white %d, black %d, running %q", what, c, w, b, running)
		}
	}
	want("new game", g.Clock, 10000, 10000, "w")
	ft.Advance(3 * time.Second)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	want("3 s later", g.Clock, 7000, 10000, "w")
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"action": "e5"}, 200, &g)
	want("white played", g.Clock, 9000, 10000, "b")
	ft.Advance(time.Second)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
	want("the agent played", g.Clock, 9000, 11000, "w")
	status, data := call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/undo", nil)
	wantError(t, status, data, 409, "no undo in a game on the clock")

	// a restart keeps the clock (the fake time stands still)
	_, ts2 := newTestServer(t, Options{Player: "random", GamesDir: dir})
	var g2 gameView
	callJSON(t, nil, "GET", ts2.URL+"/api/games/"+g.ID, nil, 200, &g2)
	if g2.Clock == nil || g2.Clock.BaseMS != 10000 || g2.Clock.BlackMS != 11000 {
		t.Fatalf("the clock after a restart: %+v", g2.Clock)
	}

	// white's flag falls: any request sees it
	ft.Advance(9 * time.Second)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	if g.Result != "black" || g.Timeout != "w" || g.YourTurn || len(g.Legal) != 0 || g.Phase != "over" || g.Clock.Flagged != "w" {
		t.Fatalf("after white's flag fell: result %s, timeout %q, your turn %v, legal %d, phase %s, clock %+v", g.Result, g.Timeout, g.YourTurn, len(g.Legal), g.Phase, g.Clock)
	}
	want("flag", g.Clock, 0, 11000, "")
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"action": "f6"})
	wantError(t, status, data, 409, "white lost on time")
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/resign", nil)
	wantError(t, status, data, 409, "lost on time")
	status, data = call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/tokens", nil)
	if status != 200 || !strings.Contains(string(data), "# result: black (white lost on time)") {
		t.Fatalf("tokens: %d %s", status, data)
	}
	status, data = call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/sgf", nil)
	rec, err := env.ReadSGF(bytes.NewReader(data))
	if status != 200 || err != nil || rec.Result != "random wins on time" || len(rec.Actions) != 2 {
		t.Fatalf("SGF after the flag: %d %v %+v: %s", status, err, rec, data)
	}
	ft.Advance(time.Hour)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	want("an hour after the flag", g.Clock, 0, 11000, "")

	// the agent's flag falls while it is to act: the next request ends the game, the agent the loser
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "black", "clock": map[string]any{"base": 10, "increment": 2}}, 201, &g)
	ft.Advance(10 * time.Second)
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil)
	wantError(t, status, data, 409, "white lost on time")
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	if g.Result != "black" || g.Timeout != "w" {
		t.Fatalf("the agent's flag: result %s, timeout %q", g.Result, g.Timeout)
	}

	// a resignation stops the clock
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"clock": map[string]any{"base": 10}}, 201, &g)
	ft.Advance(4 * time.Second)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/resign", nil, 200, &g)
	ft.Advance(time.Hour)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	if g.Clock.WhiteMS != 6000 || g.Clock.Running != "" || g.Timeout != "" || g.Resigned != "w" {
		t.Fatalf("after resigning: %+v, timeout %q", g.Clock, g.Timeout)
	}
	// no clock: none in the answer
	callJSON(t, nil, "POST", ts.URL+"/api/games", nil, 201, &g)
	if g.Clock != nil {
		t.Fatalf("a game without a clock has %+v", g.Clock)
	}
}

// TestAgentClockTime: the agent's search time is a twentieth of its time left plus the increment,
// or its own move time if that is shorter, and never its whole time left.
func TestAgentClockTime(t *testing.T) {
	now := time.Now()
	g := &game{human: env.Black, state: *env.NewState(env.Standard), now: func() time.Time { return now }}
	if d := g.agentTime(time.Second, now); d != 0 {
		t.Fatalf("no clock: %v", d)
	}
	for _, c := range []struct {
		left, inc, own, want time.Duration
	}{
		{60 * time.Second, 2 * time.Second, 0, 5 * time.Second},
		{60 * time.Second, 2 * time.Second, time.Second, time.Second},
		{60 * time.Second, 0, 10 * time.Second, 3 * time.Second},
		{2 * time.Second, 2 * time.Second, 0, 1950 * time.Millisecond},
		{10 * time.Millisecond, 0, 0, time.Millisecond},
	} {
		g.clock = &clock{base: time.Minute, inc: c.inc, left: [2]time.Duration{c.left, time.Minute}, since: now}
		if d := g.agentTime(c.own, now); d != c.want {
			t.Errorf("left %v, increment %v, own %v: %v, want %v", c.left, c.inc, c.own, d, c.want)
		}
	}
}

// TestAgentSearchesOnItsClock: an agent whose simulations would take far longer than its clock
// (rollout:10000000) decides within its share of it: a 2-second clock gives a 100 ms search.
func TestAgentSearchesOnItsClock(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:10000000", Searches: 1})
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]any{"color": "black", "clock": map[string]any{"base": 2}}, 201, &g)
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
	if g.AgentView == nil || g.AgentView.TimeMS > 1000 || g.Result != "ongoing" || len(g.Moves) != 1 {
		t.Fatalf("the agent's decision on a 2 s clock: %+v, result %s", g.AgentView, g.Result)
	}
	if g.Clock.WhiteMS < 1000 || g.Clock.WhiteMS > 1950 {
		t.Fatalf("the agent's clock after its decision: %+v", g.Clock)
	}
}
