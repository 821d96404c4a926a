package train

import "github.com/yinsh-zero/yinsh/train/stats"

// GateMatch is one generation's promotion match against the best network (evaluation.games > 0),
// read back from the run's metrics.jsonl and results.jsonl: whether the generation improved on the
// best, as rating.png's lower panel draws it.
type GateMatch struct {
	Gen  int    // the candidate generation
	Best string // the network it played, the best when it was trained ("gen-0007")
	// Verdict is the gate's (EvalMetrics.Verdict): "H1", "H0" or "continue" under gate sprt, "pass"
	// or "fail" under gate score, "" under gate none.
	Verdict  string
	Promoted bool
	Games    int
	// Elo is the candidate's Elo against the best with its 95 % interval (stats.Elo of the match's
	// game pairs; of its games when they are not all paired). A sweep has an infinite Value and
	// one infinite end.
	Elo Interval
}

// Improved says what the gate match shows: +1 when its interval lies above 0 (the candidate is
// stronger than the best it played), -1 when below, 0 when it contains 0 (not separated).
func (g GateMatch) Improved() int {
	switch {
	case g.Elo.Low > 0:
		return 1
	case g.Elo.High < 0:
		return -1
	}
	return 0
}

// GateMatches pairs every gated generation's metrics line (EvalMetrics.Best set: written by builds
// since the field exists) with its match in rs (A the candidate, B the best; the last such line
// when a resumed run repeated it), in the order of ms. A generation whose match is missing from rs
// is left out.
func GateMatches(ms []Metrics, rs []Result) []GateMatch {
	last := map[[2]string]Result{}
	for _, r := range rs {
		last[[2]string{r.A, r.B}] = r
	}
	var out []GateMatch
	for _, m := range ms {
		e := m.Eval
		if e.Skipped || e.BestGames == 0 || e.Best == "" {
			continue
		}
		r, ok := last[[2]string{GenName(m.Generation), e.Best}]
		if !ok {
			continue
		}
		elo, err := stats.Elo(resultStats(r))
		if err != nil {
			continue
		}
		out = append(out, GateMatch{Gen: m.Generation, Best: e.Best, Verdict: e.Verdict, Promoted: e.Promoted,
			Games: r.Wins + r.Draws + r.Losses, Elo: Interval{elo.Value, elo.Low, elo.High}})
	}
	return out
}

// resultStats is a results line as a sample for the statistics: the pentanomial of its pairs when
// they account for every game, else the trinomial of its games.
func resultStats(r Result) stats.Results {
	if r.Pairs != nil {
		if p := stats.Pentanomial(*r.Pairs); p.Games() == r.Wins+r.Draws+r.Losses && p.Games() > 0 {
			return p
		}
	}
	return stats.Trinomial{Losses: r.Losses, Draws: r.Draws, Wins: r.Wins}
}
