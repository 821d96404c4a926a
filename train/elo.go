package train

import (
	"fmt"
	"math"
	"time"

	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train/stats"
)

// Elo conventions: logistic Elo, the expected score of A against B is 1/(1+10^((Rb-Ra)/400)); a draw
// counts half a win. The statistics are train/stats' (Fishtest's formulas, BayesElo's ratings).

// Interval is an estimate with a 95% confidence interval.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// finite reports whether all three numbers are finite (JSON cannot hold infinities).
func (i Interval) finite() bool {
	for _, x := range []float64{i.Value, i.Low, i.High} {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}

// MatchStats returns the results of a match for the statistics: the pentanomial of its game pairs
// when every game is in a complete pair, else the trinomial of its games (an odd game count, or an
// unpaired record).
func MatchStats(m selfplay.MatchResult) (stats.Results, string) {
	p := stats.Pentanomial(m.Pairs)
	if g := m.Games(); g > 0 && p.Games() == g {
		return p, "pentanomial"
	}
	return stats.Trinomial{Losses: m.Losses, Draws: m.Draws, Wins: m.Wins}, "trinomial"
}

// SPRTVerdict is the logistic GSPRT of H0 elo0 against H1 elo1 (alpha = beta = 0.05) on a match's
// pairs (MatchStats); Continue when it cannot be computed yet.
func SPRTVerdict(r selfplay.MatchResult, elo0, elo1 float64) stats.Verdict {
	res, _ := MatchStats(r)
	return sprtTest(res, elo0, elo1)
}

// sprtTest is the logistic GSPRT of H0 elo0 against H1 elo1 (alpha = beta = 0.05) on res; Continue
// when it cannot be computed yet.
func sprtTest(res stats.Results, elo0, elo1 float64) stats.Verdict {
	d, err := stats.GSPRT{Elo0: elo0, Elo1: elo1, Alpha: 0.05, Beta: 0.05, Model: stats.Logistic}.Test(res)
	if err != nil {
		return stats.Continue
	}
	return d.Verdict
}

// SPRTStopper ends a match once the logistic GSPRT of H0 Elo0 against H1 Elo1 decides (its Stop is
// selfplay.MatchOptions.Stop): the promotion gate's under gate=sprt, and yinsh arena --sprt-stop's.
// It keeps the verdict and the games at the stop, which are the test's result: the pairs still in
// flight then are played and counted in the match, and can move the LLR back inside the bounds
// (one drawn pair after a run of wins widens the variance), as Fishtest keeps a test's verdict.
type SPRTStopper struct {
	Elo0, Elo1 float64
	Verdict    stats.Verdict // AcceptH1 or AcceptH0 once the test decided ("" before)
	Games      int           // the match's games when it decided
}

// Stop reports whether the test has decided on the match so far.
func (s *SPRTStopper) Stop(r selfplay.MatchResult) bool {
	if s.Decided() {
		return true
	}
	// the complete pairs only: with games at once, a game of the next pair may have finished, and
	// the whole count (MatchStats) would then fall back to the trinomial of independent games,
	// whose LLR runs ahead of the pairs' (H1 at 55 games where the 28 pairs said llr 2.31)
	p := stats.Pentanomial(r.Pairs)
	if p.Games() == 0 {
		return false
	}
	if v := sprtTest(p, s.Elo0, s.Elo1); v != stats.Continue {
		s.Verdict, s.Games = v, r.Games()
		return true
	}
	return false
}

// Decided reports whether Stop has seen the test decide.
func (s *SPRTStopper) Decided() bool {
	return s.Verdict == stats.AcceptH1 || s.Verdict == stats.AcceptH0
}

// Final is the test's verdict on a finished match: the one at the stop, else that of all its games.
func (s *SPRTStopper) Final(r selfplay.MatchResult) stats.Verdict {
	if s.Decided() {
		return s.Verdict
	}
	return SPRTVerdict(r, s.Elo0, s.Elo1)
}

// Result is one match's outcome between players A and B, from A's view.
type Result struct {
	// Format is ResultsFormat (0: a line written before the field existed, read as 1).
	Format int    `json:"format,omitempty"`
	A      string `json:"a"`
	B      string `json:"b"`
	Wins   int    `json:"wins"`
	Draws  int    `json:"draws"`
	Losses int    `json:"losses"`
	// Pairs is the pentanomial count of the match's game pairs (A's points over a pair's two games,
	// 0 to 2 in half points); absent for unpaired results.
	Pairs      *[5]int `json:"pairs,omitempty"`
	Sims       int     `json:"sims,omitempty"`
	MoveTimeMS int     `json:"movetime_ms,omitempty"`
	Time       string  `json:"time,omitempty"`
}

// ResultsFormat is the version of results lines this build writes and reads.
const ResultsFormat = 1

// ResultOf turns a match into a Result between the named players, stamped with the current time.
func ResultOf(m selfplay.MatchResult, a, b string) Result {
	r := Result{Format: ResultsFormat, A: a, B: b, Wins: m.Wins, Draws: m.Draws, Losses: m.Losses, Time: time.Now().UTC().Format(time.RFC3339)}
	if p := m.Pairs; p != ([5]int{}) {
		r.Pairs = &p
	}
	return r
}

// Rating is one player's fitted Elo with its 95% interval.
type Rating struct {
	Player string
	Elo    Interval
	Games  int
}

// FitRatings fits Elo ratings to all results by maximum a posteriori under BayesElo's model
// (Bradley-Terry with a fitted draw Elo; two virtual draws between every two players who met as the
// prior, so a clean sweep stays finite without tying everyone to the anchor), the player named
// anchor fixed at 0, best first. Ratings and intervals (inverse Hessian) are shown on the logistic
// scale as bayeselo shows them (the model's ratings times its draw-dependent scale).
func FitRatings(results []Result, anchor string) ([]Rating, error) {
	ms := make([]stats.Match, 0, len(results))
	for _, r := range results {
		ms = append(ms, stats.Match{A: r.A, B: r.B, Wins: r.Wins, Draws: r.Draws, Losses: r.Losses})
	}
	fit, _, err := stats.FitRatingsFallback(ms, stats.RatingOptions{Anchor: anchor})
	if err != nil {
		return nil, fmt.Errorf("train: ratings: %w", err)
	}
	out := make([]Rating, len(fit.Ratings))
	for i, r := range fit.Ratings {
		k := fit.Scale
		out[i] = Rating{Player: r.Player, Elo: Interval{k * r.Elo, k * r.Low, k * r.High}, Games: r.Games}
	}
	return out, nil
}

// runRatings fits the ratings of a run directory's results (see FitRatingsAuto).
func runRatings(dir string) ([]Rating, string, error) {
	rs, err := ReadResults(dir)
	if err != nil {
		return nil, "", err
	}
	return FitRatingsAuto(rs)
}

// FitRatingsAuto fits ratings anchored at gen-0000 when the results reach it (a training run's
// ladder), else at random, and returns the anchor used.
func FitRatingsAuto(rs []Result) ([]Rating, string, error) {
	var firstErr error
	for _, anchor := range []string{GenName(0), "random"} {
		ratings, err := FitRatings(rs, anchor)
		if err == nil {
			return ratings, anchor, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, "", firstErr
}
