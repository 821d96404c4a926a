package selfplay

import (
	"context"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

func randomFactory(seed uint64) (Player, error)    { return NewRandom(seed), nil }
func heuristicFactory(seed uint64) (Player, error) { return NewHeuristic(seed), nil }

func TestHeuristicBeatsRandom(t *testing.T) {
	for _, v := range []env.Variant{env.Blitz, env.Standard} {
		res, err := Match(context.Background(), heuristicFactory, randomFactory, MatchOptions{Games: 20, Parallel: 2, Seed: 1, Variant: v})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: heuristic vs random %+v score %.2f", v, res, res.Score())
		if res.Score() < 0.85 {
			t.Errorf("%s: heuristic scores %.2f against random, want at least 0.85", v, res.Score())
		}
	}
}

func TestMatchIsReproducible(t *testing.T) {
	opts := MatchOptions{Games: 6, Parallel: 3, Seed: 9, Variant: env.Blitz}
	a, err := Match(context.Background(), randomFactory, randomFactory, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Match(context.Background(), randomFactory, randomFactory, opts)
	a.Times, b.Times = [2]MoveTimes{}, [2]MoveTimes{} // wall-clock times vary
	if a != b {
		t.Fatalf("%+v != %+v", a, b)
	}
}

// position builds position text from "X:cell cell ..." groups (X one of W B w b).
func position(t *testing.T, pieces, rest string) *env.State {
	t.Helper()
	board := []byte(strings.Repeat(".", env.NumPoints))
	var ch byte
	for _, f := range strings.Fields(pieces) {
		if len(f) > 2 && f[1] == ':' {
			ch, f = f[0], f[2:]
		}
		c, err := env.ParseCell(f)
		if err != nil {
			t.Fatal(err)
		}
		board[env.CellPoint(c)] = ch
	}
	s, err := env.ParsePosition(string(board)+" "+rest, env.Standard)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHeuristicCompletesRowAndBlocks(t *testing.T) {
	// white ring e5 between markers e3 e4 and e6 e7: any move of it off e5 completes the row e3-e7
	s := position(t, "W:e5 a2 a3 a4 a5 B:j11 k7 k8 k9 k10 w:e3 e4 e6 e7", "w 0-0")
	for seed := uint64(0); seed < 5; seed++ {
		d, err := NewHeuristic(seed).Decide(s)
		if err != nil {
			t.Fatal(err)
		}
		c := s.Clone()
		_ = c.ApplyAction(d.Action)
		if c.Phase() != env.PhaseRemoveRow {
			t.Fatalf("heuristic played %s, which does not complete the row", d.Action)
		}
	}
	// black threatens b-row f3 f4 f6 f7 with its ring on f5 (moving it off completes the row); white
	// ring e4 can jump onto... white must do something about it: its choice must leave black fewer
	// completing moves than doing nothing useful would
	s = position(t, "W:d5 a2 a3 a4 a5 B:f5 k7 k8 k9 k10 b:f3 f4 f6 f7 w:e5", "w 0-0")
	h := NewHeuristic(1)
	d, err := h.Decide(s)
	if err != nil {
		t.Fatal(err)
	}
	threats := func(s *env.State) int {
		n := 0
		for _, a := range s.LegalActions(nil) {
			c := s.Clone()
			_ = c.ApplyAction(a)
			if c.Phase() == env.PhaseRemoveRow && c.CurrentPlayer() == env.Black {
				n++
			}
		}
		return n
	}
	c := s.Clone()
	_ = c.ApplyAction(d.Action)
	minThreat := 1 << 30
	for _, a := range s.LegalActions(nil) {
		x := s.Clone()
		_ = x.ApplyAction(a)
		minThreat = min(minThreat, threats(x))
	}
	if got := threats(c); got != minThreat || got >= 4 {
		t.Fatalf("heuristic played %s leaving %d black row threats; the best leaves %d", d.Action, got, minThreat)
	}
}

func TestPlayerOptionsSearchConfig(t *testing.T) {
	def := PlayerOptions{Search: Search{Sims: 50}}.Config()
	if def.Simulations != 50 || def.LeavesInFlight != mcts.DefaultConfig().LeavesInFlight || def.Temperature != 0 || def.DirichletFraction != 0 {
		t.Fatalf("default options: %+v", def)
	}
	o := PlayerOptions{Search: Search{Sims: 50, LeavesInFlight: 1, Gumbel: true}, Parallel: 3}
	cfg := o.Config()
	if cfg.LeavesInFlight != 1 || !cfg.Gumbel || cfg.GumbelScale != 0 {
		t.Fatalf("leaves in flight 1, gumbel: %+v", cfg)
	}
	if got := o.maxBatch(cfg); got != 3 {
		t.Errorf("max batch %d, want 3 games x 1 leaf", got)
	}
	if got := (PlayerOptions{}).maxBatch(def); got != 64 {
		t.Errorf("max batch without Parallel %d, want 64", got)
	}
}
