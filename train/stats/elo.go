package stats

import "math"

// Z95 is Φ⁻¹(0.975), the half-width of a two-sided 95% normal interval in standard errors.
const Z95 = 1.959963984540054

// NEloPerT converts a t-value per game to normalised Elo: 800/ln 10 (LLRcalc's
// nelo_divided_by_nt).
const NEloPerT = 800 / math.Ln10

// ExpectedScore returns the expected score per game of a player rated elo logistic Elo above
// the opponent: 1/(1+10^(-elo/400)).
func ExpectedScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// EloFromScore returns the logistic Elo difference whose expected score is s, the inverse of
// ExpectedScore: -Inf at s ≤ 0 and +Inf at s ≥ 1.
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return 400 * math.Log10(s/(1-s))
}

// Interval is an estimate with its 95% interval, Low ≤ Value ≤ High.
type Interval struct{ Value, Low, High float64 }

// Contains reports whether x lies in [Low, High].
func (i Interval) Contains(x float64) bool { return i.Low <= x && x <= i.High }

// Elo returns A's logistic Elo advantage over B with a 95% interval, from a trinomial (per game)
// or a pentanomial (per pair; the pair's variance carries the correlation of its two games).
//
// Value is E⁻¹ of the mean score per game (±Inf for a sweep). The interval is the
// profile-likelihood interval of the expected score: the scores p whose best multinomial
// distribution (over the 3 or 5 bins, constrained to mean p, as the GSPRT's MLE_expected) is not
// rejected by the likelihood-ratio test, 2·(ℓ(n̂) − ℓ(q_p)) ≤ z² = 3.841, mapped through E⁻¹. It
// is the interval the GSPRT's own likelihood gives. For samples of ordinary size it equals
// Fishtest's Wald interval, E⁻¹(mean ± z·sqrt(Var/N)) (see FishtestElo), to a small fraction of
// its width (for [1000, 10000, 20000, 10000, 1200]: [0.278, 3.016] both), and unlike it:
//
//   - it is computed on the raw counts, empty bins included, with no regularisation;
//   - no games: Value 0, interval (-Inf, +Inf);
//   - a sweep (every game won) gives Value +Inf, a finite Low and High +Inf: the evidence bounds
//     the score from below only (10-0-0: Low = +270, 1-0-0: Low = -306); all losses mirror this;
//   - all draws give a finite interval symmetric about 0 that shrinks with the games (0-20-0:
//     ±31.9, 0-1-0: ±441), never a point.
//
// Fishtest's Wald interval has a zero variance for such samples and lives on its regulariser
// (10-0-0: 1200 ± 171, 0-20-0: 0 ± 1.5).
func Elo(r Results) (Interval, error) {
	s, err := newSample(r, false)
	if err != nil {
		return Interval{}, err
	}
	if s.total == 0 {
		return Interval{0, math.Inf(-1), math.Inf(1)}, nil
	}
	mean, _, _, _ := s.moments()
	crit := Z95 * Z95 / 2
	out := Interval{Value: EloFromScore(mean), Low: math.Inf(-1), High: math.Inf(1)}
	if mean > 0 { // profile(p) - crit falls from +Inf at p → 0 to -crit at the mean
		p := bisect(func(p float64) float64 { return s.profile(p) - crit }, 0, mean)
		out.Low = EloFromScore(p)
	}
	if mean < 1 {
		p := bisect(func(p float64) float64 { return crit - s.profile(p) }, mean, 1)
		out.High = EloFromScore(p)
	}
	return out, nil
}

// bisect returns the root of a function that is positive at lo and negative at hi, to machine
// precision.
func bisect(f func(float64) float64, lo, hi float64) float64 {
	for range 2200 {
		m := lo + (hi-lo)/2
		if m <= lo || m >= hi {
			break
		}
		if f(m) > 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + (hi-lo)/2
}

// FishtestEstimate is the Elo estimate of Fishtest's stat_util.get_elo.
type FishtestEstimate struct {
	// Elo is E⁻¹ of the regularised mean score, logistic Elo.
	Elo float64
	// Elo95 is the half-width of the 95% interval: (E⁻¹(mean + z·se) − E⁻¹(mean − z·se))/2,
	// se = sqrt(Var/N).
	Elo95 float64
	// LOS is the likelihood of superiority, Φ((mean − 0.5)/se).
	LOS float64
}

// FishtestElo computes Fishtest's Elo estimate (stat_util.get_elo) for comparison with its pages
// and with cutechess/fastchess output: the counts are regularised (Regularize), the mean score
// and its standard error come from EstimateScore, and scores are clamped to [1e-3, 1−1e-3] before
// E⁻¹ (stat_util.elo), so every value is finite (at most ±1199.8). It is the Wald interval: good
// for large samples, meaningless for sweeps and all-draw samples, whose variance is the
// regulariser's; Elo gives the interval to read.
func FishtestElo(r Results) (FishtestEstimate, error) {
	e, err := EstimateScore(r, true)
	if err != nil {
		return FishtestEstimate{}, err
	}
	se := e.StdErr()
	lo, hi := e.Mean-Z95*se, e.Mean+Z95*se
	return FishtestEstimate{
		Elo:   clampedElo(e.Mean),
		Elo95: (clampedElo(hi) - clampedElo(lo)) / 2,
		LOS:   0.5 * math.Erfc(-(e.Mean-0.5)/se/math.Sqrt2),
	}, nil
}

// clampedElo is Fishtest's stat_util.elo: E⁻¹ of the score clamped to [1e-3, 1−1e-3].
func clampedElo(s float64) float64 { return EloFromScore(math.Min(math.Max(s, 1e-3), 1-1e-3)) }

// NElo returns A's normalised Elo with its 95% interval, as Fishtest's statistics page computes
// it from regularised counts: t = (mean − 0.5)/sd with mean and sd of one sample (EstimateScore),
// the delta-method variance of t, var_t = max(1 − t·skewness + t²·(exkurt + 2)/4, 0), the
// interval t ± z·sqrt(var_t/N), and nElo = 800/ln 10 · t per game: t itself for a trinomial, t/√2
// for a pentanomial (whose per-game sd is the pair's times √2). No games give (0, -Inf, +Inf).
// nElo is a score in units of its own standard deviation: a sample whose games all ended alike
// has no spread, and its nElo is set by the regulariser (huge for a sweep, 0 for all draws) —
// read such samples with Elo.
func NElo(r Results) (Interval, error) {
	raw, err := newSample(r, false)
	if err != nil {
		return Interval{}, err
	}
	if raw.total == 0 {
		return Interval{0, math.Inf(-1), math.Inf(1)}, nil
	}
	e, err := EstimateScore(r, true)
	if err != nil {
		return Interval{}, err
	}
	t := (e.Mean - 0.5) / math.Sqrt(e.Var)
	varT := math.Max(1-t*e.Skewness+0.25*t*t*(e.ExKurtosis+2), 0)
	half := Z95 * math.Sqrt(varT/e.N)
	c := NEloPerT
	if raw.penta {
		c /= math.Sqrt2
	}
	return Interval{c * t, c * (t - half), c * (t + half)}, nil
}
