package train

import (
	"fmt"

	"github.com/yinsh-zero/yinsh/selfplay"
)

// Report returns the statistics lines of a match from A's view: the pentanomial counts of its pairs,
// Elo and normalised Elo with 95% intervals, and the GSPRT of H0 elo0 against H1 elo1.
func Report(r selfplay.MatchResult, elo0, elo1 float64) []string {
	e := EloDiff(r.Wins, r.Draws, r.Losses)
	sprt := SPRT{Elo0: elo0, Elo1: elo1, Alpha: 0.05, Beta: 0.05}
	llr, lo, hi := sprt.LLR(r.Wins, r.Draws, r.Losses)
	return []string{
		fmt.Sprintf("pairs: %v", r.Pairs),
		fmt.Sprintf("elo: %+.1f [%+.1f, %+.1f] (95%%)", e.Value, e.Low, e.High),
		fmt.Sprintf("sprt: %s (llr %.2f, bounds [%.2f, %.2f], elo0 %g, elo1 %g)", sprt.Verdict(r.Wins, r.Draws, r.Losses), llr, lo, hi, elo0, elo1),
	}
}
