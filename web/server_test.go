package web

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
)

// playOut plays the game to its end: the human side picks random legal actions, the agent answers
// through the agent endpoint. It returns the final view.
func playOut(t *testing.T, url string, g gameView, seed uint64) gameView {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	for n := 0; g.Result == "ongoing"; n++ {
		if n > 2000 {
			t.Fatal("game does not end")
		}
		if g.YourTurn {
			tok := g.Legal[rng.IntN(len(g.Legal))]
			callJSON(t, nil, "POST", url+"/api/games/"+g.ID+"/play", map[string]string{"action": tok}, 200, &g)
		} else {
			callJSON(t, nil, "POST", url+"/api/games/"+g.ID+"/agent", nil, 200, &g)
			if g.Played == "" || g.AgentView == nil || g.AgentView.Action != g.Played {
				t.Fatalf("agent answer without its action: %+v", g)
			}
		}
	}
	return g
}

func TestPlayWholeGame(t *testing.T) {
	for _, color := range []string{"white", "black"} {
		t.Run(color, func(t *testing.T) {
			_, ts := newTestServer(t, Options{})
			var g gameView
			callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]string{"variant": "blitz", "color": color}, 201, &g)
			if g.Variant != "blitz" || g.You != color[:1] || g.Phase != "place" || len(g.Legal) != 85 || g.Agent != "random" {
				t.Fatalf("new game %+v", g)
			}
			if g.YourTurn != (color == "white") {
				t.Fatalf("your_turn %v for %s", g.YourTurn, color)
			}
			g = playOut(t, ts.URL, g, 1)
			// the server's game is the game its moves give
			s := playTokens(t, env.Blitz, g.Moves)
			if resultName(s.Outcome()) != g.Result || s.Text() != g.Position || len(g.Legal) != 0 {
				t.Fatalf("result %s, moves give %s (%s vs %s)", g.Result, s.Outcome(), g.Position, s.Text())
			}
			if g.Last != g.Moves[len(g.Moves)-1] {
				t.Fatalf("last %q, moves end with %q", g.Last, g.Moves[len(g.Moves)-1])
			}
			// the token download replays to the same result
			status, data := call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/tokens", nil)
			if status != 200 || !strings.Contains(string(data), "variant=blitz") {
				t.Fatalf("tokens: %d %s", status, data)
			}
			toks, err := env.ReadTokens(bytes.NewReader(data))
			if err != nil || len(toks) != len(g.Moves) {
				t.Fatalf("tokens file: %v, %d tokens for %d moves", err, len(toks), len(g.Moves))
			}
			// the SGF download is read by env.ReadSGF (yinsh replay) with the same actions and result
			status, data = call(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/sgf", nil)
			if status != 200 {
				t.Fatalf("sgf: %d %s", status, data)
			}
			sg, err := env.ReadSGF(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("sgf does not read back: %v\n%s", err, data)
			}
			if sg.Variant != env.Blitz || strings.Join(tokensOf(sg.Actions), " ") != strings.Join(g.Moves, " ") || resultName(sg.Outcome()) != g.Result {
				t.Fatalf("sgf reads back as %v %v %s", sg.Variant, tokensOf(sg.Actions), sg.Outcome())
			}
			// a finished game refuses more actions
			status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil)
			wantError(t, status, data, 409, "over")
		})
	}
}

func TestPlaySeveralActionsAndUndo(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "heuristic"})
	var g gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]string{}, 201, &g)
	if g.Variant != "standard" {
		t.Fatalf("default variant %s", g.Variant)
	}
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]string{"action": "e5"}, 200, &g)
	if g.YourTurn || g.ToAct != "b" || g.Last != "e5" {
		t.Fatalf("after e5: %+v", g)
	}
	// not the human's turn
	status, data := call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]string{"action": "f6"})
	wantError(t, status, data, 409, "agent's turn")
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil, 200, &g)
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/agent", nil)
	wantError(t, status, data, 409, "your turn")
	if len(g.Moves) != 2 || !g.YourTurn {
		t.Fatalf("after the agent: %+v", g)
	}
	// an illegal action in a list changes nothing
	before := g.Position
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]any{"actions": []string{"a2", "a2"}})
	wantError(t, status, data, 409, "agent's turn") // a2 then a2: the second is the agent's
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil, 200, &g)
	if g.Position != before {
		t.Fatal("a refused list of actions changed the game")
	}
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/play", map[string]string{"action": "e5"})
	wantError(t, status, data, 400, "not legal")
	// undo takes back the agent's answer and the human's action
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/undo", nil, 200, &g)
	if len(g.Moves) != 0 || !g.YourTurn || g.Last != "" {
		t.Fatalf("after undo: %+v", g)
	}
	status, data = call(t, nil, "POST", ts.URL+"/api/games/"+g.ID+"/undo", nil)
	wantError(t, status, data, 409, "nothing to undo")
	var legal struct {
		Legal []string `json:"legal"`
		Phase string   `json:"phase"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+g.ID+"/legal", nil, 200, &legal)
	if len(legal.Legal) != 85 || legal.Phase != "place" {
		t.Fatalf("legal %+v", legal)
	}
	// delete, then the game is gone
	if status, _ := call(t, nil, "DELETE", ts.URL+"/api/games/"+g.ID, nil); status != 204 {
		t.Fatalf("delete: %d", status)
	}
	status, data = call(t, nil, "GET", ts.URL+"/api/games/"+g.ID, nil)
	wantError(t, status, data, 404, "no game")
}

func TestSessionsIsolated(t *testing.T) {
	_, ts := newTestServer(t, Options{MaxGames: 2})
	var a, b gameView
	callJSON(t, nil, "POST", ts.URL+"/api/games", nil, 201, &a)
	callJSON(t, nil, "POST", ts.URL+"/api/games", map[string]string{"variant": "blitz"}, 201, &b)
	if a.ID == b.ID {
		t.Fatal("two games share an id")
	}
	callJSON(t, nil, "POST", ts.URL+"/api/games/"+a.ID+"/play", map[string]string{"action": "e5"}, 200, &a)
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+b.ID, nil, 200, &b)
	if len(b.Moves) != 0 || b.Variant != "blitz" {
		t.Fatalf("game b changed with a: %+v", b)
	}
	status, data := call(t, nil, "POST", ts.URL+"/api/games", nil)
	wantError(t, status, data, 503, "games in progress")
}

func TestAnalyze(t *testing.T) {
	// MaxMoveTime leaves the 200-simulation search room under -race on a loaded machine (it took
	// 105 ms there and a 100 ms cap cut it at 194 simulations) while still bounding the 5,000 below.
	_, ts := newTestServer(t, Options{Player: "rollout:64", MaxSims: 5000, MaxMoveTime: 800 * time.Millisecond})
	moves := []string{"e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "d4", "g6"}
	var a engine.AnalysisJSON
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"moves": moves, "variant": "blitz", "sims": 200, "top": 4}, 200, &a)
	s := playTokens(t, env.Blitz, moves)
	if !a.Searched || a.Sims != 200 || a.Visits < 200 || a.Side != "w" || a.Player != "rollout:64" || a.Position != s.Text() {
		t.Fatalf("answer %+v", a)
	}
	if len(a.Top) != 4 || a.Top[0].Action != a.Best || a.PV[0] != a.Best || a.WDL == nil {
		t.Fatalf("actions %+v best %s pv %v", a.Top, a.Best, a.PV)
	}
	if sum := a.WDL[0] + a.WDL[1] + a.WDL[2]; sum < 0.99 || sum > 1.01 {
		t.Fatalf("wdl %v", a.WDL)
	}
	for i := 1; i < len(a.Top); i++ {
		if a.Top[i].Visits > a.Top[i-1].Visits {
			t.Fatalf("actions not most visited first: %+v", a.Top)
		}
	}
	if len(a.Policy) != len(s.LegalActions(nil)) {
		t.Fatalf("policy of %d actions, %d legal", len(a.Policy), len(s.LegalActions(nil)))
	}
	// a position text gives the same position; the request's own player
	var b engine.AnalysisJSON
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"position": s.Text(), "variant": "blitz", "sims": 10, "player": "rollout:5"}, 200, &b)
	if b.Position != a.Position || b.Player != "rollout:5" || b.Sims != 10 {
		t.Fatalf("position request %+v", b)
	}
	// a player that does not search answers its action
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"tokens": "e5 # comment\nf6", "player": "heuristic"}, 200, &b)
	if b.Searched || b.Best == "" {
		t.Fatalf("heuristic %+v", b)
	}
	// every search stops at MaxMoveTime whatever it asks (how soon is a timing check: only with
	// YINSH_TIMING_TESTS=1)
	start := time.Now()
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"moves": moves, "variant": "blitz", "sims": 5000, "player": "rollout:5000"}, 200, &b)
	if el := time.Since(start); timingTests() && (el > 4*time.Second || b.TimeMS > 1500) {
		t.Fatalf("bounded search took %v (%.0f ms searching)", el, b.TimeMS)
	}
	// bad requests
	for _, c := range []struct {
		body     any
		status   int
		contains string
	}{
		{map[string]any{"sims": 5001}, 400, "max-sims"},
		{map[string]any{"sims": 0}, 400, "sims 0"},
		{map[string]any{"movetime": 801}, 400, "max-movetime"},
		{map[string]any{"top": 201}, 400, "top"},
		{map[string]any{"moves": []string{"e5", "e5"}}, 400, "moves[1]"},
		{map[string]any{"moves": []string{"e5"}, "tokens": "e5"}, 400, "not both"},
		{map[string]any{"position": "xyz"}, 400, "position"},
		{map[string]any{"variant": "speed"}, 400, "variant"},
		{map[string]any{"player": "/etc/passwd"}, 400, "player"},
		{map[string]any{"player": "rollout:0"}, 400, "rollout"},
		{map[string]any{"bogus": 1}, 400, "unknown field"},
		{`{"sims": "many"}`, 400, "sims"},
		{`{"sims": 5`, 400, "JSON"},
		{`[1,2]`, 400, "object"},
		{`{} {}`, 400, "after"},
	} {
		status, data := call(t, nil, "POST", ts.URL+"/api/analyze", c.body)
		wantError(t, status, data, c.status, c.contains)
	}
	// a finished game has nothing to analyse
	rng := rand.New(rand.NewPCG(3, 3))
	done := randomGame(rng, 1, env.Blitz)
	status, data := call(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"moves": tokensOf(done.Actions), "variant": "blitz"})
	wantError(t, status, data, 400, "over")
}

func TestReplay(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var r replayAnswer
	callJSON(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"tokens": "e5 f6\ne6", "variant": "blitz"}, 200, &r)
	if len(r.Plies) != 4 || r.Variant != "blitz" || r.Plies[3].Last != "e6" || r.Plies[0].Last != "" || r.Plies[1].ToAct != "b" {
		t.Fatalf("replay %+v", r)
	}
	data := mustRead(t, "../env/testdata/boardspace/Y-DrMih-Dumbot-2026-02-20-0858.sgf")
	callJSON(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"sgf": string(data)}, 200, &r)
	g, err := env.ReadSGF(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Moves) != len(g.Actions) || r.Plies[len(r.Plies)-1].Position != g.Final.Text() {
		t.Fatalf("sgf replay: %d moves, want %d", len(r.Moves), len(g.Actions))
	}
	status, body := call(t, nil, "POST", ts.URL+"/api/replay", map[string]any{"sgf": "(;SU[Chess])"})
	wantError(t, status, body, 400, "sgf")
}

func TestHTTPErrors(t *testing.T) {
	_, ts := newTestServer(t, Options{MaxBody: 1024})
	big := `{"moves":[` + strings.Repeat(`"e5",`, 400) + `"e5"]}`
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		contains     string
	}{
		{"GET", "/api/games/nope", nil, 404, "no game"},
		{"POST", "/api/games/nope/play", map[string]string{"action": "e5"}, 404, "no game"},
		{"GET", "/api/games/nope/sgf", nil, 404, "no game"},
		{"DELETE", "/api/games/nope", nil, 404, "no game"},
		{"GET", "/api/analyze", nil, 405, "not allowed"},
		{"PUT", "/api/games", nil, 405, "not allowed"},
		{"POST", "/api/info", nil, 405, "not allowed"},
		{"POST", "/", nil, 405, "not allowed"},
		{"GET", "/api/unknown", nil, 404, "no API endpoint"},
		{"GET", "/no-such-page.html", nil, 404, "no page"},
		{"POST", "/api/analyze", big, 413, "larger than 1024"},
		{"POST", "/api/games", map[string]string{"color": "green"}, 400, "color"},
		{"POST", "/api/games", map[string]string{"variant": "x"}, 400, "variant"},
		{"GET", "/api/runs/r1/metrics", nil, 404, "without --runs"},
	} {
		status, data := call(t, nil, c.method, ts.URL+c.path, c.body)
		wantError(t, status, data, c.status, c.contains)
	}
	// 405 names what is allowed
	req, _ := http.NewRequest("PATCH", ts.URL+"/api/games/x", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 || !strings.Contains(res.Header.Get("Allow"), "DELETE") {
		t.Fatalf("PATCH: %d, Allow %q", res.StatusCode, res.Header.Get("Allow"))
	}
	// a form post is refused (415); a cross-origin one is refused (403)
	res, err = http.Post(ts.URL+"/api/games", "application/x-www-form-urlencoded", strings.NewReader("a=b"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 415 {
		t.Fatalf("form post: %d", res.StatusCode)
	}
	req, _ = http.NewRequest("POST", ts.URL+"/api/games", nil)
	req.Header.Set("Origin", "http://evil.example")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Fatalf("cross-origin post: %d", res.StatusCode)
	}
}

func TestLoopbackHosts(t *testing.T) {
	_, ts := newTestServer(t, Options{LoopbackHosts: true})
	req, _ := http.NewRequest("GET", ts.URL+"/api/info", nil)
	req.Host = "rebind.example:8080"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Fatalf("foreign Host: %d", res.StatusCode)
	}
	for _, h := range []string{"localhost:8080", "127.0.0.1", "[::1]:80"} {
		req.Host = h
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("Host %s: %d", h, res.StatusCode)
		}
	}
}

// TestSearchPoolBounds fills the search pool: past the queue a search gets 503, past a client's
// share 429, and the other clients are still served.
func TestSearchPoolBounds(t *testing.T) {
	p := newPool(1, 1, 2)
	p.queued = make(chan struct{}, 1)
	ctx := context.Background()
	r1, err := p.acquire(ctx, "a") // runs
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() { // waits in the queue
		r, err := p.acquire(ctx, "b")
		if err == nil {
			r()
		}
		got <- err
	}()
	<-p.queued // the second search waits
	if _, err := p.acquire(ctx, "c"); status(err) != 503 {
		t.Fatalf("queue full: %v", err)
	}
	// a client at its share gets 429 before the queue is looked at
	p2 := newPool(4, 4, 2)
	ra, _ := p2.acquire(ctx, "a")
	rb, _ := p2.acquire(ctx, "a")
	if _, err := p2.acquire(ctx, "a"); status(err) != 429 {
		t.Fatalf("client share: %v", err)
	}
	if r, err := p2.acquire(ctx, "other"); err != nil {
		t.Fatalf("another client refused: %v", err)
	} else {
		r()
	}
	ra()
	ra() // twice is once
	if r, err := p2.acquire(ctx, "a"); err != nil {
		t.Fatalf("after release: %v", err)
	} else {
		r()
	}
	rb()
	r1()
	if err := <-got; err != nil {
		t.Fatalf("queued search: %v", err)
	}
	// a waiting search whose client goes away gives up with 503
	r1, _ = p.acquire(ctx, "a")
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := p.acquire(cctx, "b"); status(err) != 503 {
		t.Fatalf("cancelled wait: %v", err)
	}
	r1()
	if len(p.clients) != 0 || len(p2.clients) != 0 {
		t.Fatalf("clients left counted: %v %v", p.clients, p2.clients)
	}
}

func status(err error) int {
	if he, ok := err.(*httpError); ok {
		return he.status
	}
	return 0
}

// TestSearchPoolOverHTTP: with one slot and no queue, a second analysis while one runs gets 503.
func TestSearchPoolOverHTTP(t *testing.T) {
	srv, ts := newTestServer(t, Options{Player: "rollout:100", Searches: 1, Queue: -1})
	// a search holds the only slot (taken here, so that no clock decides whether it still runs)
	release, err := srv.pool.acquire(context.Background(), "another client")
	if err != nil {
		t.Fatal(err)
	}
	st, data := call(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"sims": 1})
	wantError(t, st, data, 503, "search pool is full")
	release()
	callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"sims": 1}, 200, nil)
}

func TestStaticAndInfo(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "heuristic"})
	for _, p := range []string{"/", "/app.js", "/board.js", "/style.css"} {
		status, data := call(t, nil, "GET", ts.URL+p, nil)
		if status != 200 || len(data) < 100 {
			t.Fatalf("%s: %d (%d bytes)", p, status, len(data))
		}
		// no request outside the server: no absolute URL in the app's files but the SVG namespace
		for _, bad := range []string{"http://", "https://", "//cdn"} {
			text := strings.ReplaceAll(string(data), "http://www.w3.org/2000/svg", "")
			if strings.Contains(text, bad) {
				t.Fatalf("%s refers outside the server (%s)", p, bad)
			}
		}
	}
	var info infoAnswer
	callJSON(t, nil, "GET", ts.URL+"/api/info", nil, 200, &info)
	if info.Player != "heuristic" || info.MaxSims != DefaultMaxSims {
		t.Fatalf("info %+v", info)
	}
}

func TestNewRejectsBadPlayer(t *testing.T) {
	if _, err := New(Options{Player: "rollout:abc"}); err == nil {
		t.Fatal("bad player accepted")
	}
	if _, err := New(Options{Player: "random", Runs: "/does/not/exist"}); err == nil {
		t.Fatal("missing runs directory accepted")
	}
}

func TestServeHTTPRecovers(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	s.mux.HandleFunc("GET /api/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/api/panic", nil))
	var e apiError
	if rec.Code != 500 || json.Unmarshal(rec.Body.Bytes(), &e) != nil {
		t.Fatalf("panic answered %d %s", rec.Code, rec.Body)
	}
}

// TestAnalyzeAnswerIsTheAnalyserShape: /api/analyze answers in engine.AnalysisJSON's shape (no field
// outside it) and every field of the JSON analyser's answer for the same request is in it with the
// same name.
func TestAnalyzeAnswerIsTheAnalyserShape(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:16"})
	moves := []string{"e5", "f6", "e6", "f7"}
	status, data := call(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"id": 1, "moves": moves, "variant": "blitz", "sims": 20, "top": 3})
	if status != 200 {
		t.Fatalf("status %d: %s", status, data)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var a engine.AnalysisJSON
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("a field outside engine.AnalysisJSON: %v in %s", err, data)
	}
	var served map[string]json.RawMessage
	json.Unmarshal(data, &served)
	req, _ := json.Marshal(map[string]any{"id": 1, "moves": moves, "variant": "blitz", "sims": 20, "top": 3})
	var out strings.Builder
	if err := engine.RunJSON(context.Background(), strings.NewReader(string(req)+"\n"), &out, engine.JSONOptions{Player: "rollout:16", Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	var analysed map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out.String()), &analysed); err != nil {
		t.Fatalf("analyser answer %q: %v", out.String(), err)
	}
	for k := range analysed {
		if _, ok := served[k]; !ok {
			t.Errorf("the analyser's field %q is not in the server's answer %s", k, data)
		}
	}
	var top []map[string]any
	json.Unmarshal(analysed["top"], &top)
	if len(top) == 0 || top[0]["action"] == nil || len(a.Top) == 0 || a.Top[0].Action == "" {
		t.Fatalf("candidates: analyser %s, server %+v", analysed["top"], a.Top)
	}
}
