package train

import (
	"fmt"
	"math"

	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train/stats"
)

// Report returns the statistics lines of a match from A's view: the pentanomial counts of its pairs,
// Elo (logistic) and normalised Elo with 95% intervals, and the logistic GSPRT of H0 elo0 against
// H1 elo1 with alpha = beta = 0.05 — on the pentanomial when every game is in a pair, else on the
// trinomial (see MatchStats).
func Report(r selfplay.MatchResult, elo0, elo1 float64) []string {
	res, kind := MatchStats(r)
	var lines []string
	lines = append(lines, fmt.Sprintf("pairs: %s (A's points per pair 0, 1/2, 1, 3/2, 2)", stats.Pentanomial(r.Pairs)))
	if e, err := stats.Elo(res); err == nil {
		lines = append(lines, fmt.Sprintf("elo: %s [%s, %s] (95%%, %s)", signed(e.Value), signed(e.Low), signed(e.High), kind))
	}
	nonEmpty := 0
	for _, c := range res.Counts() {
		if c > 0 {
			nonEmpty++
		}
	}
	// normalised Elo divides by the spread of the results: meaningless (ruled by the regularisation
	// of empty bins) when every game or pair had the same result
	if e, err := stats.NElo(res); err == nil && nonEmpty >= 2 {
		lines = append(lines, fmt.Sprintf("nelo: %s [%s, %s] (95%%)", signed(e.Value), signed(e.Low), signed(e.High)))
	}
	t := stats.GSPRT{Elo0: elo0, Elo1: elo1, Alpha: 0.05, Beta: 0.05, Model: stats.Logistic}
	if d, err := t.Test(res); err == nil {
		lines = append(lines, fmt.Sprintf("gsprt: %s (llr %.2f, bounds [%.2f, %.2f], elo0 %g, elo1 %g, logistic, %s)", VerdictText(d.Verdict), d.LLR, d.Lower, d.Upper, elo0, elo1, kind))
	} else {
		lines = append(lines, "gsprt: "+err.Error())
	}
	return lines
}

// signed formats an Elo value with its sign, or ±inf.
func signed(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

// VerdictText says a GSPRT verdict in words.
func VerdictText(v stats.Verdict) string {
	switch v {
	case stats.AcceptH1:
		return "H1 accepted (stronger)"
	case stats.AcceptH0:
		return "H0 accepted (not stronger)"
	}
	return "continue (no decision yet)"
}
