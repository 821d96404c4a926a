// Command goclient is the smallest Go game client of YINSH Zero (docs/clients.md): it plays one
// game between a strength level over the embedded reference network and the heuristic baseline,
// printing every action in the notation of docs/rules.md, then asks the bare network (model/policy,
// no search) what it thinks of the final position's predecessor.
//
//	go run ./examples/goclient -level 3
//
// Everything here is pure Go (no cgo): the same code runs in a native binary or in WebAssembly.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/model/policy"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func main() {
	level := flag.Int("level", 3, "the agent's strength level, 1 (weakest) to 10 (the full agent)")
	seed := flag.Uint64("seed", 1, "seed of both players' random choices")
	flag.Parse()
	if err := run(os.Stdout, *level, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
}

// run plays the game and writes what it prints to w.
func run(w io.Writer, level int, seed uint64) error {
	// A searching agent: any player spec of `yinsh arena` works here (level:N, reference,
	// rollout:N, a checkpoint file). Load is the network backend: model/gonum, pure Go.
	opts := selfplay.PlayerOptions{
		Variant: env.Standard, // the level plays this variant's reference network (blitz has its own)
		Load:    func(path string) (model.Net, error) { return gonum.Load(path) },
	}
	newAgent, closer, err := selfplay.OpenPlayer(fmt.Sprintf("level:%d", level), opts)
	if err != nil {
		return err
	}
	defer closer.Close()
	agent, err := newAgent(seed)
	if err != nil {
		return err
	}
	final, actions, err := selfplay.PlayGame(context.Background(), agent, selfplay.NewHeuristic(seed), env.NewState(env.Standard))
	if err != nil {
		return err
	}
	for i, a := range actions {
		fmt.Fprintf(w, "%d. %s\n", i+1, a)
	}
	fmt.Fprintf(w, "result: %s (rings removed: white %d, black %d)\n", final.Outcome(),
		final.RingsRemoved(env.White), final.RingsRemoved(env.Black))

	// The bare network, no search: action probabilities and win/draw/loss for the side to act.
	path, err := nets.Path(env.Standard) // the standard reference network, embedded in the binary, as a file
	if err != nil {
		return err
	}
	p, err := policy.Load(path)
	if err != nil {
		return err
	}
	s := env.NewState(env.Standard)
	if err := env.Replay(s, actions[:len(actions)-1]); err != nil {
		return err
	}
	ev, err := p.Evaluate(s)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "before the last action the network preferred %s; it gave %s win %.2f, draw %.2f, loss %.2f\n",
		ev.Best(), s.CurrentPlayer(), ev.WDL[0], ev.WDL[1], ev.WDL[2])
	return nil
}
