package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func newLevelsCmd() *cobra.Command {
	var variant string
	cmd := &cobra.Command{
		Use:   "levels",
		Short: "List the strength levels (player level:N): each one's recipe and calibrated Elo",
		Long: `List the strength levels, the player specs level:1 (weakest) to level:10 (the full agent), which
play, arena, engine (set level N), analyze and serve accept: each level's recipe over the reference
network and its Elo with a 95% interval once calibrated (scripts/calibrate-levels.sh: matches of
each player against the next two in the chain random, level:1 ... level:10, reference, and heuristic
against levels 2-4, fitted by yinsh ratings). Each variant has its own
reference network: a level plays the standard one in standard games and the blitz one in blitz
games, with the same recipe, and its own calibration: --variant picks the column shown.

The Elo is on the scale of yinsh ratings (BayesElo's, whose differences are smaller than a single
match's Elo), random at 0, every searching player given at most 500 ms a decision.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := env.ParseVariant(variant)
			if err != nil {
				return fmt.Errorf("--variant: %w", err)
			}
			return levelsRun(cmd.OutOrStdout(), v)
		},
	}
	cmd.Flags().StringVar(&variant, "variant", "standard", "whose calibration to show: standard or blitz")
	return cmd
}

// levelsRun writes the levels table with the ratings of variant v.
func levelsRun(out io.Writer, v env.Variant) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "level\tElo, %s (random = 0)\trecipe\n", v)
	for _, lv := range selfplay.Levels {
		elo := "not calibrated"
		if r := lv.Rating(v); r.Known() {
			elo = fmt.Sprintf("%.0f [%.0f, %.0f]", r.Elo, r.Low, r.High)
		}
		fmt.Fprintf(w, "%s%d\t%s\t%s\n", selfplay.LevelPrefix, lv.N, elo, lv.Recipe())
	}
	return w.Flush()
}
