package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/train"
)

func writePool(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.pool")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadPool: the header, compute "-", specs with spaces, relative checkpoints read from the
// pool file's directory; bad lines are refused with the file and line named.
func TestReadPool(t *testing.T) {
	path := writePool(t, "# a pool\nunit: self-play games\n\na tiny 960 runs/x/gen-0010.ckpt\nref - - reference\ne - - engine:\"prog --flag x\"\n")
	p, err := readPool(path)
	if err != nil {
		t.Fatal(err)
	}
	if p.Unit != "self-play games" || len(p.Entries) != 3 {
		t.Fatalf("unit %q, %d entries", p.Unit, len(p.Entries))
	}
	a, ref, e := p.Entries[0], p.Entries[1], p.Entries[2]
	if !a.HasCompute || a.Compute != 960 || a.Net != "tiny" || a.Player != filepath.Join(filepath.Dir(path), "runs/x/gen-0010.ckpt") || a.Line != 4 {
		t.Errorf("checkpoint entry %+v", a)
	}
	if ref.HasCompute || ref.Player != "reference" || e.Spec != `engine:"prog --flag x"` || e.Player != e.Spec {
		t.Errorf("anchor entries %+v %+v", ref, e)
	}
	if got := p.defaultAnchor().Label; got != "ref" {
		t.Errorf("default anchor %s, want ref", got)
	}
	for _, c := range []struct{ text, want string }{
		{"a tiny 1 random\n", "line 1: want the header \"unit: UNIT\""},
		{"unit: m\na tiny 1\n", "line 2: want \"label net_size compute SPEC\""},
		{"unit: m\na tiny 0 random\nb - - random\n", "line 2: compute \"0\""},
		{"unit: m\na tiny x random\nb - - random\n", "line 2: compute \"x\""},
		{"unit: m\na - - random\na - - heuristic\n", "line 3: label \"a\" already on line 2"},
		{"unit: m\na@1 - - random\nb - - heuristic\n", "line 2: label \"a@1\""},
		{"unit: m\na - - random\n", "1 players"},
		{"# nothing\n", "no header"},
	} {
		_, err := readPool(writePool(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.pool") {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// TestSchedulePrefersTheAnchorsThinPairs: when the pairs around the anchor have few games and the
// others many, the next games go to the anchor's pairs, which narrow every interval (relative to the
// anchor); a pair with many games already is not picked first. And an unplayed pair comes first.
func TestSchedulePrefersTheAnchorsThinPairs(t *testing.T) {
	names := []string{"anchor", "b", "c"}
	rs := []train.Rating{
		{Player: "anchor"},
		{Player: "b", Elo: train.Interval{Value: 0, Low: -200, High: 200}},
		{Player: "c", Elo: train.Interval{Value: 0, Low: -200, High: 200}},
	}
	games := map[pairKey]int{keyOf("anchor", "b"): 2, keyOf("anchor", "c"): 2, keyOf("b", "c"): 200}
	got := schedule(names, rs, games, "anchor", 50, 1)
	if len(got) != 1 || got[0].I != 0 {
		t.Errorf("picked %+v, want a pair with the anchor", got)
	}
	games = map[pairKey]int{keyOf("anchor", "b"): 200, keyOf("anchor", "c"): 200}
	got = schedule(names, rs, games, "anchor", 50, 3)
	if len(got) != 3 || got[0].I != 1 || got[0].J != 2 || got[0].K != 0 {
		t.Errorf("picked %+v, want b–c (never played) first", got)
	}
}

// TestPairSeed: a pair's game pairs get distinct seeds, the same on every run.
func TestPairSeed(t *testing.T) {
	seen := map[uint64]bool{}
	for k := range 50 {
		s := pairSeed(1, "a", "b", k)
		if seen[s] || s != pairSeed(1, "a", "b", k) {
			t.Fatalf("seed %d repeats or varies", k)
		}
		seen[s] = true
	}
	if pairSeed(1, "a", "b", 0) == pairSeed(2, "a", "b", 0) || pairSeed(1, "a", "b", 0) == pairSeed(1, "a", "c", 0) {
		t.Error("seed ignores the base seed or the players")
	}
}

// TestPerDoublingAndBudgets: the slope of a line is found; budgets pick the first generation at or
// past them.
func TestPerDoublingAndBudgets(t *testing.T) {
	c := curve{Net: "x"}
	for _, p := range []struct{ c, elo float64 }{{25, 100}, {50, 160}, {200, 280}} {
		c.Points = append(c.Points, rated{entry: entry{Compute: p.c, HasCompute: true}, Rating: train.Rating{Elo: train.Interval{Value: p.elo}}})
	}
	if s, ok := perDoubling(c); !ok || s < 59.99 || s > 60.01 {
		t.Errorf("slope %g %v, want 60", s, ok)
	}
	if _, ok := perDoubling(curve{Points: c.Points[:1]}); ok {
		t.Error("a slope from one point")
	}
	ms := []train.Metrics{{Generation: 1, Elapsed: 120}, {Generation: 2, Elapsed: 120}, {Generation: 3, Elapsed: 120}}
	pts := cumulative(ms, "minutes", 10)
	if p, ok := pick(pts, 13); !ok || p.Gen != 2 || p.Compute != 14 {
		t.Errorf("13 minutes: %+v %v, want gen 2 at 14", p, ok)
	}
	if _, ok := pick(pts, 17); ok {
		t.Error("a budget past the run was picked")
	}
}

// simulatePool plays a simulated pool like the blitz study's (9 players from 0 to +666 Elo, the
// anchor at 0): a round robin of 4 games a pair, then game pairs picked by sched (one at a time, the
// ratings refitted after each, as poolRun does) with outcomes drawn from the logistic model, until
// budget games; it returns the widest half-interval at the end.
func simulatePool(t *testing.T, q float64, budget int, seed uint64) float64 {
	t.Helper()
	names := []string{"heur", "rollout", "t5", "t12", "t30", "c5", "c12", "c30", "t60"}
	truth := []float64{0, 421, 251, 293, 531, 69, 164, 184, 666}
	rng := rand.New(rand.NewPCG(seed, 1))
	games := map[pairKey]int{}
	var res []train.Result
	playPair := func(i, j int) {
		p := 1 / (1 + math.Pow(10, (truth[j]-truth[i])/400))
		w := 0
		for range 2 {
			if rng.Float64() < p {
				w++
			}
		}
		var pairs [5]int
		pairs[2*w]++
		res = append(res, train.Result{A: names[i], B: names[j], Wins: w, Losses: 2 - w, Pairs: &pairs})
		games[keyOf(names[i], names[j])] += 2
	}
	total := 0
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			playPair(i, j)
			playPair(i, j)
			total += 4
		}
	}
	for {
		rs, err := train.FitRatings(res, "heur")
		if err != nil {
			t.Fatal(err)
		}
		widest := 0.0
		for _, r := range rs {
			if r.Player != "heur" {
				widest = max(widest, halfWidth(r))
			}
		}
		if total >= budget {
			return widest
		}
		for _, jb := range scheduleWeighted(names, rs, games, "heur", 50, 1, q) {
			playPair(jb.I, jb.J)
			total += 2
		}
	}
}

// TestScheduleNarrowsTheWidest: on the simulated pool, weighting towards the widest interval
// (widestPower) leaves it narrower after the same games than the plain sum of variances (q = 1),
// which spends them on the anchor's lopsided pairs (the blitz study's ±73 at 1,400 games).
func TestScheduleNarrowsTheWidest(t *testing.T) {
	var plain, widest float64
	for seed := uint64(1); seed <= 3; seed++ {
		plain += simulatePool(t, 1, 1000, seed)
		widest += simulatePool(t, widestPower, 1000, seed)
	}
	t.Logf("widest half-interval after 1,000 games, mean of 3 seeds: q=1 ±%.1f, q=%d ±%.1f", plain/3, widestPower, widest/3)
	if widest >= plain {
		t.Errorf("q=%d left ±%.1f, no narrower than q=1's ±%.1f", widestPower, widest/3, plain/3)
	}
}
