package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzAPIRequest sends arbitrary bodies to every endpoint that parses one: whatever comes, the
// answer is JSON with a status the API documents, never a panic or a 500.
func FuzzAPIRequest(f *testing.F) {
	for _, seed := range []string{
		`{"moves":["e5","f6"],"sims":5,"top":3}`,
		`{"position":"..................................................................................... w 0-0","variant":"blitz","sims":3}`,
		`{"tokens":"e5 f6 # c\ne6","movetime":1}`,
		`{"sgf":"(;SU[Yinsh]P0[0 Start White]P0[1 place wr E 5])"}`,
		`{"variant":"blitz","color":"black"}`,
		`{"action":"e5"}`,
		`{"actions":["e5","xe5-e9","pass"]}`,
		`{"player":"rollout:2","sims":2}`,
		`{"sims":-1}`, `{"moves":[1]}`, `[]`, `{"a":1}`, `{"sims":5`, `{}{}`, ``, "\x00\xff",
	} {
		f.Add(0, []byte(seed))
		f.Add(1, []byte(seed))
		f.Add(3, []byte(seed))
	}
	s, err := New(Options{Player: "rollout:4", MaxSims: 8, MaxMoveTime: 5 * time.Millisecond, MaxBody: 4096,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	// one game to play into
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("POST", "/api/games", strings.NewReader(`{}`)))
	var g gameView
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		f.Fatal(err)
	}
	paths := []string{"/api/analyze", "/api/replay", "/api/games", "/api/games/" + g.ID + "/play"}
	allowed := map[int]bool{200: true, 201: true, 400: true, 404: true, 409: true, 413: true, 415: true, 503: true}
	f.Fuzz(func(t *testing.T, which int, body []byte) {
		if which < 0 {
			which = -which
		}
		path := paths[which%len(paths)]
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if !allowed[rec.Code] {
			t.Fatalf("POST %s %q: status %d: %s", path, body, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("POST %s %q: answer is not JSON: %s", path, body, rec.Body)
		}
		if path == paths[2] && rec.Code == 201 { // keep the store from filling up
			var v gameView
			json.Unmarshal(rec.Body.Bytes(), &v)
			s.games.remove(v.ID)
		}
		if path == paths[3] && rec.Code == 200 { // a fresh game when this one moves on
			var v gameView
			json.Unmarshal(rec.Body.Bytes(), &v)
			if !v.YourTurn {
				g, _ := s.games.get(v.ID)
				g.mu.Lock()
				g.state, g.history, g.moves = g.history[0], nil, nil
				g.mu.Unlock()
			}
		}
	})
}
