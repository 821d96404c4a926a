package train

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// Metrics is one generation's line in metrics.jsonl.
type Metrics struct {
	Generation int             `json:"generation"`
	Time       string          `json:"time"`
	SelfPlay   SelfPlayMetrics `json:"selfplay"`
	Train      TrainMetrics    `json:"train"`
	// Reanalyse is the generation's Reanalyse phase (nil: off, or nothing to reanalyse yet).
	Reanalyse *ReanalyseMetrics  `json:"reanalyse,omitempty"`
	Eval      EvalMetrics        `json:"eval"`
	Best      string             `json:"best"`              // the best network after this generation
	Ratings   map[string]float64 `json:"ratings,omitempty"` // Elo of every player so far (RatingAnchor = 0)
	// RatingAnchor is the player fixed at Elo 0 (gen-0000 once the ladder reaches it, else random);
	// Elo is this generation's rating against it with its 95% interval, as fitted at the time.
	RatingAnchor string    `json:"rating_anchor,omitempty"`
	Elo          *Interval `json:"elo,omitempty"`
	Elapsed      float64   `json:"elapsed_s"`
	// Recovered: every self-play game of the generation was recovered from the shards of a killed
	// run (none played after the resume), so it has no self-play speed (games_per_hour is 0, not a
	// measurement; the plots skip it).
	Recovered bool `json:"recovered,omitempty"`
}

// SelfPlayMetrics summarises a generation's self-play.
type SelfPlayMetrics struct {
	Games int `json:"games"` // games of the generation, including Recovered
	// Recovered games were recorded before the run was killed and resumed (not played again).
	Recovered    int     `json:"recovered,omitempty"`
	Positions    int     `json:"positions"`
	Targets      int     `json:"targets"`
	MeanLength   float64 `json:"mean_length"`
	White        float64 `json:"white"`
	Black        float64 `json:"black"`
	Draw         float64 `json:"draw"`
	GamesPerHour float64 `json:"games_per_hour"`
	EvalsPerSec  float64 `json:"evals_per_s"` // network positions evaluated per second
	MeanBatch    float64 `json:"mean_batch"`
	FalseResigns int     `json:"false_resigns"`
	ResignChecks int     `json:"resign_checks"`
	Seconds      float64 `json:"seconds"`
	// OpponentGames were played against selfplay.opponents, the network scoring OpponentScore
	// (share of points) in them.
	OpponentGames int     `json:"opponent_games,omitempty"`
	OpponentScore float64 `json:"opponent_score,omitempty"`
	// Sources counts the games by cluster worker (cluster self-play only); Stale games were dropped
	// for too old a network, Duplicates for being recorded already.
	Sources    map[string]int `json:"sources,omitempty"`
	Stale      int            `json:"stale,omitempty"`
	Duplicates int            `json:"duplicates,omitempty"`
}

// TrainMetrics summarises a generation's training.
type TrainMetrics struct {
	Steps int `json:"steps"` // optimiser steps run
	// TargetSteps is training.steps_per_generation, the steps asked for; StoppedBy says what ended the
	// generation's training: "steps" (all of them run), "max_reuse" (every position of the replay
	// window drawn training.max_reuse times: Steps < TargetSteps) or "min_positions" (no step: the
	// window held fewer positions).
	TargetSteps int    `json:"target_steps"`
	StoppedBy   string `json:"stopped_by,omitempty"`
	// LossTotal is policy + value_weight·value (+ score_weight·score) + the weight-decay term
	// (LossL2: weight_decay/2 · Σ w², which grows with the weights over a long run: compare the
	// policy and value losses across generations, not the total).
	LossTotal     float64 `json:"loss"`
	LossPolicy    float64 `json:"loss_policy"`
	LossValue     float64 `json:"loss_value"`
	LossL2        float64 `json:"loss_l2,omitempty"`
	LR            float64 `json:"lr"`
	SamplesPerSec float64 `json:"samples_per_s"`
	Window        int     `json:"window_positions"`
	Seconds       float64 `json:"seconds"`
}

// EvalMetrics summarises a generation's evaluation.
type EvalMetrics struct {
	VsBest float64 `json:"vs_best"` // candidate's score against the previous best
	// BestGames is the number of games against the best (0: no gating match, always promoted).
	BestGames int `json:"best_games,omitempty"`
	// Best is the network the gate played (a generation's name, "gen-0007"); "" without a gate.
	Best string `json:"best,omitempty"`
	// Verdict is the gate's: under evaluation.gate sprt the GSPRT's "H1" (promoted), "H0" or
	// "continue" (undecided after evaluation.games: not promoted); "pass" or "fail" under gate score.
	Verdict   string             `json:"verdict,omitempty"`
	Promoted  bool               `json:"promoted"`
	Baselines map[string]float64 `json:"baselines"` // candidate's score against each baseline
	// Ladder is the candidate's score against each earlier generation it played (evaluation.ladder).
	Ladder map[string]float64 `json:"ladder,omitempty"`
	// Skipped: no evaluation, because no training step ran (the candidate is the network already
	// evaluated: the previous candidate, or the initial one).
	Skipped bool `json:"skipped,omitempty"`
}

func selfPlayMetrics(s SelfPlayStats) SelfPlayMetrics {
	w, b, d := outcomeShares(s.Results)
	m := SelfPlayMetrics{
		Games: s.Games, Recovered: s.Recovered, Positions: s.Positions, Targets: s.Targets, White: w, Black: b, Draw: d,
		MeanBatch: s.MeanBatch, FalseResigns: s.FalseResigns, ResignChecks: s.Checked, Seconds: s.Elapsed.Seconds(),
	}
	if s.Games > 0 {
		m.MeanLength = float64(s.Positions) / float64(s.Games)
	}
	if s.Games > s.Recovered && s.Elapsed > 0 {
		m.GamesPerHour = s.GamesPerHour()
		m.EvalsPerSec = float64(s.Evaluations) / s.Elapsed.Seconds()
	}
	if s.OpponentGames > 0 {
		m.OpponentGames, m.OpponentScore = s.OpponentGames, s.OpponentScore/float64(s.OpponentGames)
	}
	m.Sources, m.Stale, m.Duplicates = s.Sources, s.Stale, s.Duplicates
	return m
}

// Summary is the one-line report of a generation.
func (m *Metrics) Summary(total int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gen %d/%d: self-play %d games (%.0f/h, %.1f actions, w/b/d %.2f/%.2f/%.2f)",
		m.Generation, total, m.SelfPlay.Games, m.SelfPlay.GamesPerHour, m.SelfPlay.MeanLength, m.SelfPlay.White, m.SelfPlay.Black, m.SelfPlay.Draw)
	if m.SelfPlay.OpponentGames > 0 {
		fmt.Fprintf(&b, ", %d vs opponents scoring %.2f", m.SelfPlay.OpponentGames, m.SelfPlay.OpponentScore)
	}
	if m.SelfPlay.Sources != nil {
		b.WriteString(", by source")
		for _, n := range sortedNames(m.SelfPlay.Sources) {
			fmt.Fprintf(&b, " %s %d", n, m.SelfPlay.Sources[n])
		}
		if m.SelfPlay.Recovered > 0 {
			fmt.Fprintf(&b, " recovered %d", m.SelfPlay.Recovered)
		}
		if m.SelfPlay.Stale > 0 {
			fmt.Fprintf(&b, ", %d stale dropped", m.SelfPlay.Stale)
		}
	}
	if r := m.Reanalyse; r != nil {
		fmt.Fprintf(&b, "; reanalysed %d games (%.0f/h, policy change %.2f, value change %.2f)", r.Games, r.GamesPerHour, r.PolicyChange, r.ValueChange)
	}
	if m.Train.Steps > 0 {
		if m.Train.Steps < m.Train.TargetSteps {
			fmt.Fprintf(&b, "; train %d/%d steps (%s)", m.Train.Steps, m.Train.TargetSteps, m.Train.StoppedBy)
		} else {
			fmt.Fprintf(&b, "; train %d steps", m.Train.Steps)
		}
		fmt.Fprintf(&b, " loss %.3f (policy %.3f, value %.3f, weight decay %.3f) %.0f samples/s",
			m.Train.LossTotal, m.Train.LossPolicy, m.Train.LossValue, m.Train.LossL2, m.Train.SamplesPerSec)
	} else {
		b.WriteString("; train skipped")
	}
	names := make([]string, 0, len(m.Eval.Baselines))
	for n := range m.Eval.Baselines {
		names = append(names, n)
	}
	sort.Strings(names)
	ladder := make([]string, 0, len(m.Eval.Ladder))
	for n := range m.Eval.Ladder {
		ladder = append(ladder, n)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ladder))) // the latest generation first
	switch {
	case m.Eval.Skipped:
		b.WriteString("; evaluation skipped (no training)")
	case m.Eval.BestGames > 0:
		fmt.Fprintf(&b, "; vs best %.2f promoted %v", m.Eval.VsBest, m.Eval.Promoted)
	default:
		b.WriteString("; promoted (no gate)")
	}
	for _, n := range ladder {
		fmt.Fprintf(&b, ", vs %s %.2f", n, m.Eval.Ladder[n])
	}
	for _, n := range names {
		fmt.Fprintf(&b, ", vs %s %.2f", n, m.Eval.Baselines[n])
	}
	if e := m.Elo; e != nil {
		fmt.Fprintf(&b, "; elo %+.0f [%+.0f, %+.0f] vs %s", e.Value, e.Low, e.High, m.RatingAnchor)
	} else if e, ok := m.Ratings[GenName(m.Generation)]; ok {
		fmt.Fprintf(&b, "; elo %+.0f", e)
	}
	fmt.Fprintf(&b, " [%.0fs]", m.Elapsed)
	return b.String()
}

// AppendMetrics appends one JSON line to path and syncs it.
func AppendMetrics(path string, m Metrics) error { return appendJSONLine(path, m) }

// ReadMetrics reads metrics.jsonl, skipping a final line cut short by a crash.
func ReadMetrics(path string) ([]Metrics, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(data)
	complete := strings.HasSuffix(text, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var out []Metrics
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var m Metrics
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			if i == len(lines)-1 && !complete {
				break
			}
			return nil, fmt.Errorf("%s: line %d: %w", path, i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func sortedNames(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
