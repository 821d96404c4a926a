// Command placement measures how the prior that breaks ties between unvisited children changes a
// pure-rollout MCTS player, and how a checkpoint's search fares with other priors and leaf-value
// mixes, against the rollout:N baseline (BENCHMARKS.md, "The baseline's move-order bias").
//
// Player A searches like rollout:N (LeavesInFlight 1, no noise, greedy) with leaves valued by
// one random rollout, but with its children in action-id order, and priors from -prior:
//
//	uniform        every prior equal: ties go to the lowest action id, like rollout:N before it
//	               shuffled its children (so its rings cluster in the a1 corner)
//	reverse        priors rising with the action id: ties go to the highest
//	noise-state    uniform × (1 + 0.1·u), u drawn per (state, action)
//	noise-action   uniform × (1 + 0.1·u), u drawn per action id (the same order in every state)
//	noise-place    noise-action on ring placements only
//	noise-move     noise-action on every other action only
//	cluster        placements ∝ exp(-hex distance to the nearest ring), others uniform
//	cluster-own    … to the nearest own ring
//	cluster-opp    … to the nearest opponent ring
//	centre, edge   placements ∝ exp(-distance to / from the centre)
//
// With -checkpoint, A is instead that network's search with leaf value (1-λ)·network + λ·rollout;
// -policy-temp, -cpuct, -fpu and -place-uniform (uniform priors on ring placements) vary it.
// -ordered-baseline makes B the old rollout:N, its children in action-id order.
//
//	cd scripts/experiments && go run ./placement -prior noise-place -games 300
//	cd scripts/experiments && go run ./placement -checkpoint ../../runs/quickstart/checkpoints/gen-0030.ckpt -lambda 0.5 -ordered-baseline -games 100
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func main() {
	games := flag.Int("games", 100, "games (colours alternate)")
	sims := flag.Int("sims", 200, "simulations per action, both players")
	prior := flag.String("prior", "uniform", "player A's priors (see the package comment)")
	ckpt := flag.String("checkpoint", "", "play this checkpoint's search instead of a prior variant")
	lambda := flag.Float64("lambda", 0.5, "with -checkpoint: leaf value (1-λ)·network + λ·rollout")
	gumbel := flag.Bool("gumbel", false, "with -checkpoint: Gumbel root search")
	temp := flag.Float64("policy-temp", 1, "with -checkpoint: priors ∝ p^(1/T)")
	cpuct := flag.Float64("cpuct", 1.25, "with -checkpoint: PUCT exploration constant")
	fpu := flag.Float64("fpu", 0.25, "with -checkpoint: first-play-urgency reduction")
	ordered := flag.Bool("ordered-baseline", false, "B is rollout:N with its children in action-id order (as before it shuffled them)")
	placeUniform := flag.Bool("place-uniform", false, "with -checkpoint: uniform priors on ring placements (ties to the lowest id, like the baseline)")
	seed := flag.Uint64("seed", 1, "match seed")
	flag.Parse()
	if err := run(*games, *sims, *prior, *ckpt, *lambda, *gumbel, *placeUniform, *ordered, *temp, *cpuct, *fpu, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "placement:", err)
		os.Exit(1)
	}
}

func run(games, sims int, prior, ckpt string, lambda float64, gumbel, placeUniform, ordered bool, temp, cpuct, fpu float64, seed uint64) error {
	var a selfplay.PlayerFactory
	name := "prior " + prior
	if ckpt != "" && (placeUniform || temp != 1 || cpuct != 1.25 || fpu != 0.25) {
		net, err := gonum.Load(ckpt)
		if err != nil {
			return err
		}
		ne := &mcts.NetEvaluator{Net: net.Predict, PolicyLogits: true, WDLLogits: true}
		uni := mcts.EvaluatorFunc(func(reqs []mcts.Request, out []mcts.Evaluation) error {
			if err := ne.Evaluate(reqs, out); err != nil {
				return err
			}
			for i, q := range reqs {
				if temp != 1 {
					var sum float32
					for j, p := range out[i].Priors {
						out[i].Priors[j] = float32(math.Pow(float64(p), 1/temp))
						sum += out[i].Priors[j]
					}
					for j := range out[i].Priors {
						out[i].Priors[j] /= sum
					}
				}
				if placeUniform && len(q.Legal) > 0 && isPlace(q.Legal[0]) {
					for j := range out[i].Priors {
						out[i].Priors[j] = 1 / float32(len(q.Legal))
					}
				}
			}
			return nil
		})
		cfg := selfplay.SearchConfig(sims, gumbel)
		cfg.LeavesInFlight = 1
		cfg.CPUCT, cfg.FPUReduction = cpuct, fpu
		ev := &mcts.Mix{Net: uni, Rollout: mcts.Rollout{Playouts: 1}, Lambda: float32(lambda)}
		name = fmt.Sprintf("%s λ=%g T=%g cpuct=%g fpu=%g uniform-placement=%v", ckpt, lambda, temp, cpuct, fpu, placeUniform)
		a = func(s uint64) (selfplay.Player, error) { return selfplay.NewSearchPlayer(name, cfg, ev, s) }
	} else if ckpt != "" {
		f, err := selfplay.ParsePlayer(ckpt, selfplay.PlayerOptions{Search: selfplay.Search{Sims: sims,
			RolloutMix: float32(lambda), LeavesInFlight: 1, Gumbel: gumbel}, Variant: env.Blitz, Parallel: 2,
			Load: func(p string) (model.Net, error) { return gonum.Load(p) }})
		if err != nil {
			return err
		}
		a, name = f, fmt.Sprintf("%s λ=%g", ckpt, lambda)
	} else {
		pf, ok := priors[prior]
		if !ok {
			return fmt.Errorf("unknown -prior %q", prior)
		}
		cfg := mcts.DefaultConfig()
		cfg.Simulations, cfg.LeavesInFlight, cfg.DirichletFraction, cfg.Temperature = sims, 1, 0, 0
		ev := &mcts.Mix{Net: priorEvaluator(pf), Rollout: mcts.Rollout{Playouts: 1}, Lambda: 1}
		a = func(s uint64) (selfplay.Player, error) { return selfplay.NewSearchPlayer(name, cfg, ev, s) }
	}
	b, err := selfplay.ParsePlayer(fmt.Sprintf("rollout:%d", sims), selfplay.PlayerOptions{})
	if err != nil {
		return err
	}
	bName := fmt.Sprintf("rollout:%d", sims)
	if ordered {
		// rollout:N as it was before it shuffled its children: ties in action-id order
		cfg := mcts.DefaultConfig()
		cfg.Simulations, cfg.LeavesInFlight, cfg.DirichletFraction, cfg.Temperature = sims, 1, 0, 0
		bName += " (children in action-id order)"
		b = func(s uint64) (selfplay.Player, error) {
			return selfplay.NewSearchPlayer(bName, cfg, mcts.Rollout{Playouts: 1, Seed: s}, s)
		}
	}
	start := time.Now()
	res, err := selfplay.Match(context.Background(), a, b, selfplay.MatchOptions{Games: games, Parallel: 2, Seed: seed, Variant: env.Blitz})
	if err != nil {
		return err
	}
	fmt.Printf("%s vs %s: %d games, +%d =%d -%d, score %.3f (%s)\n", name, bName, res.Games(),
		res.Wins, res.Draws, res.Losses, res.Score(), time.Since(start).Round(time.Second))
	return nil
}

// priorFunc returns the unnormalised prior of legal action a in s.
type priorFunc func(s *env.State, a env.Action) float64

// priorEvaluator gives priors from f and an even WDL (mcts.Mix with λ 1 replaces it by the rollout's).
func priorEvaluator(f priorFunc) mcts.Evaluator {
	return mcts.EvaluatorFunc(func(reqs []mcts.Request, out []mcts.Evaluation) error {
		for i, q := range reqs {
			for j, a := range q.Legal {
				out[i].Priors[j] = float32(f(q.State, a))
			}
			out[i].WDL = [3]float32{0.5, 0, 0.5}
		}
		return nil
	})
}

func isPlace(a env.Action) bool { return a.Kind() == env.KindPlace }

// noise is a number in [0, 1) drawn from x.
func noise(x uint64) float64 {
	x = (x + 0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return float64(x%1000) / 1000
}

var priors = map[string]priorFunc{
	"uniform": func(*env.State, env.Action) float64 { return 1 },
	"reverse": func(_ *env.State, a env.Action) float64 { return 1 + 0.001*float64(a) },
	"noise-state": func(s *env.State, a env.Action) float64 {
		return 1 + 0.1*noise(s.Hash()^uint64(a)*0x9e3779b97f4a7c15)
	},
	"noise-action": func(_ *env.State, a env.Action) float64 { return 1 + 0.1*noise(uint64(a)) },
	"noise-place": func(_ *env.State, a env.Action) float64 {
		if !isPlace(a) {
			return 1
		}
		return 1 + 0.1*noise(uint64(a))
	},
	"noise-move": func(_ *env.State, a env.Action) float64 {
		if isPlace(a) {
			return 1
		}
		return 1 + 0.1*noise(uint64(a))
	},
	"cluster":     nearRings(true, true),
	"cluster-own": nearRings(true, false),
	"cluster-opp": nearRings(false, true),
	"centre":      fromCentre(false),
	"edge":        fromCentre(true),
}

// nearRings favours placements close to the rings already placed (own, opponent's or both).
func nearRings(own, opp bool) priorFunc {
	return func(s *env.State, a env.Action) float64 {
		if !isPlace(a) {
			return 1
		}
		var rings []int
		if own {
			rings = s.Rings(s.CurrentPlayer(), rings)
		}
		if opp {
			rings = s.Rings(s.CurrentPlayer().Other(), rings)
		}
		if len(rings) == 0 {
			return 1
		}
		c := env.PointCell(int(a))
		d := 100
		for _, r := range rings {
			d = min(d, hexDistance(c, r))
		}
		return math.Exp(-float64(d))
	}
}

// fromCentre favours placements near the centre f6 (or, with away, far from it).
func fromCentre(away bool) priorFunc {
	centre, _ := env.ParseCell("f6")
	return func(_ *env.State, a env.Action) float64 {
		if !isPlace(a) {
			return 1
		}
		d := hexDistance(env.PointCell(int(a)), centre)
		if away {
			d = 6 - d
		}
		return math.Exp(-float64(d))
	}
}

// hexDistance is the number of steps between two cells along the board's three line directions
// (columns, rows and the (+1, +1) diagonal of the (column, row) grid).
func hexDistance(a, b int) int {
	c1, r1 := env.CellColRow(a)
	c2, r2 := env.CellColRow(b)
	dc, dr := c2-c1, r2-r1
	if (dc >= 0) == (dr >= 0) {
		return max(abs(dc), abs(dr))
	}
	return abs(dc) + abs(dr)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
