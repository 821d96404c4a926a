package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// TestSetLevel: set level N switches the player to level:N, which genmove then plays; bad levels are
// refused naming the setting and keep the old player; the same seed replays the same moves.
func TestSetLevel(t *testing.T) {
	moves := func() string {
		e := newEngine(t, Options{Search: selfplay.Search{Sims: 4}, Seed: 5})
		defer e.Close()
		for _, bad := range []string{"set level 0", "set level 11", "set level x"} {
			if _, ok, text, _ := e.Exec(bad); ok || !strings.Contains(text, "set level: want an integer in [1, 10]") {
				t.Errorf("%s: ok %v, %q", bad, ok, text)
			}
		}
		if _, ok, text, _ := e.Exec("set level 3"); !ok {
			t.Fatalf("set level 3: %s", text)
		}
		_, _, text, _ := e.Exec("set")
		if !strings.Contains(text, "player level:3\n") {
			t.Errorf("set lists %q, want player level:3", text)
		}
		var got []string
		for i := 0; i < 12; i++ {
			_, ok, text, _ := e.Exec("genmove")
			if !ok {
				t.Fatalf("genmove %d: %s", i, text)
			}
			if _, err := env.ParseAction(text); err != nil {
				t.Fatalf("genmove %d answered %q: %v", i, text, err)
			}
			got = append(got, text)
		}
		return strings.Join(got, " ")
	}
	if a, b := moves(), moves(); a != b {
		t.Errorf("same seed, different moves:\n%s\n%s", a, b)
	}
}

// TestLevelRefusedForBlitz: the levels are the reference network's, refused for a blitz game as the
// reference is unless the engine runs with --any-variant (Options.AnyVariant).
func TestLevelRefusedForBlitz(t *testing.T) {
	e := newEngine(t, Options{Search: selfplay.Search{Sims: 4}})
	defer e.Close()
	if _, ok, text, _ := e.Exec("set level 2"); !ok {
		t.Fatal(text)
	}
	if _, ok, text, _ := e.Exec("newgame blitz"); ok || !strings.Contains(text, "trained for standard") {
		t.Errorf("newgame blitz with level:2: ok %v, %q", ok, text)
	}
	_, err := New(Options{Player: "level:2", Variant: env.Blitz, Load: loadGonum})
	if err == nil || !strings.Contains(err.Error(), "level:2") {
		t.Errorf("a blitz engine with level:2: %v", err)
	}
	a := newEngine(t, Options{Player: "level:2", Variant: env.Blitz, AnyVariant: true, Search: selfplay.Search{Sims: 4}})
	defer a.Close()
	if _, ok, text, _ := a.Exec("genmove"); !ok {
		t.Errorf("--any-variant blitz level:2 genmove: %s", text)
	}
}

// TestAnalyzerLevel: the analyser (the JSON analyser's and yinsh serve's) accepts level:N as a
// player: its answer is the level's decision, a legal action; bad levels are refused naming the
// field.
func TestAnalyzerLevel(t *testing.T) {
	a, err := NewAnalyzer(AnalyzerOptions{Player: "level:4", Search: selfplay.Search{Sims: 4}, Load: loadGonum, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Name() != "level:4" {
		t.Errorf("name %q", a.Name())
	}
	s := env.NewState(env.Standard)
	res, err := a.Analyze(context.Background(), AnalysisRequest{State: s, Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Clone().ApplyAction(res.Best); err != nil {
		t.Errorf("best %s: %v", res.Best, err)
	}
	if _, err := NewAnalyzer(AnalyzerOptions{Player: "level:11", Load: loadGonum}); err == nil || !strings.Contains(err.Error(), "level:N with N in [1, 10]") {
		t.Errorf("level:11: %v", err)
	}
}
