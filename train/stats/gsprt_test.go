package stats

import (
	"math"
	"strings"
	"testing"
)

var gsprt030 = GSPRT{Elo0: 0, Elo1: 30, Alpha: 0.05, Beta: 0.05}

func decide(t *testing.T, g GSPRT, r Results) Decision {
	t.Helper()
	d, err := g.Test(r)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestBounds(t *testing.T) {
	lo, hi := gsprt030.Bounds()
	if math.Abs(lo-math.Log(0.05/0.95)) > 1e-15 || math.Abs(hi-math.Log(0.95/0.05)) > 1e-15 || math.Abs(hi-2.944438979) > 1e-9 {
		t.Errorf("bounds %v, %v", lo, hi)
	}
	lo, hi = GSPRT{Alpha: 0.01, Beta: 0.1}.Bounds()
	if math.Abs(lo-math.Log(0.1/0.99)) > 1e-15 || math.Abs(hi-math.Log(0.9/0.01)) > 1e-15 {
		t.Errorf("asymmetric bounds %v, %v", lo, hi)
	}
}

// TestGSPRTNoPrematureVerdict: small and one-sided samples must not decide the test. (The old
// normal approximation with a variance floor gave LLR +20,606 after one win.)
func TestGSPRTNoPrematureVerdict(t *testing.T) {
	for _, r := range []Results{
		Trinomial{Wins: 1}, Trinomial{Wins: 10}, Trinomial{Draws: 1}, Trinomial{Losses: 1},
		Trinomial{Wins: 3, Draws: 2, Losses: 1}, Trinomial{},
		Pentanomial{4: 1}, Pentanomial{4: 10}, Pentanomial{2: 1}, Pentanomial{0: 1},
	} {
		d := decide(t, gsprt030, r)
		if d.Verdict != Continue || math.Abs(d.LLR) > 1 {
			t.Errorf("%v: %+v, want continue with a small LLR", r, d)
		}
	}
	// one win is worth log(s1/s0) at most
	d := decide(t, gsprt030, Trinomial{Wins: 1})
	if max := math.Log(ExpectedScore(30) / 0.5); d.LLR <= 0 || d.LLR > max+1e-3 {
		t.Errorf("one win: LLR %v, want in (0, %v]", d.LLR, max)
	}
	// all draws never support H1 (their score is exactly s0)
	for _, n := range []int{1, 5, 20, 100, 1000, 10000} {
		for _, r := range []Results{Trinomial{Draws: n}, Pentanomial{2: n}} {
			if d := decide(t, gsprt030, r); d.Verdict == AcceptH1 || d.LLR > 0 {
				t.Errorf("%v: %+v: draws must not support H1", r, d)
			}
		}
	}
	if d := decide(t, gsprt030, Trinomial{Draws: 1000}); d.Verdict != AcceptH0 {
		t.Errorf("1000 draws: %+v, want H0 (elo 0 < 30)", d)
	}
}

// TestGSPRTStraightWins: a run of wins accepts H1 only once n·log(s1/s0) passes the bound.
func TestGSPRTStraightWins(t *testing.T) {
	_, hi := gsprt030.Bounds()
	want := int(math.Ceil(hi / math.Log(ExpectedScore(30)/0.5))) // 36
	first := 0
	for n := 1; n <= 60 && first == 0; n++ {
		if decide(t, gsprt030, Trinomial{Wins: n}).Verdict == AcceptH1 {
			first = n
		}
	}
	if first < want || first > want+1 {
		t.Errorf("H1 first accepted after %d straight wins, want %d", first, want)
	}
	// straight losses accept H0 sooner: each is worth log((1-s0)/(1-s1))
	if d := decide(t, gsprt030, Trinomial{Losses: 40}); d.Verdict != AcceptH0 {
		t.Errorf("40 losses: %+v", d)
	}
}

// TestGSPRTLargeSamples: the exact LLR approaches the normal approximation
// N·(s1-s0)·(2s-s0-s1)/(2·var) for large samples whose score is near s0 and s1, and decides.
func TestGSPRTLargeSamples(t *testing.T) {
	for _, c := range []struct {
		r          Results
		elo0, elo1 float64
		verdict    Verdict
	}{
		{Pentanomial{1000, 10000, 20000, 10000, 1200}, 0, 5, AcceptH0},
		{Pentanomial{1000, 10000, 20000, 10000, 1200}, -3, 1, AcceptH1},
		{Pentanomial{10789, 19328, 33806, 19402, 10543}, -3, 1, Continue},
		{Pentanomial{100, 250, 300, 250, 100}, 0, 5, Continue},
		{Trinomial{Losses: 13624, Draws: 34333, Wins: 13543}, -3, 1, Continue},
	} {
		g := GSPRT{Elo0: c.elo0, Elo1: c.elo1, Alpha: 0.05, Beta: 0.05}
		d := decide(t, g, c.r)
		approx, err := LLRNormalApprox(c.r, c.elo0, c.elo1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(d.LLR-approx) > 0.01*math.Max(math.Abs(approx), 1) || d.Verdict != c.verdict {
			t.Errorf("%v [%v, %v]: LLR %.4f (%s), approximation %.4f, want within 1%% and %s", c.r, c.elo0, c.elo1, d.LLR, d.Verdict, approx, c.verdict)
		}
	}
	// For one distribution scaled up, with hypotheses a fixed number of standard errors from
	// its Elo (so that the LLR stays of order 1), the relative gap shrinks like 1/sqrt(N).
	base := Pentanomial{20, 150, 400, 500, 300} // +120 Elo, skewed
	prevGap := math.Inf(1)
	for _, m := range []int{1, 10, 100, 1000} {
		var p Pentanomial
		for i := range base {
			p[i] = m * base[i]
		}
		e, _ := EstimateScore(p, true)
		lo, hi := EloFromScore(e.Mean-e.StdErr()), EloFromScore(e.Mean+3*e.StdErr())
		llr, err := GSPRT{Elo0: lo, Elo1: hi, Alpha: 0.05, Beta: 0.05}.LLR(p)
		if err != nil {
			t.Fatal(err)
		}
		approx, _ := LLRNormalApprox(p, lo, hi)
		gap := math.Abs(llr-approx) / math.Abs(approx)
		if gap >= prevGap/2 {
			t.Errorf("%d pairs: relative gap %.5f, not well below the previous %.5f", p.Pairs(), gap, prevGap)
		}
		prevGap = gap
	}
	if prevGap > 0.01 {
		t.Errorf("1,370,000 pairs: the exact LLR is %.3f%% off the approximation", 100*prevGap)
	}
	// LLR per sample is a property of the distribution: ten times the sample, ten times the LLR
	p := Pentanomial{100, 900, 2000, 1000, 150}
	g := GSPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05}
	l1, _ := g.LLR(p)
	var p10 Pentanomial
	for i := range p {
		p10[i] = 10 * p[i]
	}
	l10, _ := g.LLR(p10)
	if math.Abs(l10-10*l1) > 1e-9*math.Abs(l10) {
		t.Errorf("LLR %v for %v, %v for ten times it", l1, p, l10)
	}
}

// TestGSPRTConsistency: LLRs add over chained hypotheses and mirror with the results.
func TestGSPRTConsistency(t *testing.T) {
	r := Trinomial{Losses: 17, Draws: 30, Wins: 25}
	llr := func(g GSPRT, r Results) float64 {
		v, err := g.LLR(r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, m := range []EloModel{Logistic, Normalized} {
		a := llr(GSPRT{Elo0: -5, Elo1: 10, Alpha: 0.05, Beta: 0.05, Model: m}, r)
		b := llr(GSPRT{Elo0: 10, Elo1: 40, Alpha: 0.05, Beta: 0.05, Model: m}, r)
		c := llr(GSPRT{Elo0: -5, Elo1: 40, Alpha: 0.05, Beta: 0.05, Model: m}, r)
		if math.Abs(a+b-c) > 1e-9 {
			t.Errorf("%v: LLR(-5,10) + LLR(10,40) = %v, LLR(-5,40) = %v", m, a+b, c)
		}
		mirror := Trinomial{Losses: r.Wins, Draws: r.Draws, Wins: r.Losses}
		d := llr(GSPRT{Elo0: -40, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: m}, mirror)
		e := llr(GSPRT{Elo0: -5, Elo1: 40, Alpha: 0.05, Beta: 0.05, Model: m}, r)
		if math.Abs(d+e) > 1e-9 {
			t.Errorf("%v: mirrored LLR %v, want %v", m, d, -e)
		}
	}
}

func TestGSPRTErrors(t *testing.T) {
	for _, g := range []GSPRT{
		{Elo0: 0, Elo1: 5, Alpha: 0, Beta: 0.05},
		{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 1},
		{Elo0: 5, Elo1: 5, Alpha: 0.05, Beta: 0.05},
		{Elo0: 0, Elo1: math.Inf(1), Alpha: 0.05, Beta: 0.05},
		{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: EloModel(7)},
	} {
		if _, err := g.Test(Trinomial{Wins: 1}); err == nil || !strings.HasPrefix(err.Error(), "stats: ") {
			t.Errorf("%+v: error %v", g, err)
		}
	}
	if _, err := gsprt030.Test(Trinomial{Wins: -1}); err == nil {
		t.Error("negative count: want an error")
	}
	if Logistic.String() != "logistic" || Normalized.String() != "normalized" {
		t.Error("EloModel names")
	}
}
