// Command scaling runs the rating pool of the scaling study (BENCHMARKS.md, "Scaling") and plots
// its result: Elo against training compute, one line per network size.
//
//	scaling checkpoints -run RUN -net NAME -at 25,60,150 [-unit minutes|games] >> POOL
//	scaling pool -pool FILE -dir DIR [-movetime 100] [-games 2] [-adaptive [-target 50] [-max-games N]]
//	scaling plot -pool FILE -dir DIR [-movetime 100] [-anchor LABEL] [-anchor-elo 0]
//
// A pool file lists the players, after a header naming the unit of the compute column:
//
//	unit: minutes
//	# label    net_size  compute  SPEC
//	tiny-25    tiny      25       ../scaling-tiny/checkpoints/gen-0006.ckpt
//	ref        -         -        reference
//	rollout    -         -        rollout:1000000
//
// SPEC is any player `yinsh arena` takes (a checkpoint file, reference, random, heuristic,
// rollout:N, engine:"CMD ARGS"); a relative checkpoint path is read from the pool file's directory.
// Compute "-" marks an anchor or baseline: rated, drawn as a horizontal line, not on a curve.
//
// checkpoints prints the pool lines of a training run's checkpoints at compute budgets: for each
// budget the first generation whose cumulative compute reaches it, labelled PREFIX+budget, its
// compute as measured (minutes: the pretrain's wall time plus the generations' elapsed_s from
// metrics.jsonl; games: self-play games), its checkpoint's absolute path.
//
// pool plays game pairs (both colours from one random opening, as `yinsh arena` does) between
// every two players at -movetime per move, -games games a pair (the round robin), and with
// -adaptive then schedules further game pairs towards the pairs whose Elo difference interval is
// widest (counting the information a game between them carries) until every player's 95% interval
// is within ±-target Elo or the pool holds -max-games games. Each game pair's result is appended as
// it ends to DIR/results-pool.jsonl, one line in the format `yinsh arena` appends to
// results-arena.jsonl, so `yinsh ratings DIR --anchor NAME` fits them; players are named by
// their label, with @MSms for searching players (as arena names players under a time control).
// It resumes: pairs already in DIR's results*.jsonl count, and only what is missing is played
// (a game pair in flight when it is stopped is lost). Progress goes to stderr.
//
// plot fits every results*.jsonl in DIR (the product's train.FitRatings, BayesElo's model, the
// anchor fixed at -anchor-elo) and writes DIR/scaling.png (Elo with 95% interval bars against
// compute on a log axis, one line per network size, anchors dashed) and DIR/scaling.md (the table
// for BENCHMARKS.md with the Elo gained per doubling of compute of each size), and prints the
// table.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: scaling checkpoints|pool|plot [flags]   (scaling SUBCOMMAND -help)`

func run(args []string, out, errw io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(errw, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "pool":
		err = poolCmd(args[1:], errw)
	case "plot":
		err = plotCmd(args[1:], out, errw)
	case "checkpoints":
		err = checkpointsCmd(args[1:], out, errw)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(out, usage)
		return 0
	default:
		fmt.Fprintf(errw, "scaling: unknown subcommand %q\n%s\n", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(errw, "scaling:", err)
		return 1
	}
	return 0
}

func poolCmd(args []string, errw io.Writer) error {
	fs := flag.NewFlagSet("scaling pool", flag.ContinueOnError)
	fs.SetOutput(errw)
	o := &poolOptions{Err: errw}
	fs.StringVar(&o.Pool, "pool", "", "pool file (see the package comment)")
	fs.StringVar(&o.Dir, "dir", "", "directory of the results (DIR/"+resultsName+" is appended to)")
	ms := fs.Int("movetime", 100, "milliseconds per move, every searching player")
	fs.IntVar(&o.Games, "games", 2, "games per pair of players in the round robin (even: game pairs)")
	fs.BoolVar(&o.Adaptive, "adaptive", false, "after the round robin, play towards the widest Elo intervals until -target or -max-games")
	fs.Float64Var(&o.Target, "target", 50, "with -adaptive: stop when every player's 95% interval is within ± this many Elo")
	fs.IntVar(&o.MaxGames, "max-games", 0, "with -adaptive: stop when the pool's pairs hold this many games (0: no limit)")
	fs.StringVar(&o.Anchor, "anchor", "", "label of the player fixed at 0 in the adaptive fit (default: the first player with compute -)")
	fs.IntVar(&o.Parallel, "parallel", 2, "game pairs played at once (at most the cores: the players are timed)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the openings and players (each pair of players' k-th game pair has its own)")
	variant := fs.String("variant", "standard", "rules: standard or blitz")
	fs.IntVar(&o.OpeningPlies, "opening-plies", selfplay.DefaultOpeningPlies, "random ring placements opening each game pair")
	fs.BoolVar(&o.Gumbel, "gumbel", false, "checkpoint players search with Gumbel's root (else PUCT, as yinsh arena's default)")
	fs.Float64Var(&o.RolloutMix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	fs.IntVar(&o.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint player's search sends per network call")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("pool: unexpected arguments %q", fs.Args())
	}
	if o.Pool == "" || o.Dir == "" {
		return fmt.Errorf("pool: -pool and -dir are required")
	}
	v, err := env.ParseVariant(*variant)
	if err != nil {
		return fmt.Errorf("-variant: %w", err)
	}
	if o.RolloutMix < 0 || o.RolloutMix > 1 {
		return fmt.Errorf("-rollout-mix must be in [0, 1], got %g", o.RolloutMix)
	}
	if o.LeavesInFlight < 1 {
		return fmt.Errorf("-leaves-in-flight must be at least 1, got %d", o.LeavesInFlight)
	}
	o.Variant, o.MoveTime = v, time.Duration(*ms)*time.Millisecond
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return poolRun(ctx, o)
}

func plotCmd(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("scaling plot", flag.ContinueOnError)
	fs.SetOutput(errw)
	o := &plotOptions{Out: out}
	fs.StringVar(&o.Pool, "pool", "", "pool file (see the package comment)")
	fs.StringVar(&o.Dir, "dir", "", "directory of the results (every results*.jsonl in it is fitted)")
	ms := fs.Int("movetime", 100, "the pool's milliseconds per move (its players are named LABEL@MSms)")
	fs.StringVar(&o.Anchor, "anchor", "", "label of the player fixed at -anchor-elo (default: the first player with compute -)")
	fs.Float64Var(&o.AnchorElo, "anchor-elo", 0, "the anchor's Elo")
	fs.StringVar(&o.PNG, "png", "", "plot file (default DIR/scaling.png)")
	fs.StringVar(&o.MD, "md", "", "Markdown table file (default DIR/scaling.md)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("plot: unexpected arguments %q", fs.Args())
	}
	if o.Pool == "" || o.Dir == "" {
		return fmt.Errorf("plot: -pool and -dir are required")
	}
	if *ms <= 0 {
		return fmt.Errorf("-movetime must be positive, got %d", *ms)
	}
	o.MoveTime = time.Duration(*ms) * time.Millisecond
	return plotRun(o)
}

func checkpointsCmd(args []string, out, errw io.Writer) error {
	fs := flag.NewFlagSet("scaling checkpoints", flag.ContinueOnError)
	fs.SetOutput(errw)
	o := &checkpointsOptions{Out: out, Err: errw}
	fs.StringVar(&o.Run, "run", "", "training run directory")
	fs.StringVar(&o.Net, "net", "", "network size column (e.g. tiny, c32b4)")
	fs.StringVar(&o.Prefix, "prefix", "", "label prefix (default NET-)")
	at := fs.String("at", "", "compute budgets, comma separated (e.g. 25,60,150)")
	fs.StringVar(&o.Unit, "unit", "minutes", "budget unit: minutes (wall time, pretrain included) or games (self-play games)")
	fs.Float64Var(&o.PretrainMinutes, "pretrain-minutes", -1, "wall minutes of the expert games and the fit (default: from the run's files)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("checkpoints: unexpected arguments %q", fs.Args())
	}
	if o.Run == "" || o.Net == "" || *at == "" {
		return fmt.Errorf("checkpoints: -run, -net and -at are required")
	}
	if o.Unit != "minutes" && o.Unit != "games" {
		return fmt.Errorf("-unit %q: want minutes or games", o.Unit)
	}
	if o.Prefix == "" {
		o.Prefix = o.Net + "-"
	}
	var err error
	if o.Budgets, err = parseBudgets(*at); err != nil {
		return err
	}
	return checkpointsRun(o)
}
