package selfplay

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/nets"
)

// TestLevelSpecsRefused: level specs out of range or not a number are refused, the error naming
// the spec and the level field; valid ones parse.
func TestLevelSpecsRefused(t *testing.T) {
	for _, spec := range []string{"level:0", "level:11", "level:x", "level:", "level:-1", "level:3.5"} {
		_, _, err := OpenPlayer(spec, PlayerOptions{Search: Search{Sims: 4}, Variant: env.Blitz, Load: loadGonum})
		if err == nil {
			t.Errorf("%s: accepted", spec)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, spec) || !strings.Contains(msg, "level:N with N in [1, 10]") {
			t.Errorf("%s: error %q does not name the spec and the field", spec, msg)
		}
	}
	for n := 1; n <= MaxLevel; n++ {
		spec := LevelPrefix + strconv.Itoa(n)
		if got, err := ParseLevel(spec); err != nil || got != n {
			t.Errorf("ParseLevel(%s) = %d, %v", spec, got, err)
		}
	}
}

// TestLevelRecipes: ten levels in order, level 1 alone plays random moves, the top level is the full
// agent, and the levels' recipes differ.
func TestLevelRecipes(t *testing.T) {
	seen := map[string]int{}
	for i, lv := range Levels {
		if lv.N != i+1 {
			t.Errorf("Levels[%d].N = %d", i, lv.N)
		}
		if lv.N > 1 && lv.RandomRate != 0 {
			t.Errorf("level %d plays uniformly random moves", lv.N)
		}
		if lv.BlunderRate > 0 && lv.BlunderTopK < 1 {
			t.Errorf("level %d blunders among no moves", lv.N)
		}
		r := lv.Recipe()
		if j, ok := seen[r]; ok {
			t.Errorf("levels %d and %d have the same recipe %q", j, lv.N, r)
		}
		seen[r] = lv.N
	}
	if l1, l10 := Levels[0], Levels[MaxLevel-1]; l1.Recipe() == l10.Recipe() || l10.Sims != 0 || l10.Temperature != 0 || l10.BlunderRate != 0 {
		t.Errorf("level 1 %+v, level 10 %+v: want level 10 the full agent, unlike level 1", l1, l10)
	}
}

// TestLevelRatings: every level is calibrated in both variants, each rating lies inside its
// interval, and the ratings rise with the level, the first above random (0).
func TestLevelRatings(t *testing.T) {
	for _, v := range []env.Variant{env.Standard, env.Blitz} {
		prev := 0.0
		for _, lv := range Levels {
			r := lv.Rating(v)
			if !r.Known() {
				t.Errorf("%s: level %d not calibrated", v, lv.N)
				continue
			}
			if !(r.Low < r.Elo && r.Elo < r.High) {
				t.Errorf("%s: level %d: Elo %v outside its interval [%v, %v]", v, lv.N, r.Elo, r.Low, r.High)
			}
			if r.Elo <= prev {
				t.Errorf("%s: level %d: Elo %v not above the level below (%v)", v, lv.N, r.Elo, prev)
			}
			prev = r.Elo
		}
	}
	if (Rating{}).Known() || !(Rating{Elo: 1, Low: 0, High: 2}).Known() {
		t.Error("Rating.Known: want false for the zero Rating only")
	}
}

// levelGame plays one blitz game between two level players and returns its actions.
func levelGame(t *testing.T, a, b string, seed uint64) []env.Action {
	t.Helper()
	players := [2]Player{}
	for i, spec := range []string{a, b} {
		f, closer, err := OpenPlayer(spec, PlayerOptions{Search: Search{Sims: 4}, Variant: env.Blitz, Parallel: 1, Load: loadGonum})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { closer.Close() })
		if players[i], err = f(seed + uint64(i)); err != nil {
			t.Fatal(err)
		}
		if players[i].Name() != spec {
			t.Errorf("player %s is named %s", spec, players[i].Name())
		}
	}
	s := env.NewState(env.Blitz)
	var acts []env.Action
	for !s.IsTerminal() {
		if len(acts) > 600 {
			t.Fatalf("%s vs %s: no end after %d actions", a, b, len(acts))
		}
		p := players[0]
		if s.CurrentPlayer() == env.Black {
			p = players[1]
		}
		d, err := p.Decide(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyAction(d.Action); err != nil {
			t.Fatalf("%s played an illegal action %s: %v", p.Name(), d.Action, err)
		}
		acts = append(acts, d.Action)
	}
	return acts
}

// TestLevelPlaysBlitz: every level plays a legal blitz game (its simulations capped for speed).
func TestLevelPlaysBlitz(t *testing.T) {
	defer func(c int) { levelSimsCap = c }(levelSimsCap)
	levelSimsCap = 4
	for n := 1; n <= MaxLevel; n += 2 {
		a, b := LevelPrefix+strconv.Itoa(n), LevelPrefix+strconv.Itoa(n+1)
		if acts := levelGame(t, a, b, 7); len(acts) == 0 {
			t.Errorf("%s vs %s: no actions", a, b)
		}
	}
}

// TestLevelSeedsReproduce: the same seeds give the same game; another seed another game (the
// levels sample).
func TestLevelSeedsReproduce(t *testing.T) {
	defer func(c int) { levelSimsCap = c }(levelSimsCap)
	levelSimsCap = 4
	g1 := levelGame(t, "level:2", "level:5", 11)
	g2 := levelGame(t, "level:2", "level:5", 11)
	g3 := levelGame(t, "level:2", "level:5", 12)
	if tokens(g1) != tokens(g2) {
		t.Errorf("same seed, different games:\n%s\n%s", tokens(g1), tokens(g2))
	}
	if tokens(g1) == tokens(g3) {
		t.Errorf("seeds 11 and 12 play the same game %s", tokens(g1))
	}
}

// TestLevelTopIsReference: level 10 plays as the reference player with the same settings.
func TestLevelTopIsReference(t *testing.T) {
	s := env.NewState(env.Standard)
	var got [2][]env.Action
	for i, spec := range []string{"level:10", "reference"} {
		f, closer, err := OpenPlayer(spec, PlayerOptions{Search: Search{Sims: 6}, Variant: env.Standard, Parallel: 1, Load: loadGonum})
		if err != nil {
			t.Fatal(err)
		}
		p, err := f(3)
		if err != nil {
			t.Fatal(err)
		}
		st := *s
		for k := 0; k < 14; k++ {
			d, err := p.Decide(&st)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = append(got[i], d.Action)
			if err := st.ApplyAction(d.Action); err != nil {
				t.Fatal(err)
			}
		}
		closer.Close()
	}
	if tokens(got[0]) != tokens(got[1]) {
		t.Errorf("level:10 %s, reference %s", tokens(got[0]), tokens(got[1]))
	}
}

// TestLevelsLoadTheirVariantsNetwork: a level and the player reference load the reference network
// of the game's variant, each variant's its own file.
func TestLevelsLoadTheirVariantsNetwork(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	files := map[env.Variant]string{}
	for _, v := range []env.Variant{env.Standard, env.Blitz} {
		for _, spec := range []string{"level:3", "reference"} {
			var loaded string
			load := func(path string) (model.Net, error) { loaded = path; return gonum.Load(path) }
			_, closer, err := OpenPlayer(spec, PlayerOptions{Search: Search{Sims: 4}, Variant: v, Parallel: 1, Load: load})
			if err != nil {
				t.Fatalf("%s, %s: %v", spec, v, err)
			}
			closer.Close()
			h, err := model.ReadMetadata(loaded)
			if err != nil {
				t.Fatal(err)
			}
			if trained, ok := h.Meta.VariantValue(); !ok || trained != v {
				t.Errorf("%s in a %s game loaded %s, a network for %q", spec, v, loaded, h.Meta.Variant)
			}
			if f, ok := files[v]; ok && f != loaded {
				t.Errorf("%s in a %s game loaded %s, the other player %s", spec, v, loaded, f)
			}
			files[v] = loaded
		}
	}
	if files[env.Standard] == files[env.Blitz] {
		t.Errorf("both variants load %s", files[env.Standard])
	}
}

func tokens(acts []env.Action) string {
	var b strings.Builder
	for _, a := range acts {
		b.WriteString(a.String())
		b.WriteByte(' ')
	}
	return b.String()
}

// TestLevelChoose: a level's choice from a search result, for the kinds of recipe (each given here,
// not read from Levels, whose figures are tuned by calibration). A searching level without
// temperature plays the search's action; a blundering level plays only the search's choice or one of
// the top-k others by prior, never an action of low prior; a policy-only level draws from the prior;
// level 1 alone plays the other actions too (its random moves).
func TestLevelChoose(t *testing.T) {
	s := env.NewState(env.Standard)
	legal := s.LegalActions(nil)
	res := &mcts.Result{Action: legal[5]}
	for i, a := range legal {
		// priors halving with i, visits all on action 5
		c := mcts.ChildStats{Action: a, Prior: float32(math.Pow(0.5, float64(i+1)))}
		if i == 5 {
			c.Visits = 10
		}
		res.Children = append(res.Children, c)
	}
	count := func(lv Level) map[env.Action]int {
		p := &levelPlayer{lv: lv, rng: rand.New(rand.NewPCG(1, 2)), legal: legal}
		m := map[env.Action]int{}
		for k := 0; k < 2000; k++ {
			m[p.choose(res)]++
		}
		return m
	}
	if m := count(Level{N: 9, Sims: 800}); len(m) != 1 || m[legal[5]] != 2000 {
		t.Errorf("a searching level played %v, want only the search's %s", m, legal[5])
	}
	// T 0.1 on visits: action 5; blunders among the top 2 priors: 0 and 1
	m := count(Level{N: 8, Sims: 64, Temperature: 0.1, BlunderRate: 0.02, BlunderTopK: 2})
	for a, c := range m {
		if a != legal[5] && a != legal[0] && a != legal[1] {
			t.Errorf("a blundering level played %s (%d times), not the best nor a top-2 prior", a, c)
		}
	}
	if b := m[legal[0]] + m[legal[1]]; b < 10 || b > 100 {
		t.Errorf("a 2%% blundering level blundered %d times in 2000", b)
	}
	// policy-only: drawn from the prior at T 0.3 (weights 0.1^i), blunders among the top 3 others
	m = count(Level{N: 2, Sims: 1, Temperature: 0.3, BlunderRate: 0.15, BlunderTopK: 3})
	if m[legal[0]] < 1300 || m[legal[5]] > 20 {
		t.Errorf("a policy-only level played %v: want mostly the highest prior %s, rarely the searched %s", m, legal[0], legal[5])
	}
	// policy-only at temperature 0: the highest prior, whatever the search visited
	if m := count(Level{N: 2, Sims: 1}); len(m) != 1 || m[legal[0]] != 2000 {
		t.Errorf("a policy-only level at T 0 played %v, want only the highest prior %s", m, legal[0])
	}
	if m := count(Levels[0]); len(m) < len(legal)/2 {
		t.Errorf("level 1 played %d distinct actions of %d", len(m), len(legal))
	}
}

// TestTrainedVariant: reference and the levels follow the game's variant, a checkpoint says what its
// header records (the blitz reference's file, asked about a standard game, says blitz), and built-in
// players, the empty spec and an unreadable file have none.
func TestTrainedVariant(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	blitzFile, err := nets.Path(env.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec string
		want env.Variant
		ok   bool
	}{
		{"reference", env.Standard, true},
		{"level:3", env.Standard, true},
		{blitzFile, env.Blitz, true},
		{"heuristic", 0, false},
		{"random", 0, false},
		{"rollout:50", 0, false},
		{`engine:"yinsh engine"`, 0, false},
		{"", 0, false},
		{filepath.Join(t.TempDir(), "missing.ckpt"), 0, false},
	} {
		got, ok := TrainedVariant(c.spec, env.Standard)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("TrainedVariant(%q) = %v, %v; want %v, %v", c.spec, got, ok, c.want, c.ok)
		}
		if Builtin(c.spec) != (c.spec == "heuristic" || c.spec == "random" || c.spec == "rollout:50" || strings.HasPrefix(c.spec, "engine:")) {
			t.Errorf("Builtin(%q) = %v", c.spec, Builtin(c.spec))
		}
	}
}
