package stats

import (
	"math"
	"strings"
	"testing"
)

func TestRegularize(t *testing.T) {
	got := Regularize([]int{0, 3, 0})
	if got[0] != 1e-3 || got[1] != 3 || got[2] != 1e-3 {
		t.Errorf("Regularize = %v", got)
	}
}

func TestEstimateScore(t *testing.T) {
	// 3-2-1 (W-D-L): mean (3 + 1)/6, values 1, ½, 0
	e, err := EstimateScore(Trinomial{Losses: 1, Draws: 2, Wins: 3}, false)
	if err != nil {
		t.Fatal(err)
	}
	mean := 4.0 / 6
	v := (3*(1-mean)*(1-mean) + 2*(0.5-mean)*(0.5-mean) + mean*mean) / 6
	if e.N != 6 || math.Abs(e.Mean-mean) > 1e-15 || math.Abs(e.Var-v) > 1e-15 || math.Abs(e.StdErr()-math.Sqrt(v/6)) > 1e-15 {
		t.Errorf("3-2-1: %+v, want N 6 mean %v var %v", e, mean, v)
	}
	// a pentanomial's sample is the pair's average score per game
	e, err = EstimateScore(Pentanomial{0, 0, 2, 0, 2}, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.N != 4 || e.Mean != 0.75 || e.Var != 0.0625 {
		t.Errorf("[0 0 2 0 2]: %+v, want N 4 mean 0.75 var 0.0625", e)
	}
	// regularised: the empty bins count 1e-3
	e, err = EstimateScore(Trinomial{Wins: 10}, true)
	if err != nil {
		t.Fatal(err)
	}
	if e.N != 10.002 || !(e.Mean < 1 && e.Var > 0) {
		t.Errorf("10-0-0 regularised: %+v", e)
	}
	if e, _ := EstimateScore(Trinomial{}, false); e.N != 0 || !math.IsNaN(e.Mean) {
		t.Errorf("no games: %+v", e)
	}
	if _, err := EstimateScore(Trinomial{Wins: -1}, false); err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
		t.Errorf("negative count: error %v", err)
	}
	if _, err := EstimateScore(nil, false); err == nil {
		t.Error("nil results: want an error")
	}
	if _, err := EstimateScore(badResults{1, 2}, false); err == nil {
		t.Error("2 bins: want an error")
	}
}

type badResults []int

func (b badResults) Counts() []int { return b }

// TestConstrainedMLE checks the maximum-likelihood distribution behind profile: it has the
// required mean, sums to 1, and no other distribution with that mean is more likely.
func TestConstrainedMLE(t *testing.T) {
	s, _ := newSample(Pentanomial{3, 7, 12, 9, 4}, false)
	for _, p := range []float64{0.2, 0.45, 0.53, 0.9} {
		b := make([]float64, 5)
		for i := range b {
			b[i] = s.a[i] - p
		}
		x, h := maxDual(s.n, b)
		q := make([]float64, 5)
		var sum, mean, ll, llHat float64
		for i := range q {
			q[i] = s.n[i] / s.total / (1 + x*b[i])
			sum += q[i]
			mean += q[i] * s.a[i]
			ll += s.n[i] * math.Log(q[i])
			llHat += s.n[i] * math.Log(s.n[i]/s.total)
		}
		if math.Abs(sum-1) > 1e-12 || math.Abs(mean-p) > 1e-12 || math.Abs(llHat-ll-h) > 1e-9 {
			t.Errorf("p=%v: sum %v mean %v, ratio %v vs %v", p, sum, mean, llHat-ll, h)
		}
		// moving mass along a direction that keeps the mean lowers the likelihood
		dir := []float64{1, -2, 1, 0, 0} // Σ dir = 0, Σ dir·a = 0
		for _, eps := range []float64{1e-4, -1e-4} {
			var l2 float64
			for i := range q {
				l2 += s.n[i] * math.Log(q[i]+eps*dir[i])
			}
			if l2 > ll {
				t.Errorf("p=%v: a perturbed distribution is more likely (%v > %v)", p, l2, ll)
			}
		}
	}
	// with empty bins the optimum can sit on the boundary: one win, mean p < 1 is best reached
	// with the rest of the mass on a loss, likelihood ratio log(1/p)
	s, _ = newSample(Trinomial{Wins: 1}, false)
	if got := s.profile(0.25); math.Abs(got-math.Log(4)) > 1e-12 {
		t.Errorf("1-0-0 at p=0.25: %v, want log 4", got)
	}
	// all draws: mean p > ½ needs wins, 2p−1 of them at the best, likelihood ratio -N·log(2−2p)
	s, _ = newSample(Trinomial{Draws: 20}, false)
	if got, want := s.profile(0.6), -20*math.Log(0.8); math.Abs(got-want) > 1e-12 {
		t.Errorf("0-20-0 at p=0.6: %v, want %v", got, want)
	}
}
