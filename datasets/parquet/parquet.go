// Package parquet exports game records as Parquet, one row per position, for pandas, pyarrow and
// other data tools. It is its own package so that the packages reading and writing shards (and
// everything that imports them: selfplay, train) do not link parquet-go.
package parquet

import (
	"fmt"
	"io"

	parquetgo "github.com/parquet-go/parquet-go"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// Row is one position of the Parquet export (pandas and pyarrow read it as one column each).
type Row struct {
	Game      int64  `parquet:"game"`    // 0-based game number in export order
	GameID    uint64 `parquet:"game_id"` // the record's ID
	Ply       int32  `parquet:"ply"`     // 0-based position in the game
	Variant   string `parquet:"variant,dict"`
	Generator string `parquet:"generator,dict"`
	Position  string `parquet:"position"`  // position text before the action
	Side      string `parquet:"side,dict"` // side to act: w or b
	Action    string `parquet:"action"`    // action token
	ActionID  int32  `parquet:"action_id"` // flat action id
	// Target reports whether the position is a training target (it has a policy target).
	Target        bool      `parquet:"target"`
	PolicyActions []int32   `parquet:"policy_actions,list"`
	PolicyProbs   []float32 `parquet:"policy_probs,list"`
	RootWDL       []float32 `parquet:"root_wdl,list"` // win, draw, loss for the side to act
	Outcome       string    `parquet:"outcome,dict"`  // white, black, draw or ongoing
	// ValueTarget is the outcome for the side to act: +1 win, 0 draw, -1 loss; null when unfinished.
	ValueTarget *float32 `parquet:"value_target,optional"`
}

// Rows returns the rows of one record; game is its number in the export.
func Rows(game int64, r *datasets.Record) ([]Row, error) {
	rows := make([]Row, len(r.Actions))
	s := env.NewState(r.Variant)
	for i, a := range r.Actions {
		t := &r.Targets[i]
		row := &rows[i]
		*row = Row{
			Game: game, GameID: r.ID, Ply: int32(i), Variant: r.Variant.String(), Generator: r.Generator,
			Position: s.Text(), Side: "wb"[s.CurrentPlayer() : s.CurrentPlayer()+1], Action: a.String(),
			ActionID: int32(a), Target: t.IsTarget(),
			PolicyActions: make([]int32, len(t.Policy)), PolicyProbs: make([]float32, len(t.Policy)),
			RootWDL: []float32{t.RootWDL[0], t.RootWDL[1], t.RootWDL[2]}, Outcome: r.Outcome.String(),
		}
		for k, e := range t.Policy {
			row.PolicyActions[k], row.PolicyProbs[k] = int32(e.Action), e.Prob
		}
		if r.Outcome != env.Ongoing {
			v := datasets.ValueFor(r.Outcome, s.CurrentPlayer())
			x := v[0] - v[2]
			row.ValueTarget = &x
		}
		if err := s.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("datasets: game %d ply %d %q: %w", r.ID, i+1, a, err)
		}
	}
	return rows, nil
}

// Export writes every position of every finished shard of dir to w as Parquet (zstd compressed) and
// returns the number of rows. Damaged shards and illegal records are errors.
func Export(w io.Writer, dir string) (int64, error) {
	pw := parquetgo.NewGenericWriter[Row](w, parquetgo.Compression(&parquetgo.Zstd),
		parquetgo.CreatedBy("yinsh-zero", "1", ""))
	var games, rows int64
	err := datasets.ScanDir(dir, func(shard string, index int, r *datasets.Record) error {
		rs, err := Rows(games, r)
		if err != nil {
			return fmt.Errorf("%s: record %d: %w", shard, index+1, err)
		}
		if _, err := pw.Write(rs); err != nil {
			return fmt.Errorf("datasets: parquet: %w", err)
		}
		games++
		rows += int64(len(rs))
		return nil
	})
	if err != nil {
		return rows, err
	}
	if err := pw.Close(); err != nil {
		return rows, fmt.Errorf("datasets: parquet: %w", err)
	}
	return rows, nil
}
