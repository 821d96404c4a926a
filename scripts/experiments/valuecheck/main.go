// Command valuecheck measures how well a checkpoint's value head predicts the outcomes of recorded
// games, by phase of the game: the share of positions where the sign of the network's value
// (win - loss, for the side to act) matches the outcome, and the mean of value × outcome; the
// recorded search root values are scored the same way for comparison.
//
//	cd scripts/experiments && go run ./valuecheck -checkpoint ../../runs/quickstart/checkpoints/gen-0030.ckpt -games ../../runs/quickstart/games
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

func main() {
	ckpt := flag.String("checkpoint", "", "checkpoint file")
	dir := flag.String("games", "", "directory of game shards (a run's games/)")
	last := flag.Int("last", 300, "score the last N games")
	flag.Parse()
	if err := run(*ckpt, *dir, *last); err != nil {
		fmt.Fprintln(os.Stderr, "valuecheck:", err)
		os.Exit(1)
	}
}

// score accumulates one phase's positions.
type score struct {
	n, netAgree, rootAgree int
	netProd, rootProd      float64
}

func (s *score) add(net, root, z float64) {
	s.n++
	s.netProd += net * z
	s.rootProd += root * z
	if net*z > 0 {
		s.netAgree++
	}
	if root*z > 0 {
		s.rootAgree++
	}
}

var phases = []string{"placement", "move, >16 actions left", "7-16 actions left", "last 6 actions"}

func run(ckpt, dir string, last int) error {
	net, err := gonum.Load(ckpt)
	if err != nil {
		return err
	}
	var recs []*datasets.Record
	if err := datasets.ScanDir(dir, func(_ string, _ int, r *datasets.Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		return err
	}
	if len(recs) == 0 {
		return fmt.Errorf("no games in %s", dir)
	}
	recs = recs[max(0, len(recs)-last):]
	scores := make([]score, len(phases))
	planes := make([]float32, env.ObservationSize)
	pol := make([]float32, env.NumActions)
	wdl := make([]float32, 3)
	for _, r := range recs {
		s := env.NewState(r.Variant)
		for i, a := range r.Actions {
			if s.Phase() != env.PhaseRemoveRow && s.Phase() != env.PhaseRemoveRing && r.Targets[i].IsTarget() {
				s.Observation(planes)
				if err := net.Predict(1, planes, nil, pol, wdl); err != nil {
					return err
				}
				m := max(wdl[0], wdl[1], wdl[2])
				w, d, l := math.Exp(float64(wdl[0]-m)), math.Exp(float64(wdl[1]-m)), math.Exp(float64(wdl[2]-m))
				v := (w - l) / (w + d + l)
				zv := datasets.ValueFor(r.Outcome, s.CurrentPlayer())
				root := r.Targets[i].RootWDL
				k := 0
				switch left := len(r.Actions) - i; {
				case s.Phase() == env.PhasePlace:
				case left > 16:
					k = 1
				case left > 6:
					k = 2
				default:
					k = 3
				}
				scores[k].add(v, float64(root[0]-root[2]), float64(zv[0]-zv[2]))
			}
			if err := s.ApplyAction(a); err != nil {
				return fmt.Errorf("game %d ply %d: %w", r.ID, i+1, err)
			}
		}
	}
	fmt.Printf("%d games; sign agreement with the outcome and mean value×outcome, for the side to act\n", len(recs))
	for k, name := range phases {
		sc := scores[k]
		if sc.n == 0 {
			continue
		}
		n := float64(sc.n)
		fmt.Printf("%-24s %6d positions   network %.2f %+.3f   search root %.2f %+.3f\n",
			name, sc.n, float64(sc.netAgree)/n, sc.netProd/n, float64(sc.rootAgree)/n, sc.rootProd/n)
	}
	return nil
}
