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
