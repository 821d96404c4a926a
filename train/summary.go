package train

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/yinsh-zero/yinsh/model"
)

// ClosingSummary is what yinsh train prints when a run is done, for a person: the best network by
// rating (RUN/best.ckpt's generation, with its Elo and interval against the anchor at the
// evaluation's budget), where it and the plots are, and the commands that play it, measure it and
// rate the run.
func ClosingSummary(dir string, cfg *Config) string {
	var b strings.Builder
	best := filepath.Join(dir, BestFile)
	fmt.Fprintf(&b, "\nrun done: %d generations in %s\n", cfg.Generations, dir)
	gen := -1
	if h, err := model.ReadMetadata(best); err == nil && h.Meta.Run != nil {
		gen = h.Meta.Run.Generation
	}
	var rated string
	if ratings, anchor, err := runRatings(dir); err == nil && gen >= 0 {
		for _, r := range ratings {
			if r.Player == GenName(gen) && r.Elo.finite() {
				rs, _ := ReadResults(dir)
				rated = fmt.Sprintf(", Elo %+.0f [%+.0f, %+.0f] against %s", r.Elo.Value, r.Elo.Low, r.Elo.High, anchor)
				if budget := evalBudget(rs); budget != "" {
					rated += " (evaluation: " + budget + ")"
				}
			}
		}
	}
	switch {
	case gen < 0:
		fmt.Fprintf(&b, "best network: none rated (no %s)\n", best)
	case rated == "":
		fmt.Fprintf(&b, "best network: %s (not rated: the gate's best)\n", GenName(gen))
	default:
		fmt.Fprintf(&b, "best network by rating: %s%s\n", GenName(gen), rated)
	}
	if gen >= 0 {
		fmt.Fprintf(&b, "  network: %s\n", best)
	}
	var plots []string
	for _, p := range []string{"rating.png", "losses.png", "length.png", "selfplay.png", "training.png"} {
		if _, err := os.Stat(filepath.Join(dir, plotsDir, p)); err == nil {
			plots = append(plots, p)
		}
	}
	if len(plots) > 0 {
		fmt.Fprintf(&b, "  plots:   %s (%s)\n", filepath.Join(dir, plotsDir)+string(filepath.Separator), strings.Join(plots, ", "))
	}
	search := " --variant " + cfg.Variant
	if mix := cfg.SelfPlay.RolloutMix; mix > 0 {
		search += fmt.Sprintf(" --rollout-mix %g", mix) // the search it was trained with
	}
	if gen >= 0 {
		b.WriteString("next: play it, measure it against rollout:200, rate the run (arena's matches included):\n")
		fmt.Fprintf(&b, "  yinsh play --checkpoint %s%s\n", best, search)
		fmt.Fprintf(&b, "  yinsh arena --a %s --b rollout:200 --sims 200 --games 200%s --leaves-in-flight 1\n", best, search)
	} else {
		b.WriteString("next: rate the run:\n")
	}
	fmt.Fprintf(&b, "  yinsh ratings %s\n", dir)
	return b.String()
}
