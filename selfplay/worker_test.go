package selfplay

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

func testConfig(sims int) Config {
	sc := mcts.DefaultConfig()
	sc.Simulations = sims
	sc.DirichletFraction = 0.25
	sc.DirichletAlpha = 0.3
	return Config{Variant: env.Blitz, Search: sc, TemperatureActions: 12, Temperature: 1, TreeReuse: true, Generator: "test"}
}

// replayGame checks that a game's actions are legal, its policies sit on legal actions and sum to 1, and
// its recorded outcome is the final state's.
func replayGame(t *testing.T, g Game) {
	t.Helper()
	s := env.NewState(g.Variant)
	if len(g.Positions) != len(g.Actions) {
		t.Fatalf("game %d: %d positions for %d actions", g.Index, len(g.Positions), len(g.Actions))
	}
	for i, a := range g.Actions {
		pos := g.Positions[i]
		if len(s.LegalActions(nil)) == 1 && (pos.Full || len(pos.Policy) > 0) {
			t.Fatalf("game %d ply %d: a forced action is recorded as a training target (%+v)", g.Index, i+1, pos)
		}
		if pos.Full {
			var sum float64
			for _, e := range pos.Policy {
				if !s.IsLegal(env.Action(e.Action)) {
					t.Fatalf("game %d ply %d: policy on illegal %s", g.Index, i+1, env.Action(e.Action))
				}
				sum += float64(e.Prob)
			}
			if math.Abs(sum-1) > 1e-3 {
				t.Fatalf("game %d ply %d: policy sums to %v", g.Index, i+1, sum)
			}
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatalf("game %d ply %d: %v", g.Index, i+1, err)
		}
	}
	if g.Resigned < 0 {
		if !s.IsTerminal() || s.Outcome() != g.Outcome {
			t.Fatalf("game %d: outcome %s, final state %s (terminal %v)", g.Index, g.Outcome, s.Outcome(), s.IsTerminal())
		}
	}
}

func TestSelfplayGamesAreLegalAndComplete(t *testing.T) {
	var mu sync.Mutex
	var games []Game
	b, err := mcts.NewBatcher(mcts.Uniform{}, mcts.BatcherOptions{MaxBatch: 16, Wait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, err := Run(context.Background(), testConfig(16), b, RunOptions{Games: 8, Parallel: 4, Seed: 5, OnGame: func(g Game) error {
		mu.Lock()
		games = append(games, g)
		mu.Unlock()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Games != 8 || len(games) != 8 || st.Actions == 0 || st.Searches >= st.Actions || st.Simulations < st.Searches*16 {
		t.Fatalf("stats %+v, %d games", st, len(games))
	}
	for _, g := range games {
		replayGame(t, g)
	}
}

func TestSelfplayDeterministicPerSeed(t *testing.T) {
	cfg := testConfig(8)
	play := func(parallel int) map[int][]env.Action {
		out := map[int][]env.Action{}
		var mu sync.Mutex
		_, err := Run(context.Background(), cfg, mcts.Uniform{}, RunOptions{Games: 4, Parallel: parallel, Seed: 11, OnGame: func(g Game) error {
			mu.Lock()
			out[g.Index] = g.Actions
			mu.Unlock()
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := play(1), play(3)
	for i := 0; i < 4; i++ {
		if len(a[i]) == 0 || len(a[i]) != len(b[i]) {
			t.Fatalf("game %d differs in length: %d vs %d", i, len(a[i]), len(b[i]))
		}
		for k := range a[i] {
			if a[i][k] != b[i][k] {
				t.Fatalf("game %d differs at ply %d", i, k+1)
			}
		}
	}
}

func TestSelfplayPlayoutCapAndResignation(t *testing.T) {
	cfg := testConfig(16)
	cfg.Search.FullFraction = 0.25
	cfg.Search.FastSimulations = 4
	// a fake evaluator that thinks black is lost: black resigns once its value stays low
	ev := mcts.EvaluatorFunc(func(reqs []mcts.Request, out []mcts.Evaluation) error {
		for i, r := range reqs {
			for j := range out[i].Priors {
				out[i].Priors[j] = 1 / float32(len(r.Legal))
			}
			if r.State.CurrentPlayer() == env.Black {
				out[i].WDL = [3]float32{0, 0, 1}
			} else {
				out[i].WDL = [3]float32{1, 0, 0}
			}
		}
		return nil
	})
	cfg.ResignThreshold = -0.9
	cfg.ResignConsecutive = 2
	var games []Game
	var mu sync.Mutex
	st, err := Run(context.Background(), cfg, ev, RunOptions{Games: 6, Parallel: 2, Seed: 3, OnGame: func(g Game) error {
		mu.Lock()
		games = append(games, g)
		mu.Unlock()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	full, fast, resigned := 0, 0, 0
	for _, g := range games {
		replayGame(t, g)
		for _, p := range g.Positions {
			if p.Full {
				full++
			} else {
				fast++
				if len(p.Policy) != 0 {
					t.Fatal("fast search recorded as a target")
				}
			}
		}
		if g.Resigned == int(env.Black) {
			resigned++
			if g.Outcome != env.WhiteWins {
				t.Fatal("resignation outcome")
			}
		}
	}
	if full == 0 || fast == 0 || resigned == 0 {
		t.Fatalf("full %d fast %d resigned %d (stats %+v)", full, fast, resigned, st)
	}
}

func TestRolloutPlayerBeatsRandom(t *testing.T) {
	f, err := ParsePlayer("rollout:64", PlayerOptions{Variant: env.Blitz})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Match(context.Background(), f, randomFactory, MatchOptions{Games: 8, Parallel: 2, Seed: 4, Variant: env.Blitz})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rollout:64 vs random: %+v", res)
	if res.Score() < 0.75 {
		t.Fatalf("rollout:64 scores %.2f against random", res.Score())
	}
}

// colourChecker is a random player that fails the test if asked to move for the other colour.
type colourChecker struct {
	*Random
	t     *testing.T
	color env.Color
	moves int
}

func (c *colourChecker) Decide(s *env.State) (Decision, error) {
	if s.CurrentPlayer() != c.color {
		c.t.Errorf("opponent of colour %v asked to move for %v", c.color, s.CurrentPlayer())
	}
	c.moves++
	return c.Random.Decide(s)
}

func TestSelfplayAgainstOpponents(t *testing.T) {
	var mu sync.Mutex
	games := map[int]Game{}
	opps := map[int]*colourChecker{}
	opponent := func(i int) (Player, env.Color, error) {
		if i%3 == 2 {
			return nil, 0, nil // self-play
		}
		c := &colourChecker{Random: NewRandom(uint64(i)), t: t, color: env.Color(i % 2)}
		mu.Lock()
		opps[i] = c
		mu.Unlock()
		return c, c.color, nil
	}
	_, err := Run(context.Background(), testConfig(8), mcts.Uniform{}, RunOptions{Games: 6, Parallel: 3, Seed: 3, Opponent: opponent,
		OnGame: func(g Game) error {
			mu.Lock()
			games[g.Index] = g
			mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		g := games[i]
		replayGame(t, g)
		opp := opps[i]
		if (opp == nil) != (g.Opponent == "") {
			t.Fatalf("game %d: opponent %q recorded, player %v", i, g.Opponent, opp)
		}
		s := env.NewState(g.Variant)
		oppMoves := 0
		for k, a := range g.Actions {
			byOpp := opp != nil && s.CurrentPlayer() == opp.color
			if byOpp {
				oppMoves++
			}
			forced := len(s.LegalActions(nil)) == 1
			if p := g.Positions[k]; !forced && (p.Full == byOpp || (len(p.Policy) > 0) == byOpp) || forced && (p.Full || len(p.Policy) > 0) {
				t.Fatalf("game %d ply %d: by opponent %v, full %v, %d policy entries", i, k+1, byOpp, p.Full, len(p.Policy))
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		if opp != nil && (opp.moves != oppMoves || oppMoves == 0 || g.OpponentColor != opp.color) {
			t.Fatalf("game %d: opponent %v made %d decisions, %d actions recorded", i, g.OpponentColor, opp.moves, oppMoves)
		}
	}
}

// TestRunIndices checks that RunOptions.Indices plays exactly the games named, each as the game of
// that number plays in a run of consecutive numbers (a resumed run fills the gaps this way).
func TestRunIndices(t *testing.T) {
	cfg := testConfig(8)
	play := func(opts RunOptions) map[int]Game {
		out := map[int]Game{}
		var mu sync.Mutex
		opts.Parallel, opts.Seed = 2, 11
		opts.OnGame = func(g Game) error {
			mu.Lock()
			defer mu.Unlock()
			if _, dup := out[g.Index]; dup {
				t.Errorf("game %d played twice", g.Index)
			}
			out[g.Index] = g
			return nil
		}
		st, err := Run(context.Background(), cfg, mcts.Uniform{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if st.Games != len(out) {
			t.Fatalf("stats say %d games, %d received", st.Games, len(out))
		}
		return out
	}
	all := play(RunOptions{Games: 4, FirstIndex: 10})
	some := play(RunOptions{Games: 99, FirstIndex: 0, Indices: []int{13, 11}})
	if len(some) != 2 || some[11].Seed == 0 || some[13].Seed == 0 {
		t.Fatalf("Indices {13, 11} played games %v", keys(some))
	}
	for _, i := range []int{11, 13} {
		if some[i].Seed != all[i].Seed || some[i].Seed != GameSeed(11, i) || len(some[i].Actions) != len(all[i].Actions) {
			t.Fatalf("game %d: seed %d, %d actions; in the consecutive run seed %d, %d actions", i,
				some[i].Seed, len(some[i].Actions), all[i].Seed, len(all[i].Actions))
		}
	}
	if none := play(RunOptions{Games: 5, Indices: []int{}}); len(none) != 0 {
		t.Fatalf("empty Indices played %d games", len(none))
	}
}

func keys(m map[int]Game) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSelfplayImprovedValue: Config.ImprovedValue changes what is recorded (the Gumbel improved
// policy's value instead of the visit mean), never which actions are played.
func TestSelfplayImprovedValue(t *testing.T) {
	cfg := testConfig(24)
	cfg.Search.Gumbel = true
	cfg.Search.GumbelConsidered = 8
	cfg.Search.DirichletFraction = 0
	cfg.TemperatureActions = 0
	ev := mcts.Rollout{Playouts: 1, Seed: 3}
	play := func(improved bool) Game {
		c := cfg
		c.ImprovedValue = improved
		var g Game
		_, err := Run(context.Background(), c, ev, RunOptions{Games: 1, Parallel: 1, Seed: 7, OnGame: func(x Game) error {
			g = x
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	visits, improved := play(false), play(true)
	if len(visits.Actions) == 0 || len(visits.Actions) != len(improved.Actions) {
		t.Fatalf("%d vs %d actions", len(visits.Actions), len(improved.Actions))
	}
	differ := 0
	for i := range visits.Actions {
		if visits.Actions[i] != improved.Actions[i] {
			t.Fatalf("ply %d: %s vs %s: the recorded value changed the play", i+1, visits.Actions[i], improved.Actions[i])
		}
		a, b := visits.Positions[i].WDL, improved.Positions[i].WDL
		if s := b[0] + b[1] + b[2]; math.Abs(float64(s)-1) > 1e-4 && s != 0 {
			t.Fatalf("ply %d: improved WDL %v sums to %v", i+1, b, s)
		}
		if a != b {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("the improved value was never recorded: every position's WDL equals the visit mean's")
	}
	t.Logf("%d of %d positions record a different WDL", differ, len(visits.Actions))
}
