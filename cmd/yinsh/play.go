package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// PlayOptions configures `yinsh play`.
type PlayOptions struct {
	In      io.Reader
	Out     io.Writer
	Player  string // the agent: a checkpoint, random, heuristic or rollout:N
	Sims    int
	As      env.Color // the human's colour
	Variant env.Variant
	Seed    uint64
	Mix     float64 // the agent's leaf value mix with random rollouts
	// MoveTime bounds the agent's search by time (0: by Sims); Sims then caps it only if SimsSet.
	MoveTime time.Duration
	SimsSet  bool
}

func newPlayCmd() *cobra.Command {
	opts := &PlayOptions{}
	var checkpoint, as, variant string
	var movetime int
	cmd := &cobra.Command{
		Use:   "play --checkpoint FILE [--sims N] [--as white|black]",
		Short: "Play against an agent in the terminal",
		Long: `Play against an agent in the terminal. Type action tokens (e5 to place a ring, e5-e8 to move the
ring on e5, xe5-e9 to remove a row, xe5 to remove a ring, pass), or: legal, board, undo, help, quit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := env.ParseVariant(variant)
			if err != nil {
				return err
			}
			switch as {
			case "white":
				opts.As = env.White
			case "black":
				opts.As = env.Black
			default:
				return fmt.Errorf("--as must be white or black, got %q", as)
			}
			switch {
			case checkpoint != "" && opts.Player != "":
				return fmt.Errorf("give --checkpoint or --player, not both")
			case checkpoint != "":
				opts.Player = checkpoint
			case opts.Player == "":
				return fmt.Errorf("--checkpoint FILE (or --player random|heuristic|rollout:N) is required")
			}
			if !(opts.Mix >= 0 && opts.Mix <= 1) {
				return fmt.Errorf("--rollout-mix must be in [0, 1], got %g", opts.Mix)
			}
			if opts.Sims < 1 {
				return fmt.Errorf("--sims must be at least 1, got %d", opts.Sims)
			}
			if movetime < 0 {
				return fmt.Errorf("--movetime must be 0 (none) or a positive number of milliseconds, got %d", movetime)
			}
			opts.MoveTime, opts.SimsSet = time.Duration(movetime)*time.Millisecond, cmd.Flags().Changed("sims")
			opts.Variant, opts.In, opts.Out = v, cmd.InOrStdin(), cmd.OutOrStdout()
			return playRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&checkpoint, "checkpoint", "", "the agent's network checkpoint")
	f.StringVar(&opts.Player, "player", "", "or another agent: random, heuristic, rollout:N")
	f.IntVar(&opts.Sims, "sims", 200, "search simulations per agent action (with --movetime: a cap, none unless given)")
	f.IntVar(&movetime, "movetime", 0, "milliseconds per agent action (0: bounded by --sims)")
	f.StringVar(&as, "as", "white", "your colour: white or black")
	f.StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	f.Uint64Var(&opts.Seed, "seed", 1, "the agent's random seed")
	f.Float64Var(&opts.Mix, "rollout-mix", 0, "the agent's leaf value: (1-λ)·network + λ·random rollout (as in training)")
	return cmd
}

func playRun(opts *PlayOptions) error {
	sims := opts.Sims
	if opts.MoveTime > 0 && !opts.SimsSet {
		sims = unlimitedSims
	}
	factory, closer, err := selfplay.OpenPlayer(opts.Player, selfplay.PlayerOptions{Sims: sims, Variant: opts.Variant, RolloutMix: float32(opts.Mix), MoveTime: opts.MoveTime})
	if err != nil {
		return err
	}
	defer closer.Close()
	agent, err := factory(opts.Seed)
	if err != nil {
		return err
	}
	out := opts.Out
	in := bufio.NewScanner(opts.In)
	s := env.NewState(opts.Variant)
	var history []env.State
	budget := fmt.Sprintf("%d simulations", opts.Sims)
	if opts.MoveTime > 0 {
		budget = fmt.Sprintf("%v a move", opts.MoveTime)
	}
	fmt.Fprintf(out, "You play %s against %s (%s, %s). Type help for commands.\n\n", opts.As, agent.Name(), opts.Variant, budget)
	fmt.Fprint(out, s)
	for !s.IsTerminal() {
		if s.CurrentPlayer() != opts.As {
			d, err := agent.Decide(s)
			if err != nil {
				return err
			}
			history = append(history, *s)
			if err := s.ApplyAction(d.Action); err != nil {
				return fmt.Errorf("agent played an illegal action: %w", err)
			}
			fmt.Fprintf(out, "\n%s plays %s", agent.Name(), d.Action)
			if d.HasValue {
				fmt.Fprintf(out, "  (its view: win %.0f%% draw %.0f%% loss %.0f%%", 100*d.WDL[0], 100*d.WDL[1], 100*d.WDL[2])
				if len(d.Top) > 1 {
					fmt.Fprintf(out, "; also considered")
					for _, t := range d.Top[1:min(len(d.Top), 4)] {
						fmt.Fprintf(out, " %s (%d visits)", t.Action, t.Visits)
					}
				}
				fmt.Fprint(out, ")")
			}
			fmt.Fprintf(out, "\n\n%s", s)
			continue
		}
		fmt.Fprintf(out, "your action (%s): ", phaseHint(s))
		if !in.Scan() {
			fmt.Fprintln(out, "\ngame abandoned")
			return in.Err()
		}
		line := strings.TrimSpace(in.Text())
		switch strings.ToLower(line) {
		case "":
			continue
		case "quit", "exit":
			fmt.Fprintln(out, "game abandoned")
			return nil
		case "help":
			fmt.Fprintln(out, "tokens: e5 (place a ring), e5-e8 (marker on e5, ring to e8), xe5-e9 (remove the row e5..e9), xe5 (remove your ring on e5), pass")
			fmt.Fprintln(out, "commands: legal (list legal actions), board (show the board), undo (take back your last turn), quit")
			continue
		case "board":
			fmt.Fprint(out, s)
			continue
		case "legal":
			var toks []string
			for _, a := range s.LegalActions(nil) {
				toks = append(toks, a.String())
			}
			fmt.Fprintln(out, strings.Join(toks, " "))
			continue
		case "undo":
			// back to the human's previous decision point
			for len(history) > 0 {
				*s = history[len(history)-1]
				history = history[:len(history)-1]
				if s.CurrentPlayer() == opts.As {
					break
				}
			}
			agent.NewGame()
			fmt.Fprint(out, s)
			continue
		}
		a, err := env.ParseAction(line)
		if err != nil {
			fmt.Fprintf(out, "cannot read %q: %v (type help)\n", line, strings.TrimPrefix(err.Error(), "env: "))
			continue
		}
		prev := *s
		if err := s.ApplyAction(a); err != nil {
			fmt.Fprintf(out, "%s is not legal here: %v (type legal to list the legal actions)\n", a, strings.TrimPrefix(err.Error(), "illegal action: "))
			continue
		}
		history = append(history, prev)
		fmt.Fprintf(out, "\n%s", s)
	}
	fmt.Fprintf(out, "\nresult: %s\n", s.Outcome())
	return nil
}

// phaseHint says what the human must do now.
func phaseHint(s *env.State) string {
	switch s.Phase() {
	case env.PhasePlace:
		return "place a ring, e.g. e5"
	case env.PhaseMove:
		return "move a ring, e.g. e5-e8"
	case env.PhaseRemoveRow:
		return "remove a row of yours, e.g. xe5-e9"
	case env.PhaseRemoveRing:
		return "remove a ring of yours, e.g. xe5"
	}
	return ""
}
