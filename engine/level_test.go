package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
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

// TestLevelAndReferenceForBlitz: a blitz game has its own reference network, so the levels and the
// reference play it without --any-variant (Options.AnyVariant), and newgame switches the reference
// to the new variant's network.
func TestLevelAndReferenceForBlitz(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	e := newEngine(t, Options{Search: selfplay.Search{Sims: 4}})
	defer e.Close()
	if _, ok, text, _ := e.Exec("set level 2"); !ok {
		t.Fatal(text)
	}
	if _, ok, text, _ := e.Exec("newgame blitz"); !ok {
		t.Errorf("newgame blitz with level:2: %q", text)
	}
	if _, ok, text, _ := e.Exec("genmove"); !ok {
		t.Errorf("blitz level:2 genmove: %s", text)
	}
	b := newEngine(t, Options{Player: "level:2", Variant: env.Blitz, Search: selfplay.Search{Sims: 4}})
	defer b.Close()
	if _, ok, text, _ := b.Exec("genmove"); !ok {
		t.Errorf("blitz level:2 genmove: %s", text)
	}
	r := newEngine(t, Options{Variant: env.Blitz, Search: selfplay.Search{Sims: 4}})
	defer r.Close()
	if _, _, text, _ := r.Exec("set"); !strings.HasPrefix(text, "player reference\n") {
		t.Errorf("a blitz engine's default player: %q, want reference", text)
	}
	trained := func() string {
		t.Helper()
		h, err := model.ReadMetadata(r.nets.path)
		if err != nil {
			t.Fatal(err)
		}
		return h.Meta.Variant
	}
	if v := trained(); v != "blitz" {
		t.Errorf("a blitz engine's reference is the %s network", v)
	}
	if _, ok, text, _ := r.Exec("newgame standard"); !ok {
		t.Fatalf("newgame standard: %s", text)
	}
	if _, ok, text, _ := r.Exec("genmove"); !ok {
		t.Errorf("standard reference genmove: %s", text)
	}
	if v := trained(); v != "standard" {
		t.Errorf("after newgame standard the reference is the %s network", v)
	}
}

// TestLevelRefusedWithoutReference: a variant without a reference network (blitz, its network
// hidden by nets.Hide) refuses the levels and the reference, --any-variant or not.
func TestLevelRefusedWithoutReference(t *testing.T) {
	nets.Hide(t, env.Blitz)
	e := newEngine(t, Options{Search: selfplay.Search{Sims: 4}})
	defer e.Close()
	if _, ok, text, _ := e.Exec("set level 2"); !ok {
		t.Fatal(text)
	}
	if _, ok, text, _ := e.Exec("newgame blitz"); ok || !strings.Contains(text, "there is none for blitz") {
		t.Errorf("newgame blitz with level:2: ok %v, %q", ok, text)
	}
	for _, any := range []bool{false, true} {
		for _, spec := range []string{"level:2", "reference"} {
			_, err := New(Options{Player: spec, Variant: env.Blitz, AnyVariant: any, Load: loadGonum})
			if err == nil || !strings.Contains(err.Error(), spec) || !strings.Contains(err.Error(), "none for blitz") {
				t.Errorf("a blitz engine with %s (any variant %v): %v", spec, any, err)
			}
		}
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
