package stats

import (
	"fmt"
	"math"
)

// EloModel is the scale of a GSPRT's hypotheses.
type EloModel int

const (
	// Logistic hypotheses are logistic Elo differences; the test statistic is the expected
	// score (LLRcalc.LLR_logistic).
	Logistic EloModel = iota
	// Normalized hypotheses are normalised Elo; the test statistic is the t-value
	// (mean−0.5)/sd (LLRcalc.LLR_normalized).
	Normalized
)

func (m EloModel) String() string {
	switch m {
	case Logistic:
		return "logistic"
	case Normalized:
		return "normalized"
	}
	return fmt.Sprintf("EloModel(%d)", int(m))
}

// GSPRT is Michel Van den Bergh's generalised sequential probability ratio test as Fishtest runs
// it: H0: elo = Elo0 against H1: elo = Elo1 (A's advantage, on the scale of Model), with
// Alpha the largest probability of accepting H1 when H0 holds and Beta that of accepting H0
// when H1 holds. Elo0 < Elo1.
//
// The log-likelihood ratio is exact: for each hypothesis the maximum-likelihood multinomial
// distribution over the sample's bins (3 for a Trinomial, 5 for a Pentanomial) with that
// hypothesis's expected score (or t-value) is found through its Lagrange multiplier, and
// LLR = Σ count_i · log(p1_i / p0_i). The counts are regularised first (Regularize), as Fishtest
// does. A sample only supports a hypothesis as far as its games do: for Elo0 = 0, Elo1 = 30 one
// win gives LLR 0.083 and ten wins 0.83 (log(s1/s0) per won game), where the normal approximation
// with a variance floor gave thousands.
type GSPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
	Model       EloModel
}

// Verdict is the state of a GSPRT.
type Verdict string

// Verdicts of a GSPRT.
const (
	AcceptH1 Verdict = "H1"       // LLR above the upper bound: elo ≥ Elo1 (Fishtest: "accepted")
	AcceptH0 Verdict = "H0"       // LLR below the lower bound: elo ≤ Elo0 (Fishtest: "rejected")
	Continue Verdict = "continue" // not decided yet
)

// Decision is a GSPRT's state for a sample.
type Decision struct {
	LLR, Lower, Upper float64
	Verdict           Verdict
}

func (g GSPRT) validate() error {
	if !(g.Alpha > 0 && g.Alpha < 1 && g.Beta > 0 && g.Beta < 1) {
		return fmt.Errorf("stats: GSPRT error rates alpha %g, beta %g must lie in (0, 1)", g.Alpha, g.Beta)
	}
	if !(g.Elo0 < g.Elo1) || math.IsInf(g.Elo0, 0) || math.IsInf(g.Elo1, 0) {
		return fmt.Errorf("stats: GSPRT needs finite elo0 < elo1, got %g, %g", g.Elo0, g.Elo1)
	}
	if g.Model != Logistic && g.Model != Normalized {
		return fmt.Errorf("stats: unknown Elo model %v", g.Model)
	}
	return nil
}

// Bounds returns the test's stopping bounds on the LLR, Wald's: lower = log(β/(1−α)),
// upper = log((1−β)/α) (±2.944 for α = β = 0.05).
func (g GSPRT) Bounds() (lower, upper float64) {
	return math.Log(g.Beta / (1 - g.Alpha)), math.Log((1 - g.Beta) / g.Alpha)
}

// LLR returns the exact generalised log-likelihood ratio of H1 against H0 for the results (from
// A's view): LLRcalc.LLR_logistic for the Logistic model, LLRcalc.LLR_normalized for the
// Normalized one (whose t-values are nElo/(800/ln 10), times √2 for a pentanomial, as the
// t-value of a pair is √2 times the per-game one).
func (g GSPRT) LLR(r Results) (float64, error) {
	if err := g.validate(); err != nil {
		return 0, err
	}
	s, err := newSample(r, true)
	if err != nil {
		return 0, err
	}
	if g.Model == Logistic {
		// ℓ(q1) − ℓ(q0) = [ℓ(n̂) − ℓ(q0)] − [ℓ(n̂) − ℓ(q1)]
		return s.profile(ExpectedScore(g.Elo0)) - s.profile(ExpectedScore(g.Elo1)), nil
	}
	t0, t1 := g.Elo0/NEloPerT, g.Elo1/NEloPerT
	if s.penta {
		t0, t1 = t0*math.Sqrt2, t1*math.Sqrt2
	}
	q0, err := s.mleTValue(0.5, t0)
	if err != nil {
		return 0, err
	}
	q1, err := s.mleTValue(0.5, t1)
	if err != nil {
		return 0, err
	}
	var llr float64
	for i, n := range s.n {
		llr += n * (math.Log(q1[i]) - math.Log(q0[i]))
	}
	return llr, nil
}

// Test returns the LLR, the bounds and the verdict for the results so far: AcceptH1 when the
// LLR exceeds the upper bound, AcceptH0 when it is below the lower one (Fishtest's update_SPRT
// without its overshoot correction), else Continue.
func (g GSPRT) Test(r Results) (Decision, error) {
	llr, err := g.LLR(r)
	if err != nil {
		return Decision{}, err
	}
	lo, hi := g.Bounds()
	d := Decision{LLR: llr, Lower: lo, Upper: hi, Verdict: Continue}
	switch {
	case llr > hi:
		d.Verdict = AcceptH1
	case llr < lo:
		d.Verdict = AcceptH0
	}
	return d, nil
}

// LLRNormalApprox returns the normal approximation of the logistic GSPRT's LLR,
// N·(s1−s0)·(2·s−s0−s1)/(2·Var) with s0, s1 the expected scores of elo0 and elo1 and s, Var, N
// the regularised estimate of EstimateScore (LLRcalc.LLR_alt2, "GSPRT_approximation.pdf"). It
// agrees with the exact LLR for large samples whose score lies near s0 and s1, and is far off
// for small or one-sided ones; it is here as a check, GSPRT.LLR is the test.
func LLRNormalApprox(r Results, elo0, elo1 float64) (float64, error) {
	e, err := EstimateScore(r, true)
	if err != nil {
		return 0, err
	}
	s0, s1 := ExpectedScore(elo0), ExpectedScore(elo1)
	return e.N * (s1 - s0) * (2*e.Mean - s0 - s1) / (2 * e.Var), nil
}
