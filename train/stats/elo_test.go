package stats

import (
	"math"
	"testing"
)

func TestExpectedScore(t *testing.T) {
	if ExpectedScore(0) != 0.5 || math.Abs(ExpectedScore(400)-10.0/11) > 1e-15 || math.Abs(ExpectedScore(-400)-1.0/11) > 1e-15 {
		t.Errorf("E(0) %v, E(400) %v, E(-400) %v", ExpectedScore(0), ExpectedScore(400), ExpectedScore(-400))
	}
	for _, d := range []float64{-800, -35.5, 0, 1, 250} {
		if got := EloFromScore(ExpectedScore(d)); math.Abs(got-d) > 1e-9 {
			t.Errorf("EloFromScore(ExpectedScore(%v)) = %v", d, got)
		}
	}
	if !math.IsInf(EloFromScore(1), 1) || !math.IsInf(EloFromScore(0), -1) {
		t.Error("EloFromScore(1), EloFromScore(0) must be ±Inf")
	}
}

// TestEloEdgeCases pins the interval's behaviour where Fishtest's Wald interval breaks down.
func TestEloEdgeCases(t *testing.T) {
	crit := Z95 * Z95 / 2
	mustElo := func(r Results) Interval {
		t.Helper()
		iv, err := Elo(r)
		if err != nil {
			t.Fatal(err)
		}
		return iv
	}
	// no games: no information
	if iv := mustElo(Trinomial{}); iv.Value != 0 || !math.IsInf(iv.Low, -1) || !math.IsInf(iv.High, 1) {
		t.Errorf("no games: %+v, want 0 in (-Inf, +Inf)", iv)
	}
	if iv := mustElo(Pentanomial{}); !math.IsInf(iv.Low, -1) || !math.IsInf(iv.High, 1) {
		t.Errorf("no pairs: %+v", iv)
	}
	// a sweep of n games bounds the score from below only, at p = exp(-z²/(2n))
	for _, n := range []int{1, 10, 50} {
		iv := mustElo(Trinomial{Wins: n})
		want := EloFromScore(math.Exp(-crit / float64(n)))
		if !math.IsInf(iv.Value, 1) || !math.IsInf(iv.High, 1) || math.Abs(iv.Low-want) > 1e-6 {
			t.Errorf("%d-0-0: %+v, want Low %.4f, Value and High +Inf", n, iv, want)
		}
		lost := mustElo(Trinomial{Losses: n})
		if !math.IsInf(lost.Low, -1) || math.Abs(lost.High+iv.Low) > 1e-6 {
			t.Errorf("0-0-%d: %+v, want the mirror of %+v", n, lost, iv)
		}
		// the same as sweeps of pairs
		if p := mustElo(Pentanomial{4: n}); math.Abs(p.Low-iv.Low) > 1e-6 || !math.IsInf(p.High, 1) {
			t.Errorf("%d 2-0 pairs: %+v, want %+v", n, p, iv)
		}
	}
	if iv := mustElo(Trinomial{Wins: 1}); !(iv.Low > -320 && iv.Low < -300) {
		t.Errorf("one win: Low %.1f, want about -306", iv.Low)
	}
	// all draws: finite, symmetric about 0, not a point, shrinking with n; the upper score
	// bound solves -n·log(2-2p) = z²/2
	prev := math.Inf(1)
	for _, n := range []int{1, 20, 200} {
		iv := mustElo(Trinomial{Draws: n})
		want := EloFromScore(1 - math.Exp(-crit/float64(n))/2)
		if iv.Value != 0 || math.Abs(iv.High-want) > 1e-6 || math.Abs(iv.Low+iv.High) > 1e-6 || iv.High <= 0 || iv.High >= prev {
			t.Errorf("0-%d-0: %+v, want ±%.4f", n, iv, want)
		}
		prev = iv.High
	}
	if iv := mustElo(Trinomial{Draws: 20}); math.Abs(iv.High-31.904) > 1e-3 {
		t.Errorf("0-20-0: ±%.4f, want ±31.904", iv.High)
	}
	// the point estimate lies inside and the bounds are ordered
	for _, r := range []Results{Trinomial{1, 2, 3}, Pentanomial{0, 0, 1, 8, 1}, Pentanomial{1, 10, 78, 48, 13}} {
		iv := mustElo(r)
		if !(iv.Low < iv.Value && iv.Value < iv.High) {
			t.Errorf("%v: %+v", r, iv)
		}
	}
	if _, err := Elo(Trinomial{Draws: -2}); err == nil {
		t.Error("negative count: want an error")
	}
}

// TestEloMatchesFishtestForLargeSamples: with many games the profile interval is Fishtest's
// Wald interval.
func TestEloMatchesFishtestForLargeSamples(t *testing.T) {
	for _, r := range []Results{
		Pentanomial{1000, 10000, 20000, 10000, 1200},
		Pentanomial{100, 250, 300, 250, 100},
		Trinomial{Losses: 3000, Draws: 3000, Wins: 4000},
	} {
		iv, err := Elo(r)
		if err != nil {
			t.Fatal(err)
		}
		f, err := FishtestElo(r)
		if err != nil {
			t.Fatal(err)
		}
		half := (iv.High - iv.Low) / 2
		if math.Abs(iv.Value-f.Elo) > 1e-6 || math.Abs(half-f.Elo95) > 0.01*f.Elo95 {
			t.Errorf("%v: Elo %+v (±%.4f), Fishtest %.4f ± %.4f", r, iv, half, f.Elo, f.Elo95)
		}
	}
}

// TestPairsNarrowTheInterval: the same games counted in pairs give a narrower interval when the
// two games of a pair are correlated (here pairs are mostly one win and one loss: the opening
// decides).
func TestPairsNarrowTheInterval(t *testing.T) {
	var tri Trinomial
	var pen Pentanomial
	add := func(n int, a, b GameResult) {
		for range n {
			_ = tri.Add(a)
			_ = tri.Add(b)
			_ = pen.AddPair(a, b)
		}
	}
	add(100, Win, Loss)
	add(20, Win, Draw)
	add(5, Loss, Loss)
	it, err := Elo(tri)
	if err != nil {
		t.Fatal(err)
	}
	ip, err := Elo(pen)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(it.Value-ip.Value) > 1e-9 || ip.High-ip.Low >= 0.6*(it.High-it.Low) {
		t.Errorf("trinomial %v: %+v; pentanomial %v: %+v; want the same value, a much narrower interval", tri, it, pen, ip)
	}
}

func TestFishtestElo(t *testing.T) {
	// stat_util.elo clamps the score: sweeps stay finite
	f, err := FishtestElo(Trinomial{Wins: 10})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Elo-EloFromScore(1-1e-3)) > 1e-9 || f.Elo95 <= 0 || f.LOS <= 0.99 {
		t.Errorf("10-0-0: %+v", f)
	}
	f, _ = FishtestElo(Pentanomial{100, 250, 300, 250, 100})
	if math.Abs(f.Elo) > 1e-9 || math.Abs(f.LOS-0.5) > 1e-12 {
		t.Errorf("balanced: %+v", f)
	}
}

func TestNElo(t *testing.T) {
	n, err := NElo(Trinomial{})
	if err != nil || n.Value != 0 || !math.IsInf(n.Low, -1) || !math.IsInf(n.High, 1) {
		t.Errorf("no games: %+v %v", n, err)
	}
	// a trinomial without draws: t = (s-½)/sqrt(s(1-s))
	n, _ = NElo(Trinomial{Losses: 40, Wins: 60})
	// (the regularised empty draw bin moves it by 5e-6 relative)
	if want := NEloPerT * 0.1 / math.Sqrt(0.24); math.Abs(n.Value-want) > 1e-4*want || !(n.Low < n.Value && n.Value < n.High) {
		t.Errorf("60-0-40: %+v, want value %.6f", n, want)
	}
	// a pentanomial's nElo is per game: its pair t-value divided by √2
	n, _ = NElo(Pentanomial{10, 20, 40, 20, 10})
	if math.Abs(n.Value) > 1e-12 || math.Abs(n.Low+n.High) > 1e-9 {
		t.Errorf("balanced pentanomial: %+v", n)
	}
	p := Pentanomial{5, 20, 40, 25, 10}
	e, _ := EstimateScore(p, true)
	n, _ = NElo(p)
	if want := NEloPerT * (e.Mean - 0.5) / math.Sqrt(2*e.Var); math.Abs(n.Value-want) > 1e-9 {
		t.Errorf("%v: nElo %.6f, want (mean-½)/σ per game · 800/ln10 = %.6f", p, n.Value, want)
	}
}
