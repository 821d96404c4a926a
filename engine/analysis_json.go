package engine

import (
	"math"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// AnalysisJSON is the wire form of one analysis, the one shape of both the engine's JSON analyser
// (an answer line of `yinsh analyze --json`) and `yinsh serve`'s /api/analyze answer
// (docs/engine-protocol.md and docs/http-api.md describe it field by field). Every value is from the
// view of Side, the player to act; priors are rounded to 5 decimals, values and WDL to 4, times are
// milliseconds.
type AnalysisJSON struct {
	// ID echoes the request's id: the analyser passes its raw JSON (null when absent), the server
	// its decoded value (omitted when absent).
	ID     any    `json:"id,omitempty"`
	Player string `json:"player,omitempty"` // the analysing player's name (the server's answers)
	Side   string `json:"side"`
	Best   string `json:"best"`
	// Searched is true for searching players: Visits, Sims and the candidates' visits and Q are
	// then the search's. A non-searching player (heuristic, random) gives Best, and its own
	// candidates and value where it has them.
	Searched bool        `json:"searched"`
	Visits   int         `json:"visits"` // the root's visits
	Sims     int         `json:"sims"`   // the simulations of this search
	WDL      *[3]float64 `json:"wdl,omitempty"`
	// Top holds the candidates, most visited first, at most the request's top.
	Top []CandidateJSON `json:"top"`
	// Policy holds every legal root action with its prior and visits, in action-id order (the
	// server's answers; omitted by the analyser).
	Policy   []CandidateJSON `json:"policy,omitempty"`
	PV       []string        `json:"pv"`
	Position string          `json:"position,omitempty"` // the analysed position's text (the server's answers)
	TimeMS   float64         `json:"time_ms"`            // the search
	TotalMS  float64         `json:"total_ms,omitempty"` // the server's request, from its body read to the answer
	QueueMS  float64         `json:"queue_ms,omitempty"` // the server's wait for a search slot
}

// CandidateJSON is one root action of an analysis: its prior, visits and mean value Q (null when
// unvisited), from the view of the side to act.
type CandidateJSON struct {
	Action string   `json:"action"`
	Prior  float64  `json:"prior"`
	Visits int      `json:"visits"`
	Q      *float64 `json:"q"`
}

// CandidateOf is st's wire form.
func CandidateOf(st selfplay.ActionStat) CandidateJSON {
	c := CandidateJSON{Action: st.Action.String(), Prior: Round(st.Prior, 1e5), Visits: st.Visits}
	if st.Visits > 0 {
		q := Round(st.Q, 1e4)
		c.Q = &q
	}
	return c
}

// CandidatesOf is the wire form of the first k of stats (all of them when k < 0); never nil, so an
// empty list is written as [].
func CandidatesOf(stats []selfplay.ActionStat, k int) []CandidateJSON {
	if k < 0 || k > len(stats) {
		k = len(stats)
	}
	out := make([]CandidateJSON, 0, k)
	for _, st := range stats[:k] {
		out = append(out, CandidateOf(st))
	}
	return out
}

// AnalysisJSONOf is res's wire form with its candidates (res.Top, already cut to the request's top)
// and policy; the caller sets ID, Player and the server's times.
func AnalysisJSONOf(res *AnalysisResult) AnalysisJSON {
	out := AnalysisJSON{Side: sideName(res.Side), Best: res.Best.String(), Searched: res.Searched,
		Visits: res.Visits, Sims: res.Sims, Top: CandidatesOf(res.Top, -1), Policy: CandidatesOf(res.Policy, -1),
		PV: Tokens(res.PV), TimeMS: Millis(res.Elapsed)}
	if res.HasValue {
		out.WDL = RoundWDL(res.WDL)
	}
	return out
}

// Round rounds x to a multiple of 1/scale (NaN and infinities to 0: JSON has no such numbers).
func Round(x float32, scale float64) float64 {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return 0
	}
	return math.Round(float64(x)*scale) / scale
}

// RoundWDL is w rounded to 4 decimals.
func RoundWDL(w [3]float32) *[3]float64 {
	return &[3]float64{Round(w[0], 1e4), Round(w[1], 1e4), Round(w[2], 1e4)}
}

// Millis is d in milliseconds, to the microsecond.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Tokens is acts' action tokens.
func Tokens(acts []env.Action) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.String()
	}
	return out
}
