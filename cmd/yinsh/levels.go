package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/selfplay"
)

func newLevelsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "levels",
		Short: "List the strength levels (player level:N): each one's recipe and calibrated Elo",
		Long: `List the strength levels, the player specs level:1 (weakest) to level:10 (the full agent), which
play, arena, engine (set level N), analyze and serve accept: each level's recipe over the reference
network and its Elo with a 95% interval once calibrated (scripts/calibrate-levels.sh: a round robin
of the levels, random, heuristic and reference, fitted by yinsh ratings). Each variant has its own
reference network: a level plays the standard one in standard games and the blitz one in blitz
games, with the same recipe. The Elo column is for standard games (scripts/calibrate-levels.sh's
default variant).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return levelsRun(cmd.OutOrStdout())
		},
	}
}

// levelsRun writes the levels table.
func levelsRun(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "level\tElo\trecipe")
	for _, lv := range selfplay.Levels {
		elo := "not calibrated"
		if lv.EloKnown {
			elo = fmt.Sprintf("%.0f [%.0f, %.0f]", lv.Elo, lv.EloLow, lv.EloHigh)
		}
		fmt.Fprintf(w, "%s%d\t%s\t%s\n", selfplay.LevelPrefix, lv.N, elo, lv.Recipe())
	}
	return w.Flush()
}
