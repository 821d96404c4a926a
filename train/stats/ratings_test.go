package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// simulate plays games games between every two of the players rated truth (BayesElo scale) with
// drawElo and returns the matches.
func simulate(rng *rand.Rand, truth []float64, drawElo float64, games int) []Match {
	var out []Match
	for i := range truth {
		for j := i + 1; j < len(truth); j++ {
			pw, pd, _ := BayesEloProbs(truth[i]-truth[j], drawElo)
			m := Match{A: playerName(i), B: playerName(j)}
			for range games {
				switch u := rng.Float64(); {
				case u < pw:
					m.Wins++
				case u < pw+pd:
					m.Draws++
				default:
					m.Losses++
				}
			}
			out = append(out, m)
		}
	}
	return out
}

func playerName(i int) string { return string(rune('a' + i)) }

var recoveryTruth = []float64{0, 50, 120, 200, 320, 500}

// TestFitRatingsRecovery fits 3000 simulated games (200 for each of the 15 pairs of 6 players,
// drawElo 100) and checks that the fit recovers the true ratings: for one fixed seed every true
// value lies in its 95% interval and drawElo is close; over 20 seeds at least 85% of the 100
// (player, seed) intervals cover the truth.
func TestFitRatingsRecovery(t *testing.T) {
	const drawElo = 100
	covered, cases := 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		fit, err := FitRatings(simulate(rng, recoveryTruth, drawElo, 200), RatingOptions{Anchor: "a"})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range recoveryTruth[1:] {
			r, ok := fit.Rating(playerName(i + 1))
			if !ok {
				t.Fatalf("no rating for %s", playerName(i+1))
			}
			cases++
			if r.Low <= want && want <= r.High {
				covered++
			}
			if seed == 1 {
				if !(r.Low <= want && want <= r.High) {
					t.Errorf("seed 1: %s = %.1f [%.1f, %.1f] misses the true %v", r.Player, r.Elo, r.Low, r.High, want)
				}
				if w := r.High - r.Low; w <= 0 || w > 120 {
					t.Errorf("seed 1: %s interval width %.1f", r.Player, w)
				}
			}
		}
		if seed == 1 {
			if math.Abs(fit.DrawElo-drawElo) > 3*fit.DrawEloStdErr+5 {
				t.Errorf("seed 1: drawElo %.1f ± %.1f, true %v", fit.DrawElo, fit.DrawEloStdErr, drawElo)
			}
			if a, _ := fit.Rating("a"); a.Elo != 0 || a.StdErr != 0 || a.Games != 1000 {
				t.Errorf("anchor %+v, want 0 ± 0 over 1000 games", a)
			}
		}
	}
	if frac := float64(covered) / float64(cases); frac < 0.85 {
		t.Errorf("95%% intervals covered the truth in %d of %d cases (%.0f%%)", covered, cases, 100*frac)
	} else {
		t.Logf("coverage %d/%d", covered, cases)
	}
}

// TestRatingGradient checks the log-posterior's analytic gradient and Hessian against central
// finite differences.
func TestRatingGradient(t *testing.T) {
	m := &ratingModel{n: 4, anchor: 1, fitDraw: true, pairs: []pairObs{
		{i: 0, j: 1, w: 7, d: 4, l: 2},
		{i: 1, j: 2, w: 1, d: 2, l: 9},
		{i: 0, j: 3, w: 0, d: 3, l: 5},
		{i: 2, j: 3, w: 6, d: 0, l: 0},
	}}
	m.index()
	theta := []float64{130, -80, 240, 60} // r0, r2, r3, drawElo
	g := make([]float64, m.size)
	h := mat.NewSymDense(m.size, nil)
	m.eval(theta, g, h)
	const eps = 1e-3
	x := make([]float64, m.size)
	gp, gm := make([]float64, m.size), make([]float64, m.size)
	for q := range theta {
		copy(x, theta)
		x[q] = theta[q] + eps
		fp := m.eval(x, gp, nil)
		x[q] = theta[q] - eps
		fm := m.eval(x, gm, nil)
		if num := (fp - fm) / (2 * eps); math.Abs(num-g[q]) > 1e-6*math.Max(1, math.Abs(num)) {
			t.Errorf("∂f/∂θ%d = %.9g, finite differences %.9g", q, g[q], num)
		}
		for p := range theta {
			num := (gp[p] - gm[p]) / (2 * eps)
			if math.Abs(num-h.At(p, q)) > 1e-6*math.Max(1e-3, math.Abs(num)) {
				t.Errorf("∂²f/∂θ%d∂θ%d = %.9g, finite differences %.9g", p, q, h.At(p, q), num)
			}
		}
	}
	// and without drawElo (plain Bradley–Terry)
	bt := &ratingModel{n: 2, anchor: 0, pairs: []pairObs{{i: 0, j: 1, w: 3, l: 5}}}
	bt.index()
	gb := make([]float64, 1)
	bt.eval([]float64{40}, gb, nil)
	num := (bt.eval([]float64{40 + eps}, nil, nil) - bt.eval([]float64{40 - eps}, nil, nil)) / (2 * eps)
	if math.Abs(num-gb[0]) > 1e-9 {
		t.Errorf("Bradley–Terry gradient %.9g, finite differences %.9g", gb[0], num)
	}
}

// TestFitRatingsLadder: ten generations, each scoring 0.7 against the previous one (60-20-20 in
// 100 games) and 10-0 against the anchor. Ratings must rise strictly along the ladder and not
// flatten out at the top.
func TestFitRatingsLadder(t *testing.T) {
	var ms []Match
	gen := func(k int) string { return "g" + string(rune('0'+k)) }
	for k := 0; k < 10; k++ {
		ms = append(ms, Match{A: gen(k), B: "random", Wins: 10})
		if k > 0 {
			ms = append(ms, Match{A: gen(k), B: gen(k - 1), Wins: 60, Draws: 20, Losses: 20})
		}
	}
	fit, err := FitRatings(ms, RatingOptions{Anchor: "random"})
	if err != nil {
		t.Fatal(err)
	}
	var elo []float64
	for k := 0; k < 10; k++ {
		r, _ := fit.Rating(gen(k))
		elo = append(elo, r.Elo)
	}
	t.Logf("ladder: %.0f, drawElo %.0f", elo, fit.DrawElo)
	if elo[0] <= 0 {
		t.Errorf("g0 beat the anchor 10-0 but is rated %.1f", elo[0])
	}
	checkLadder(t, elo, 0.5)

	// The same ladder where only g0 played the anchor: nothing pulls the generations above it
	// toward the anchor, and every step is the link's own difference, 60-20-20 being
	// 200·log10(6) = 155.6 on BayesElo's scale (stat_util.proba_to_bayeselo), shrunk a little by
	// the link's 2 virtual draws. The old prior, a virtual draw of every player against the
	// anchor, compressed these steps more and more toward the top.
	ms = ms[:0]
	ms = append(ms, Match{A: gen(0), B: "random", Wins: 10})
	for k := 1; k < 10; k++ {
		ms = append(ms, Match{A: gen(k), B: gen(k - 1), Wins: 60, Draws: 20, Losses: 20})
	}
	if fit, err = FitRatings(ms, RatingOptions{Anchor: "random"}); err != nil {
		t.Fatal(err)
	}
	elo = elo[:0]
	for k := 0; k < 10; k++ {
		r, _ := fit.Rating(gen(k))
		elo = append(elo, r.Elo)
	}
	t.Logf("chain ladder: %.0f, drawElo %.0f", elo, fit.DrawElo)
	checkLadder(t, elo, 0.98)
	for k := 1; k < 10; k++ {
		if step := elo[k] - elo[k-1]; step < 140 || step > 156 {
			t.Errorf("chain ladder step %d is %.1f, want about 155.6 (a little less)", k, step)
		}
	}
}

// checkLadder checks that the ratings rise strictly, every step at least minRatio of the largest.
func checkLadder(t *testing.T, elo []float64, minRatio float64) {
	t.Helper()
	if elo[0] <= 0 {
		t.Errorf("g0 beat the anchor 10-0 but is rated %.1f", elo[0])
	}
	var largest float64
	for k := 1; k < len(elo); k++ {
		largest = math.Max(largest, elo[k]-elo[k-1])
	}
	for k := 1; k < len(elo); k++ {
		step := elo[k] - elo[k-1]
		if step <= 0 {
			t.Errorf("g%d (%.1f) is not above g%d (%.1f)", k, elo[k], k-1, elo[k-1])
		}
		if step < minRatio*largest {
			t.Errorf("the ladder flattens: step %d is %.1f, the largest %.1f", k, step, largest)
		}
	}
}

// TestFitRatingsChain: a player that beat the anchor 10-0 and one that also beat the first 10-0
// get different ratings (the old prior of one virtual draw against the anchor rated them alike).
func TestFitRatingsChain(t *testing.T) {
	fit, err := FitRatings([]Match{
		{A: "p1", B: "random", Wins: 10},
		{A: "p2", B: "random", Wins: 10},
		{A: "p2", B: "p1", Wins: 10},
	}, RatingOptions{Anchor: "random"})
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := fit.Rating("p1")
	p2, _ := fit.Rating("p2")
	t.Logf("p1 %.1f [%.1f, %.1f], p2 %.1f [%.1f, %.1f], drawElo %.1f", p1.Elo, p1.Low, p1.High, p2.Elo, p2.Low, p2.High, fit.DrawElo)
	if !(p1.Elo > 0 && p2.Elo > p1.Elo+50) {
		t.Errorf("p1 %.1f, p2 %.1f: want 0 < p1 < p2", p1.Elo, p2.Elo)
	}
	if !(p1.Low > 0 && p1.High < math.Inf(1)) {
		t.Errorf("p1 interval [%.1f, %.1f] should be finite and above 0", p1.Low, p1.High)
	}
	if fit.Ratings[0].Player != "p2" || fit.Ratings[2].Player != "random" {
		t.Errorf("order %v: want highest first", fit.Ratings)
	}
}

// TestFitRatingsSymmetry: players with mirrored results get equal (or opposite) ratings.
func TestFitRatingsSymmetry(t *testing.T) {
	fit, err := FitRatings([]Match{
		{A: "a", B: "x", Wins: 6, Draws: 2, Losses: 2},
		{A: "x", B: "b", Wins: 2, Draws: 2, Losses: 6}, // b's view: 6-2-2, as a's
		{A: "a", B: "b", Wins: 3, Draws: 4, Losses: 3},
		{A: "c", B: "x", Wins: 2, Draws: 2, Losses: 6}, // mirror of a
		{A: "d", B: "x", Wins: 5, Draws: 0, Losses: 5},
	}, RatingOptions{Anchor: "x"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fit.Rating("a")
	b, _ := fit.Rating("b")
	c, _ := fit.Rating("c")
	d, _ := fit.Rating("d")
	if math.Abs(a.Elo-b.Elo) > 1e-6 || math.Abs(a.StdErr-b.StdErr) > 1e-6 {
		t.Errorf("a %+v and b %+v should be rated alike", a, b)
	}
	if a.Elo <= 0 || c.Elo >= 0 || math.Abs(d.Elo) > 1e-6 {
		t.Errorf("a %.3f > 0 > c %.3f, d %.3f = 0 expected", a.Elo, c.Elo, d.Elo)
	}
	// a, c mirror each other except that a also played b; alone they mirror exactly
	fit2, err := FitRatings([]Match{
		{A: "a", B: "x", Wins: 6, Draws: 2, Losses: 2},
		{A: "c", B: "x", Wins: 2, Draws: 2, Losses: 6},
	}, RatingOptions{Anchor: "x"})
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := fit2.Rating("a")
	c2, _ := fit2.Rating("c")
	if math.Abs(a2.Elo+c2.Elo) > 1e-6 {
		t.Errorf("mirrored players rated %.6f and %.6f", a2.Elo, c2.Elo)
	}
}

// TestFitRatingsNoDraws: without draws (and with the prior) drawElo is small; with no prior it
// is plain Bradley–Terry, whose rating for w-l is 400·log10(w/l).
func TestFitRatingsNoDraws(t *testing.T) {
	fit, err := FitRatings([]Match{{A: "a", B: "b", Wins: 30, Losses: 10}}, RatingOptions{Anchor: "b", VirtualDraws: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fit.Rating("a")
	if want := 400 * math.Log10(3); math.Abs(a.Elo-want) > 1e-6 || fit.DrawElo != 0 || fit.Scale != 1 {
		t.Errorf("a = %.6f (drawElo %v, scale %v), want %.6f, 0, 1", a.Elo, fit.DrawElo, fit.Scale, want)
	}
	// standard error of the logit: sqrt(1/w + 1/l)/k
	if want := math.Sqrt(1.0/30+1.0/10) / kElo; math.Abs(a.StdErr-want) > 1e-6 {
		t.Errorf("stderr %.6f, want %.6f", a.StdErr, want)
	}
	_, err = FitRatings([]Match{{A: "a", B: "b", Wins: 3}, {A: "c", B: "b", Wins: 1, Losses: 1}}, RatingOptions{Anchor: "b", VirtualDraws: -1})
	if err == nil || !strings.Contains(err.Error(), "ratings of a are infinite") {
		t.Errorf("a sweep without a prior has no finite maximum: error %v", err)
	}
}

func TestFitRatingsErrors(t *testing.T) {
	ok := []Match{{A: "a", B: "b", Wins: 1, Losses: 1}}
	for _, c := range []struct {
		name string
		ms   []Match
		opt  RatingOptions
		want string
	}{
		{"no results", nil, RatingOptions{Anchor: "a"}, "no match"},
		{"no anchor", ok, RatingOptions{}, "anchor"},
		{"negative", []Match{{A: "a", B: "b", Wins: -1}}, RatingOptions{Anchor: "a"}, "negative"},
		{"self", []Match{{A: "a", B: "a", Wins: 1}}, RatingOptions{Anchor: "a"}, "itself"},
		{"empty name", []Match{{A: "", B: "a", Wins: 1}}, RatingOptions{Anchor: "a"}, "empty"},
		{"anchor absent", ok, RatingOptions{Anchor: "random"}, `"random"`},
		{"anchor without games", []Match{{A: "a", B: "b", Wins: 1}, {A: "r", B: "a"}}, RatingOptions{Anchor: "r"}, `"r" has no games`},
		{"disconnected", []Match{{A: "a", B: "b", Wins: 1}, {A: "c", B: "d", Wins: 2}}, RatingOptions{Anchor: "a"}, "c, d"},
		{"all draws", []Match{{A: "a", B: "b", Draws: 4}}, RatingOptions{Anchor: "a"}, "drawn"},
	} {
		_, err := FitRatings(c.ms, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestBayesEloProbs(t *testing.T) {
	w, d, l := BayesEloProbs(0, 0)
	if w != 0.5 || d != 0 || l != 0.5 {
		t.Errorf("Δ=0, drawElo=0: %v %v %v", w, d, l)
	}
	w, d, l = BayesEloProbs(120, 80)
	if math.Abs(w+d+l-1) > 1e-15 || d <= 0 || w <= l {
		t.Errorf("Δ=120, drawElo=80: %v %v %v", w, d, l)
	}
	// the stable log P(draw) of pairLogLik agrees with the direct one
	if got := pairLogLik(120, 80, 0, 1, 0).f; math.Abs(got-math.Log(d)) > 1e-12 {
		t.Errorf("log P(draw) %v, direct %v", got, math.Log(d))
	}
}

func TestFitRatingsFallbackFixesDrawElo(t *testing.T) {
	ms := []Match{{A: "x", B: "random", Wins: 4}}
	if _, err := FitRatings(ms, RatingOptions{Anchor: "random"}); err == nil {
		t.Fatal("a lone sweep has no finite drawElo, yet the fit succeeded")
	}
	fit, fixed, err := FitRatingsFallback(ms, RatingOptions{Anchor: "random"})
	if err != nil || !fixed {
		t.Fatalf("fallback: %v (fixed %v)", err, fixed)
	}
	r, _ := fit.Rating("x")
	if !(r.Elo > 0 && r.Low < r.Elo && r.High > r.Elo) || math.IsInf(r.High, 0) || fit.DrawElo <= 0 {
		t.Fatalf("rating %+v drawElo %g", r, fit.DrawElo)
	}
	// with wins and losses the fitted drawElo is used, not the fallback
	fit, fixed, err = FitRatingsFallback([]Match{{A: "x", B: "random", Wins: 6, Draws: 2, Losses: 3}}, RatingOptions{Anchor: "random"})
	if err != nil || fixed {
		t.Fatalf("ordinary fit: %v (fixed %v)", err, fixed)
	}
	if _, err := FitRatings(ms, RatingOptions{Anchor: "random", FixDrawElo: true, DrawElo: -1}); err == nil {
		t.Fatal("negative fixed drawElo accepted")
	}
}
