package train

import (
	"math"
	"testing"
)

func TestEloDiff(t *testing.T) {
	if e := EloDiff(50, 0, 50); math.Abs(e.Value) > 1e-9 || e.Low >= 0 || e.High <= 0 {
		t.Fatalf("even match: %+v", e)
	}
	// 75% score is +190.8 Elo
	if e := EloDiff(75, 0, 25); math.Abs(e.Value-190.85) > 0.1 || e.Low > e.Value || e.High < e.Value {
		t.Fatalf("75%%: %+v", e)
	}
	// more games, narrower interval
	a, b := EloDiff(30, 10, 20), EloDiff(300, 100, 200)
	if b.High-b.Low >= a.High-a.Low {
		t.Fatal("interval does not shrink with games")
	}
	// a clean sweep has a finite lower bound: Wilson's, n/(n+z²) = 0.963 for 100 games, +566 Elo
	if e := EloDiff(100, 0, 0); !math.IsInf(e.Value, 1) || math.Abs(e.Low-566.2) > 0.5 || !math.IsInf(e.High, 1) {
		t.Fatalf("100-0-0: %+v", e)
	}
	if e := EloDiff(0, 0, 100); math.Abs(e.High+566.2) > 0.5 || !math.IsInf(e.Low, -1) {
		t.Fatalf("0-0-100: %+v", e)
	}
	// away from the edges it agrees with the normal approximation: 75-0-25 is [+119.2, +281.5] there
	if e := EloDiff(75, 0, 25); math.Abs(e.Low-119.2) > 15 || math.Abs(e.High-281.5) > 15 {
		t.Fatalf("75-0-25 far from the normal approximation: %+v", e)
	}
	// draws narrow the interval: the same score from draws is less uncertain than from wins and losses
	if wl, dr := EloDiff(30, 0, 30), EloDiff(15, 30, 15); dr.High-dr.Low >= wl.High-wl.Low {
		t.Fatalf("draws do not narrow the interval: %+v vs %+v", dr, wl)
	}
	// the bounds solve the defining equation
	for _, r := range [][3]int{{30, 10, 20}, {3, 1, 0}, {0, 5, 1}} {
		e := EloDiff(r[0], r[1], r[2])
		n := float64(r[0] + r[1] + r[2])
		sc := (float64(r[0]) + 0.5*float64(r[1])) / n
		for _, x := range []float64{e.Low, e.High} {
			if math.IsInf(x, 0) {
				continue
			}
			p := ExpectedScore(x)
			lhs, rhs := (sc-p)*(sc-p), 1.96*1.96/n*(p*(1-p)-float64(r[1])/n/4)
			if math.Abs(lhs-rhs) > 1e-9 {
				t.Fatalf("%v: bound %.1f does not solve the equation (%g vs %g)", r, x, lhs, rhs)
			}
		}
	}
	if ExpectedScore(EloFromScore(0.3)) < 0.2999 || ExpectedScore(EloFromScore(0.3)) > 0.3001 {
		t.Fatal("score/elo round trip")
	}
}

func TestSPRT(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05}
	if v := s.Verdict(10, 5, 10); v != Continue {
		t.Fatalf("small even sample: %s", v)
	}
	if v := s.Verdict(300, 100, 100); v != AcceptH1 {
		t.Fatalf("clearly stronger: %s", v)
	}
	if v := s.Verdict(100, 100, 300); v != AcceptH0 {
		t.Fatalf("clearly weaker: %s", v)
	}
}

func TestFitRatingsRecoversTruth(t *testing.T) {
	// expected results between three players at 0, 200, 400 Elo, 1000 games per pair
	truth := map[string]float64{"random": 0, "b": 200, "c": 400}
	var res []Result
	pairs := [][2]string{{"b", "random"}, {"c", "b"}, {"c", "random"}}
	for _, p := range pairs {
		s := ExpectedScore(truth[p[0]] - truth[p[1]])
		w := int(math.Round(1000 * s))
		res = append(res, Result{A: p[0], B: p[1], Wins: w, Losses: 1000 - w})
	}
	rs, err := FitRatings(res, "random")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if math.Abs(r.Elo.Value-truth[r.Player]) > 10 {
			t.Errorf("%s: %.1f, want %.0f", r.Player, r.Elo.Value, truth[r.Player])
		}
		if r.Player != "random" && (r.Elo.Low > truth[r.Player] || r.Elo.High < truth[r.Player]) {
			t.Errorf("%s: interval %+v misses %.0f", r.Player, r.Elo, truth[r.Player])
		}
	}
	if rs[0].Player != "c" {
		t.Fatalf("order %+v", rs)
	}
	// a player that always wins still gets a finite rating
	rs, err = FitRatings([]Result{{A: "x", B: "random", Wins: 20}}, "random")
	if err != nil || math.IsInf(rs[0].Elo.Value, 0) || rs[0].Elo.Value < 200 {
		t.Fatalf("all wins: %+v %v", rs, err)
	}
	if _, err := FitRatings([]Result{{A: "x", B: "y", Wins: 1}}, "random"); err == nil {
		t.Fatal("no anchor results accepted")
	}
}
