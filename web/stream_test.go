package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// openStream starts a continuous analysis and returns a reader of its lines and a function that
// hangs up.
func openStream(t *testing.T, url string, body map[string]any) (next func() streamLine, hangUp func()) {
	t.Helper()
	body["stream"] = true
	data, _ := json.Marshal(body)
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", url+"/api/analyze", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); res.Body.Close() })
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("stream: status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return func() streamLine {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("stream ended early: %v", sc.Err())
		}
		var l streamLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes(), err)
		}
		return l
	}, func() { cancel(); res.Body.Close() }
}

// waitFor polls cond (a state of the server, not a time) until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: timed out", what)
		}
	}
}

// TestAnalyzeStream: a continuous analysis sends lines while it searches, the first one soon, with
// growing visits; hanging up ends the search and frees its slot; the client's next stream ends the
// one before (its last line says superseded); the server's MaxStream and a request's movetime end
// it (done, stop "budget"); a player that does not search answers one line; bad requests are 400s
// naming the field.
func TestAnalyzeStream(t *testing.T) {
	s, ts := newTestServer(t, Options{Player: "rollout:32", MaxStream: 1500 * time.Millisecond})
	moves := []string{"e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "d4", "g6"}
	start := time.Now()
	next, hangUp := openStream(t, ts.URL, map[string]any{"moves": moves, "variant": "blitz", "top": 3, "id": 9})
	first := next()
	firstIn := time.Since(start)
	t.Logf("first update after %v: %d visits", firstIn, first.Visits)
	if timingTests() && firstIn > 200*time.Millisecond {
		t.Errorf("the first update came after %v, want 200 ms at most", firstIn)
	}
	if first.Done || !first.Searched || first.Visits < 1 || first.Side != "w" || first.Player != "rollout:32" || first.WDL == nil ||
		len(first.Top) == 0 || len(first.Top) > 3 || first.ID != 9.0 || first.Position == "" {
		t.Fatalf("first line %+v", first)
	}
	prev := first.Visits
	for range 3 {
		l := next()
		if l.Done || l.Visits <= prev {
			t.Fatalf("line after %d visits: %+v", prev, l)
		}
		prev = l.Visits
	}
	hangUp()
	waitFor(t, "the slot back after hanging up", func() bool {
		s.pool.mu.Lock()
		defer s.pool.mu.Unlock()
		return len(s.pool.clients) == 0 && len(s.pool.slots) == 0
	})

	// the client's next stream supersedes the one before
	nextA, _ := openStream(t, ts.URL, map[string]any{"moves": moves, "variant": "blitz"})
	nextA()
	nextB, _ := openStream(t, ts.URL, map[string]any{"moves": moves[:9], "variant": "blitz"})
	var l streamLine
	for l = nextA(); !l.Done; l = nextA() {
	}
	if l.Stop != "superseded" || l.Visits < 1 {
		t.Fatalf("the superseded stream's last line %+v", l)
	}
	// B runs until MaxStream
	for l = nextB(); !l.Done; l = nextB() {
		if l.Side != "b" {
			t.Fatalf("B's line %+v", l)
		}
	}
	if l.Stop != "budget" || l.Visits < 1 || l.TimeMS < 1000 {
		t.Fatalf("B's last line %+v (want the budget of 1.5 s spent)", l)
	}
	// a request's own movetime and sims bound it
	next, _ = openStream(t, ts.URL, map[string]any{"moves": moves, "variant": "blitz", "sims": 100})
	for l = next(); !l.Done; l = next() {
	}
	if l.Stop != "budget" || l.Sims < 100 || l.Sims > 200 {
		t.Fatalf("sims 100: last line %+v", l)
	}
	next, _ = openStream(t, ts.URL, map[string]any{"moves": moves, "variant": "blitz", "movetime": 100})
	for l = next(); !l.Done; l = next() {
	}
	if l.Stop != "budget" || l.TimeMS > 1000 {
		t.Fatalf("movetime 100: last line %+v", l)
	}
	// heuristic does not search: one line
	next, _ = openStream(t, ts.URL, map[string]any{"moves": moves, "variant": "blitz", "player": "heuristic"})
	if l = next(); !l.Done || l.Searched || l.Best == "" || l.Stop != "budget" {
		t.Fatalf("heuristic's stream %+v", l)
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"moves": moves, "variant": "blitz", "stream": true, "movetime": 0}, "movetime"},
		{map[string]any{"moves": moves, "variant": "blitz", "stream": true, "movetime": 1501}, "movetime"},
		{map[string]any{"moves": moves, "variant": "blitz", "stream": true, "sims": 0}, "sims"},
		{map[string]any{"moves": moves, "variant": "blitz", "stream": true, "top": -1}, "top"},
		{map[string]any{"moves": moves, "variant": "blitz", "stream": "yes"}, "stream"},
		{map[string]any{"moves": []string{"e5", "zz"}, "stream": true}, "zz"},
	} {
		status, data := call(t, nil, "POST", ts.URL+"/api/analyze", c.body)
		wantError(t, status, data, 400, c.want)
	}
}
