package stats

import (
	"errors"
	"fmt"
	"math"
)

// RegularizeEpsilon is the count an empty bin gets from Regularize, Fishtest's value
// (LLRcalc.regularize).
const RegularizeEpsilon = 1e-3

// Regularize returns the counts as floats with every zero count replaced by RegularizeEpsilon,
// as Fishtest's LLRcalc.regularize does before any likelihood computation: it keeps the
// maximum-likelihood distributions of the GSPRT strictly inside the simplex, and it is small
// enough to change nothing once every bin has real counts.
func Regularize(counts []int) []float64 {
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = float64(c)
		if c == 0 {
			out[i] = RegularizeEpsilon
		}
	}
	return out
}

// sample is a Results as a discrete distribution of per-game scores: bin i has the value
// a[i] = i/(bins-1) (the score of a game, or a pair's average score per game) and the weight
// n[i] (a count, regularised or raw); total is the sum of the weights.
type sample struct {
	a, n  []float64
	total float64
	penta bool
}

func newSample(r Results, regularize bool) (sample, error) {
	if r == nil {
		return sample{}, errors.New("stats: no results")
	}
	c := r.Counts()
	if len(c) != 3 && len(c) != 5 {
		return sample{}, fmt.Errorf("stats: %d bins: results are a trinomial (3) or a pentanomial (5)", len(c))
	}
	for i, v := range c {
		if v < 0 {
			return sample{}, fmt.Errorf("stats: negative count %d in bin %d", v, i)
		}
	}
	s := sample{a: make([]float64, len(c)), penta: len(c) == 5}
	if regularize {
		s.n = Regularize(c)
	} else {
		s.n = make([]float64, len(c))
		for i, v := range c {
			s.n[i] = float64(v)
		}
	}
	for i := range c {
		s.a[i] = float64(i) / float64(len(c)-1)
		s.total += s.n[i]
	}
	return s, nil
}

// moments returns the mean, variance, skewness and excess kurtosis of the sample's values
// (NaN for an empty sample; skewness and kurtosis NaN when the variance is 0).
func (s sample) moments() (mean, variance, skew, exkurt float64) {
	if s.total == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	for i, n := range s.n {
		mean += n * s.a[i]
	}
	mean /= s.total
	var m3, m4 float64
	for i, n := range s.n {
		d := s.a[i] - mean
		variance += n * d * d
		m3 += n * d * d * d
		m4 += n * d * d * d * d
	}
	variance /= s.total
	m3 /= s.total
	m4 /= s.total
	if variance == 0 {
		return mean, 0, math.NaN(), math.NaN()
	}
	return mean, variance, m3 / math.Pow(variance, 1.5), m4/(variance*variance) - 3
}

// ScoreEstimate is the estimated expected score of A, per game.
type ScoreEstimate struct {
	// N is the number of samples: games for a Trinomial, pairs for a Pentanomial (including the
	// 1e-3 pseudo-counts when regularised).
	N float64
	// Mean is A's mean score per game, in [0, 1].
	Mean float64
	// Var is the variance of one sample's value: a game's score (0, ½, 1), or a pair's average
	// score per game (0, ¼, ½, ¾, 1). Var/N is the variance of Mean.
	Var float64
	// Skewness and ExKurtosis are those of the same distribution (NaN when Var is 0).
	Skewness, ExKurtosis float64
}

// StdErr returns the standard error of Mean, sqrt(Var/N).
func (e ScoreEstimate) StdErr() float64 { return math.Sqrt(e.Var / e.N) }

// EstimateScore returns the mean score per game of the results, from A's view, and the variance
// of one sample (LLRcalc.stats on LLRcalc.results_to_pdf). With regularize the empty bins count
// RegularizeEpsilon, as Fishtest's statistics do; FishtestElo, NElo, LLRNormalApprox and the
// GSPRT use the regularised estimate. An empty sample gives N = 0 and NaN moments without
// regularisation.
func EstimateScore(r Results, regularize bool) (ScoreEstimate, error) {
	s, err := newSample(r, regularize)
	if err != nil {
		return ScoreEstimate{}, err
	}
	m, v, sk, ek := s.moments()
	return ScoreEstimate{N: s.total, Mean: m, Var: v, Skewness: sk, ExKurtosis: ek}, nil
}

// maxDual maximises h(x) = Σ n_i·log(1 + x·b_i) over the x at which every 1 + x·b_j ≥ 0 (all j,
// empty bins included), for b with min b < 0 < max b. It is the Lagrange dual of the constrained
// maximum-likelihood problem
//
//	maximise Σ n_i log q_i over distributions q with Σ q_i b_i = 0,
//
// whose solution is q_i = n̂_i/(1 + x·b_i), n̂ = n/Σn, plus, when the maximiser x lies on the
// boundary, the missing mass on the empty bin whose 1 + x·b vanishes (Van den Bergh,
// "support_MLE_multinomial.pdf", Proposition 1.1, for the case without empty bins; the dual
// with the boundary covers empty bins). h(x) is the log-likelihood ratio of the unconstrained
// maximum n̂ against that constrained one. h is concave, so x is the root of
// h'(x) = Σ n_i b_i/(1 + x b_i) found by bisection to machine precision, or a boundary point.
func maxDual(n, b []float64) (x, h float64) {
	bmin, bmax := math.Inf(1), math.Inf(-1)
	for _, v := range b {
		bmin, bmax = math.Min(bmin, v), math.Max(bmax, v)
	}
	lo, hi := -1/bmax, -1/bmin
	// a boundary can be the maximiser only if no observed bin's 1 + x·b vanishes there
	loOpen, hiOpen := false, false
	for i, v := range n {
		if v > 0 && b[i] == bmax {
			loOpen = true
		}
		if v > 0 && b[i] == bmin {
			hiOpen = true
		}
	}
	dh := func(x float64) float64 {
		var g float64
		for i, v := range n {
			if v == 0 {
				continue
			}
			t := 1 + x*b[i]
			if t < 1e-300 { // rounding next to a vanishing denominator
				t = 1e-300
			}
			g += v * b[i] / t
		}
		return g
	}
	switch {
	case !loOpen && dh(lo) <= 0:
		x = lo
	case !hiOpen && dh(hi) >= 0:
		x = hi
	default:
		l, u := lo, hi
		for range 2200 {
			m := l + (u-l)/2
			if m <= l || m >= u {
				break
			}
			if dh(m) > 0 {
				l = m
			} else {
				u = m
			}
		}
		x = l + (u-l)/2
	}
	for i, v := range n {
		if v > 0 {
			h += v * math.Log(math.Max(1+x*b[i], 1e-300))
		}
	}
	return x, h
}

// profile returns the log-likelihood ratio of the sample's maximum-likelihood distribution
// against the best distribution with expected score p ∈ (0, 1):
//
//	ℓ(n̂) − max{ℓ(q) : Σ q_i a_i = p} ≥ 0, ℓ(q) = Σ n_i log q_i.
//
// It is 0 at p = the sample mean and grows on either side.
func (s sample) profile(p float64) float64 {
	b := make([]float64, len(s.a))
	for i, a := range s.a {
		b[i] = a - p
	}
	_, h := maxDual(s.n, b)
	return h
}

// mleTValue returns the maximum-likelihood distribution over the sample's bins whose t-value
// (mean-ref)/sd is t (LLRcalc.MLE_t_value; "normalized_elo_practical.pdf" section 4.1). The
// Lagrange conditions of that constraint are those of a linear constraint Σ q_i b_i = 0 with
// b_i = a_i - ref - t·sd·(1 + ((a_i-mu)/sd)²)/2 at the solution's own mean mu and sd; they are
// solved by fixed-point iteration from the uniform distribution. The sample must have no empty
// bin (regularise it).
func (s sample) mleTValue(ref, t float64) ([]float64, error) {
	k := len(s.a)
	q := make([]float64, k)
	for i := range q {
		q[i] = 1 / float64(k)
	}
	b := make([]float64, k)
	for range 1000 {
		var mu, v float64
		for i := range q {
			mu += q[i] * s.a[i]
		}
		for i := range q {
			v += q[i] * (s.a[i] - mu) * (s.a[i] - mu)
		}
		sd := math.Sqrt(v)
		bmin, bmax := math.Inf(1), math.Inf(-1)
		for i, a := range s.a {
			z := (a - mu) / sd
			b[i] = a - ref - t*sd*(1+z*z)/2
			bmin, bmax = math.Min(bmin, b[i]), math.Max(bmax, b[i])
		}
		if !(bmin < 0 && bmax > 0) || sd == 0 || math.IsNaN(sd) {
			return nil, fmt.Errorf("stats: no distribution on the sample's support has t-value %g", t)
		}
		x, _ := maxDual(s.n, b)
		var change float64
		for i := range q {
			next := s.n[i] / s.total / (1 + x*b[i])
			change = math.Max(change, math.Abs(next-q[i]))
			q[i] = next
		}
		if change < 1e-11 {
			return q, nil
		}
	}
	return nil, fmt.Errorf("stats: the t-value %g maximum-likelihood iteration did not converge", t)
}
