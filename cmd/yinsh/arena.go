package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train"
)

// ArenaOptions configures `yinsh arena`.
type ArenaOptions struct {
	Out, Err   io.Writer
	A, B       string
	Games      int
	Sims       int
	Parallel   int
	Seed       uint64
	Variant    env.Variant
	Results    string // results file to append to ("" for none)
	SPRTElo1   float64
	Gumbel     bool
	RolloutMix float64
	Leaves     int
}

func newArenaCmd() *cobra.Command { return newCmdArena(nil) }

func newCmdArena(runF func(*ArenaOptions) error) *cobra.Command {
	opts := &ArenaOptions{}
	var variant string
	cmd := &cobra.Command{
		Use:   "arena --a PLAYER --b PLAYER --games N",
		Short: "Play two players against each other and report score, Elo difference and SPRT verdict",
		Long: `Play two players against each other with alternating colours, games in parallel, fixed seeds.
PLAYER is a checkpoint file, random, heuristic or rollout:N (pure MCTS with N random-rollout
simulations). --sims sets the simulations of checkpoint players.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := env.ParseVariant(variant)
			if err != nil {
				return err
			}
			switch {
			case opts.A == "" || opts.B == "":
				return fmt.Errorf("--a and --b are required")
			case opts.Games < 1:
				return fmt.Errorf("--games must be at least 1, got %d", opts.Games)
			case opts.Sims < 1:
				return fmt.Errorf("--sims must be at least 1, got %d", opts.Sims)
			case opts.Leaves < 1 || opts.Leaves > 4096:
				return fmt.Errorf("--leaves-in-flight must be in [1, 4096], got %d", opts.Leaves)
			case opts.Parallel < 1:
				return fmt.Errorf("--parallel must be at least 1, got %d", opts.Parallel)
			}
			opts.Variant, opts.Out, opts.Err = v, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return arenaRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.A, "a", "", "player A: checkpoint file, random, heuristic or rollout:N")
	f.StringVar(&opts.B, "b", "", "player B")
	f.IntVar(&opts.Games, "games", 100, "number of games (colours alternate)")
	f.IntVar(&opts.Sims, "sims", 200, "simulations per decision for checkpoint players")
	f.IntVar(&opts.Parallel, "parallel", 2, "games played at once")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed")
	f.StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	f.StringVar(&opts.Results, "results", train.ResultsFileName, "append the result to this JSONL file (\"\" for none)")
	f.Float64Var(&opts.SPRTElo1, "sprt-elo1", 30, "SPRT H1 Elo difference (H0 is 0; alpha = beta = 0.05)")
	f.BoolVar(&opts.Gumbel, "gumbel", false, "checkpoint players search with Gumbel AlphaZero's root (else PUCT)")
	f.Float64Var(&opts.RolloutMix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	f.IntVar(&opts.Leaves, "leaves-in-flight", 8, "leaves a checkpoint player's search sends per network call (1: sequential search)")
	return cmd
}

func arenaRun(ctx context.Context, opts *ArenaOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if !(opts.RolloutMix >= 0 && opts.RolloutMix <= 1) {
		return fmt.Errorf("--rollout-mix must be in [0, 1], got %g", opts.RolloutMix)
	}
	popts := selfplay.PlayerOptions{Sims: opts.Sims, Variant: opts.Variant, Gumbel: opts.Gumbel, RolloutMix: float32(opts.RolloutMix),
		LeavesInFlight: opts.Leaves, Parallel: opts.Parallel}
	fa, err := selfplay.ParsePlayer(opts.A, popts)
	if err != nil {
		return fmt.Errorf("--a: %w", err)
	}
	fb, err := selfplay.ParsePlayer(opts.B, popts)
	if err != nil {
		return fmt.Errorf("--b: %w", err)
	}
	bar := progress.New(opts.Err, opts.Games, "arena", 10*time.Second)
	start := time.Now()
	res, err := selfplay.Match(ctx, fa, fb, selfplay.MatchOptions{
		Games: opts.Games, Parallel: opts.Parallel, Seed: opts.Seed, Variant: opts.Variant,
		OnGame: func(done int, r selfplay.MatchResult) {
			bar.Add(1, fmt.Sprintf("+%d =%d -%d", r.Wins, r.Draws, r.Losses))
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	res.A, res.B = opts.A, opts.B
	printMatch(opts.Out, res, opts.SPRTElo1, time.Since(start))
	if opts.Results != "" {
		r := train.Result{A: opts.A, B: opts.B, Wins: res.Wins, Draws: res.Draws, Losses: res.Losses, Sims: opts.Sims, Time: time.Now().UTC().Format(time.RFC3339)}
		if err := train.AppendResult(opts.Results, r); err != nil {
			return fmt.Errorf("--results: %w", err)
		}
	}
	return nil
}

// printMatch prints a match summary from A's view.
func printMatch(w io.Writer, r selfplay.MatchResult, elo1 float64, elapsed time.Duration) {
	e := train.EloDiff(r.Wins, r.Draws, r.Losses)
	sprt := train.SPRT{Elo0: 0, Elo1: elo1, Alpha: 0.05, Beta: 0.05}
	llr, lo, hi := sprt.LLR(r.Wins, r.Draws, r.Losses)
	fmt.Fprintf(w, "%s vs %s: %d games in %s\n", r.A, r.B, r.Games(), elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "wins: %d\ndraws: %d\nlosses: %d\n", r.Wins, r.Draws, r.Losses)
	fmt.Fprintf(w, "score: %.4f\n", r.Score())
	fmt.Fprintf(w, "elo: %+.1f [%+.1f, %+.1f] (95%%)\n", e.Value, e.Low, e.High)
	fmt.Fprintf(w, "sprt: %s (llr %.2f, bounds [%.2f, %.2f], elo0 0, elo1 %g)\n", sprt.Verdict(r.Wins, r.Draws, r.Losses), llr, lo, hi, elo1)
}

// RatingsOptions configures `yinsh ratings`.
type RatingsOptions struct {
	Out    io.Writer
	Dir    string
	Anchor string
}

func newRatingsCmd() *cobra.Command {
	opts := &RatingsOptions{}
	cmd := &cobra.Command{
		Use:   "ratings DIR",
		Short: "Fit Elo ratings for every player from the match results recorded in DIR (anchor random = 0)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir, opts.Out = args[0], cmd.OutOrStdout()
			return ratingsRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Anchor, "anchor", "random", "player fixed at Elo 0")
	return cmd
}

func ratingsRun(opts *RatingsOptions) error {
	results, err := train.ReadResults(opts.Dir)
	if err != nil {
		return err
	}
	rs, err := train.FitRatings(results, opts.Anchor)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "%-40s %8s %19s %7s\n", "player", "elo", "95% interval", "games")
	for _, r := range rs {
		fmt.Fprintf(opts.Out, "%-40s %+8.1f [%+8.1f, %+8.1f] %7d\n", r.Player, r.Elo.Value, r.Elo.Low, r.Elo.High, r.Games)
	}
	return nil
}
