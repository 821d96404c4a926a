package train

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/yinsh-zero/yinsh/selfplay"
)

// Elo conventions: ratings are on the logistic Elo scale, the expected score of A against B is
// 1/(1+10^((Rb-Ra)/400)); a draw counts half a win.

// ExpectedScore returns the expected score for an Elo difference.
func ExpectedScore(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// EloFromScore returns the Elo difference for a score fraction (±Inf at 1 and 0).
func EloFromScore(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return 400 * math.Log10(s/(1-s))
}

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

// EloDiff estimates the Elo difference of a match (from A's view, w/d/l are A's wins, draws,
// losses) with a 95% interval: Wilson's score interval, generalised to draws. The bounds are the
// expected scores p at which the observed score s lies 1.96 standard errors away, with the per-game
// variance p(1-p) - δ/4 of a result that is a draw with the observed frequency δ:
//
//	(s-p)² = z²/n · (p(1-p) - δ/4)
//
// Unlike the plain normal approximation (s ± z·se from the observed variance) it stays inside (0, 1)
// and is finite when every game had the same result: 100 wins in 100 games give [+566, +Inf]
// rather than [+Inf, +Inf]. Without draws it is Wilson's interval.
func EloDiff(w, d, l int) Interval {
	n := float64(w + d + l)
	if n == 0 {
		return Interval{0, math.Inf(-1), math.Inf(1)}
	}
	s := (float64(w) + 0.5*float64(d)) / n
	delta := float64(d) / n
	k := 1.96 * 1.96 / n
	// (1+k)p² - (2s+k)p + s² + kδ/4 = 0
	a, b, c := 1+k, -(2*s + k), s*s+k*delta/4
	disc := math.Max(b*b-4*a*c, 0)
	lo, hi := (-b-math.Sqrt(disc))/(2*a), (-b+math.Sqrt(disc))/(2*a)
	if s == 1 { // the root is exactly 1 (and 0 for s = 0), not 1 - ε from rounding
		hi = 1
	} else if s == 0 {
		lo = 0
	}
	return Interval{EloFromScore(s), EloFromScore(lo), EloFromScore(hi)}
}

// SPRT is a sequential probability ratio test of H0: elo = Elo0 against H1: elo = Elo1, with error
// rates Alpha (accepting H1 when H0 holds) and Beta, using the normal (trinomial) approximation
// of the log-likelihood ratio as in Fishtest.
type SPRT struct{ Elo0, Elo1, Alpha, Beta float64 }

// Verdict of an SPRT.
type Verdict string

const (
	AcceptH1 Verdict = "H1 (stronger)"
	AcceptH0 Verdict = "H0 (not stronger)"
	Continue Verdict = "continue"
)

// LLR returns the log-likelihood ratio of the results and the test's lower and upper bounds.
func (t SPRT) LLR(w, d, l int) (llr, lower, upper float64) {
	lower = math.Log(t.Beta / (1 - t.Alpha))
	upper = math.Log((1 - t.Beta) / t.Alpha)
	n := float64(w + d + l)
	if n == 0 {
		return 0, lower, upper
	}
	s := (float64(w) + 0.5*float64(d)) / n
	v := (float64(w)*(1-s)*(1-s) + float64(d)*(0.5-s)*(0.5-s) + float64(l)*s*s) / n
	if v <= 0 {
		v = 1e-6 // all results equal: keep the statistic finite
	}
	s0, s1 := ExpectedScore(t.Elo0), ExpectedScore(t.Elo1)
	return n * (s1 - s0) * (2*s - s0 - s1) / (2 * v), lower, upper
}

// Verdict returns the decision for the results so far.
func (t SPRT) Verdict(w, d, l int) Verdict {
	llr, lo, hi := t.LLR(w, d, l)
	switch {
	case llr >= hi:
		return AcceptH1
	case llr <= lo:
		return AcceptH0
	}
	return Continue
}

// Result is one match's outcome between players A and B, from A's view.
type Result struct {
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

// ResultOf turns a match into a Result between the named players, stamped with the current time.
func ResultOf(m selfplay.MatchResult, a, b string) Result {
	r := Result{A: a, B: b, Wins: m.Wins, Draws: m.Draws, Losses: m.Losses, Time: time.Now().UTC().Format(time.RFC3339)}
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

// FitRatings fits Elo ratings to all results by maximum likelihood (Bradley-Terry on the Elo scale,
// draws as half a win each way), anchoring the player named anchor at 0. A weak prior — one virtual
// draw between every player and the anchor — keeps ratings finite for players that always won or
// always lost. Intervals come from the inverse observed information.
func FitRatings(results []Result, anchor string) ([]Rating, error) {
	idx := map[string]int{anchor: 0}
	names := []string{anchor}
	for _, r := range results {
		for _, p := range []string{r.A, r.B} {
			if _, ok := idx[p]; !ok {
				idx[p] = len(names)
				names = append(names, p)
			}
		}
	}
	n := len(names)
	if n < 2 {
		return nil, errors.New("train: ratings need results between at least two players")
	}
	// score[i][j]: points i scored against j; games[i][j]: games between them
	score := make([][]float64, n)
	games := make([][]float64, n)
	for i := range score {
		score[i] = make([]float64, n)
		games[i] = make([]float64, n)
	}
	played := make([]int, n)
	linked := false
	for _, r := range results {
		a, b := idx[r.A], idx[r.B]
		if a == b {
			continue
		}
		g := float64(r.Wins + r.Draws + r.Losses)
		score[a][b] += float64(r.Wins) + 0.5*float64(r.Draws)
		score[b][a] += float64(r.Losses) + 0.5*float64(r.Draws)
		games[a][b] += g
		games[b][a] += g
		played[a] += int(g)
		played[b] += int(g)
		if a == 0 || b == 0 {
			linked = true
		}
	}
	if !linked {
		return nil, fmt.Errorf("train: no results involve the anchor %q", anchor)
	}
	for i := 1; i < n; i++ { // prior: one virtual draw with the anchor
		score[i][0] += 0.5
		score[0][i] += 0.5
		games[i][0]++
		games[0][i]++
	}
	const k = math.Ln10 / 400
	// x holds ratings of players 1..n-1 (the anchor is fixed at 0)
	rating := func(x []float64, i int) float64 {
		if i == 0 {
			return 0
		}
		return x[i-1]
	}
	negLL := func(x []float64) float64 {
		var ll float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if games[i][j] == 0 {
					continue
				}
				p := 1 / (1 + math.Exp(-k*(rating(x, i)-rating(x, j))))
				p = math.Min(math.Max(p, 1e-300), 1-1e-16)
				ll += score[i][j]*math.Log(p) + score[j][i]*math.Log(1-p)
			}
		}
		return -ll
	}
	grad := func(g, x []float64) {
		clear(g)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i == j || games[i][j] == 0 || i == 0 {
					continue
				}
				p := 1 / (1 + math.Exp(-k*(rating(x, i)-rating(x, j))))
				g[i-1] -= k * (score[i][j] - games[i][j]*p)
			}
		}
	}
	prob := optimize.Problem{Func: negLL, Grad: grad}
	res, err := optimize.Minimize(prob, make([]float64, n-1), &optimize.Settings{GradientThreshold: 1e-9}, &optimize.BFGS{})
	if err != nil && res == nil {
		return nil, fmt.Errorf("train: rating fit: %w", err)
	}
	x := res.X
	// observed information matrix (without the anchor)
	info := mat.NewSymDense(n-1, nil)
	for i := 1; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j || games[i][j] == 0 {
				continue
			}
			p := 1 / (1 + math.Exp(-k*(rating(x, i)-rating(x, j))))
			h := games[i][j] * k * k * p * (1 - p)
			info.SetSym(i-1, i-1, info.At(i-1, i-1)+h)
			if j > i {
				info.SetSym(i-1, j-1, info.At(i-1, j-1)-h)
			}
		}
	}
	var cov mat.Dense
	if err := cov.Inverse(info); err != nil {
		return nil, fmt.Errorf("train: rating fit: information matrix is singular: %w", err)
	}
	out := []Rating{{Player: anchor, Elo: Interval{0, 0, 0}, Games: played[0]}}
	for i := 1; i < n; i++ {
		se := math.Sqrt(math.Max(cov.At(i-1, i-1), 0))
		r := x[i-1]
		out = append(out, Rating{Player: names[i], Elo: Interval{r, r - 1.96*se, r + 1.96*se}, Games: played[i]})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Elo.Value > out[b].Elo.Value })
	return out, nil
}

// gateSPRT is the promotion gate's test of a match.
func gateSPRT(r selfplay.MatchResult, elo1 float64) Verdict {
	return SPRT{Elo0: 0, Elo1: elo1, Alpha: 0.05, Beta: 0.05}.Verdict(r.Wins, r.Draws, r.Losses)
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
