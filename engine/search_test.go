package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// searchSettings are player settings whose searches differ from each other's and from the old
// analysis search (PUCT, 8 leaves in flight): analysis must search with them.
var searchSettings = []selfplay.Search{
	{Sims: 24, LeavesInFlight: 1},
	{Sims: 24, LeavesInFlight: 3},
	{Sims: 24, Gumbel: true},
	{Sims: 24, Gumbel: true, LeavesInFlight: 1},
}

// analysisPosition is a blitz position after the ring placements and one move.
func analysisPosition(t *testing.T) *env.State {
	t.Helper()
	s := env.NewState(env.Blitz)
	for _, tok := range strings.Fields("e5 f6 e6 f7 e7 f8 e8 f9 e9 f10 e5-e4") {
		a, err := env.ParseAction(tok)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// playerDecision is what a checkpoint player built with set decides in s, on a fresh tree.
func playerDecision(t *testing.T, ck string, set selfplay.Search, s *env.State) selfplay.Decision {
	t.Helper()
	f, closer, err := selfplay.OpenPlayer(ck, selfplay.PlayerOptions{Search: set, Variant: env.Blitz, Parallel: 1, Load: loadGonum})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	p, err := f(1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Decide(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// visitsOf lists the candidates' tokens and visits, most visited first.
func visitsOf(top []selfplay.ActionStat) string {
	var b strings.Builder
	for _, st := range top {
		fmt.Fprintf(&b, "%s:%d ", st.Action, st.Visits)
	}
	return b.String()
}

// TestAnalysisSearchesAsThePlayer: an analysis with the player's own budget is the player's
// search: the same root (PUCT or Gumbel), the same leaves in flight, so the same choice and the
// same visits as the player's decision (the searches are deterministic: no noise, no Gumbel noise).
// It failed when analysis always searched PUCT with 8 leaves in flight.
func TestAnalysisSearchesAsThePlayer(t *testing.T) {
	ck := checkpointFile(t)
	s := analysisPosition(t)
	for _, set := range searchSettings {
		t.Run(fmt.Sprintf("gumbel=%v,leaves=%d", set.Gumbel, set.LeavesInFlight), func(t *testing.T) {
			d := playerDecision(t, ck, set, s)
			a, err := NewAnalyzer(AnalyzerOptions{Player: ck, Search: set, Variant: env.Blitz, Parallel: 1, Load: loadGonum})
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			res, err := a.Analyze(context.Background(), AnalysisRequest{State: s, Top: len(d.Top)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Best != d.Action || visitsOf(res.Top) != visitsOf(d.Top) {
				t.Errorf("Analyzer: best %s, top %s; the player: %s, top %s", res.Best, visitsOf(res.Top), d.Action, visitsOf(d.Top))
			}

			// the JSON analyser: the same search
			b, _ := json.Marshal(map[string]any{"id": 1, "position": s.Text(), "variant": "blitz", "top": len(d.Top)})
			byID, nulls := jsonAnswers(t, string(b)+"\n", JSONOptions{Player: ck, Search: set, Variant: env.Blitz, Parallel: 1, Load: loadGonum})
			if len(nulls) != 0 || len(byID) != 1 {
				t.Fatalf("RunJSON: %v %v", byID, nulls)
			}
			a1 := byID["1"]
			var got strings.Builder
			tops, _ := a1["top"].([]any)
			for _, x := range tops {
				tp, _ := x.(map[string]any)
				fmt.Fprintf(&got, "%v:%v ", tp["action"], tp["visits"])
			}
			if a1["best"] != d.Action.String() || got.String() != visitsOf(d.Top) {
				t.Errorf("RunJSON: best %v, top %s; the player: %s, top %s", a1["best"], got.String(), d.Action, visitsOf(d.Top))
			}

			// the engine's analyze: its searcher searches with the player's settings
			e := newEngine(t, Options{Player: ck, Search: set, Variant: env.Blitz})
			defer e.Close()
			srch, err := e.searcherFor()
			if err != nil {
				t.Fatal(err)
			}
			if want := set.Config(); srch.cfg != want {
				t.Errorf("engine analysis searches with %+v, the player with %+v", srch.cfg, want)
			}
		})
	}
}

// TestEngineGumbelMoveTime: a Gumbel engine given a move time (set movetime, GTP time_settings,
// time_left) goes through the player's search validation, mcts.Config.Validate, on every path: if
// it refuses a timed Gumbel search the command fails with its reason and the engine keeps
// searching by simulations; if it accepts it, genmove plays a legal action. It never checks the
// clock.
func TestEngineGumbelMoveTime(t *testing.T) {
	ck := checkpointFile(t)
	clock := gtpClock{Byo: 0.3, Stones: 1}
	cases := []struct {
		cmds []string
		d    time.Duration // the move time the first command asks for
	}{
		{[]string{"set movetime 200", "genmove"}, 200 * time.Millisecond},
		{[]string{"time_settings 0 0.3 1", "genmove"}, clock.perMove(0.3, 1)},
		{[]string{"time_settings 6 0 0", "time_left w 3 0", "genmove"}, gtpClock{Main: 6}.perMove(6, 0)},
	}
	for _, c := range cases {
		t.Run(c.cmds[0], func(t *testing.T) {
			e := newEngine(t, Options{Player: ck, Search: selfplay.Search{Sims: 16, Gumbel: true}, Variant: env.Blitz})
			defer e.Close()
			want := e.set
			want.MoveTime = c.d
			verr := want.Validate() // the search's own rule for a timed Gumbel search
			t.Logf("%s: %+v: validation %v", c.cmds[0], want, verr)
			a := ask(t, e, c.cmds[0])
			switch {
			case a.OK && verr != nil:
				t.Fatalf("%s accepted, but the search's validation refuses it: %v", c.cmds[0], verr)
			case !a.OK && verr == nil:
				t.Fatalf("%s refused (%s), but the search's validation accepts it", c.cmds[0], a.Text)
			case !a.OK && !strings.Contains(a.Text, strings.TrimPrefix(verr.Error(), "mcts: ")):
				t.Fatalf("%s refused with %q, not naming the search's reason %q", c.cmds[0], a.Text, verr)
			case !a.OK && e.set.MoveTime != 0:
				t.Fatalf("%s refused, but the engine's move time is now %v", c.cmds[0], e.set.MoveTime)
			case a.OK && e.set.MoveTime != c.d:
				t.Fatalf("%s: move time %v, want %v", c.cmds[0], e.set.MoveTime, c.d)
			}
			rest := c.cmds[1:]
			if !a.OK {
				rest = []string{"genmove"} // the engine searches by simulations, as before the command
			}
			for _, cmd := range rest {
				if a = ask(t, e, cmd); !a.OK {
					t.Fatalf("%s: %s", cmd, a.Text)
				}
			}
			act, err := env.ParseAction(a.Text)
			if err != nil || !env.NewState(env.Blitz).IsLegal(act) {
				t.Fatalf("genmove answered %q, not a legal first action", a.Text)
			}
		})
	}
}

// TestEngineTimedGumbelHalves: yinsh engine --gumbel, set movetime, genmove_info: the search halves
// on the clock, so its candidates' visits are far from flat. A search planned for 10,000,000
// simulations and cut off by the clock never halved: a round-robin over its 16 candidates, every
// one within a visit of the others. The check needs about 10 rounds over the candidates (the
// test logs the visits; on a machine too loaded for that it says so and checks only the memory). Whatever the load,
// the decision must not allocate the table of a plan for the 10,000,000-simulation cap.
func TestEngineTimedGumbelHalves(t *testing.T) {
	ck := checkpointFile(t)
	e := newEngine(t, Options{Player: ck, Search: selfplay.Search{Sims: 16, Gumbel: true}, Variant: env.Blitz})
	defer e.Close()
	if a := ask(t, e, "set movetime 200"); !a.OK {
		t.Fatalf("set movetime: %s (the search's validation refuses a timed Gumbel search)", a.Text)
	}
	// the same decision by a PUCT search (no halving plan) at the same move time, side by side: what
	// the search's work allocates in 200 ms grows with the machine's speed, the plan's table does not
	puct := newEngine(t, Options{Player: ck, Search: selfplay.Search{Sims: 16}, Variant: env.Blitz})
	defer puct.Close()
	if a := ask(t, puct, "set movetime 200"); !a.OK {
		t.Fatalf("set movetime (PUCT): %s", a.Text)
	}
	allocated := func(e *Engine) (string, float64) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		a := ask(t, e, "genmove_info")
		runtime.ReadMemStats(&m1)
		if !a.OK {
			t.Fatal(a.Text)
		}
		return a.Text, float64(m1.TotalAlloc-m0.TotalAlloc) / (1 << 20)
	}
	_, base := allocated(puct)
	text, mb := allocated(e)
	// the plan for 10,000,000 simulations alone was a 40 MB table, however few simulations ran
	if mb-base > 20 {
		t.Errorf("a 200 ms timed Gumbel decision allocated %.1f MB, %.1f MB more than PUCT's at the same move time: it planned for its 10,000,000-simulation cap", mb, mb-base)
	}
	t.Logf("allocated in 200 ms: Gumbel %.1f MB, PUCT %.1f MB", mb, base)
	var visits []int
	for _, line := range strings.Split(text, "\n") {
		var tok string
		var prior float64
		var v int
		if _, err := fmt.Sscanf(line, "top %s prior %f visits %d", &tok, &prior, &v); err == nil {
			visits = append(visits, v)
		}
	}
	t.Logf("top visits %v", visits)
	if len(visits) < 8 {
		t.Fatalf("%d top lines in %q", len(visits), text)
	}
	sum := 0
	for _, v := range visits {
		sum += v
	}
	if sum < 80 { // 10 rounds of a round-robin over 16 candidates give the top 8 at least 80 visits
		t.Logf("only %d visits among the top 8 in 200 ms: too few rounds to tell halving from a round-robin", sum)
		return
	}
	if hi, lo := visits[0], visits[len(visits)-1]; hi < 2*lo {
		t.Errorf("top visits %v: flat, the search did not halve", visits)
	}
}

// TestCheckpointsNeedALoader: the engine, the analyzer and the JSON analyser link no backend:
// without Options.Load a checkpoint player is refused, saying so.
func TestCheckpointsNeedALoader(t *testing.T) {
	ck := checkpointFile(t)
	if _, err := New(Options{Player: ck, Variant: env.Blitz}); err == nil || !strings.Contains(err.Error(), "no backend") {
		t.Errorf("New without Load: %v", err)
	}
	if _, err := NewAnalyzer(AnalyzerOptions{Player: ck, Variant: env.Blitz}); err == nil || !strings.Contains(err.Error(), "no backend") {
		t.Errorf("NewAnalyzer without Load: %v", err)
	}
	if err := RunJSON(context.Background(), strings.NewReader(""), new(strings.Builder), JSONOptions{Player: ck}); err == nil || !strings.Contains(err.Error(), "no backend") {
		t.Errorf("RunJSON without Load: %v", err)
	}
}
