package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train"
)

// ArenaOptions configures `yinsh arena`.
type ArenaOptions struct {
	BackendFlags
	Out, Err io.Writer
	A, B     string
	Games    int
	// Search is the player's search settings (--sims and whether it was given, --movetime,
	// --gumbel, --leaves-in-flight, --rollout-mix): the one type every command builds players with.
	selfplay.Search
	Parallel     int
	Seed         uint64
	Variant      env.Variant
	Results      string // results file to append to ("" for none, "auto" next to the rated run)
	Record       string // game record file to write ("" for none)
	Force        bool   // overwrite an existing record file
	Openings     string // opening file ("" for random openings)
	OpeningPlies int
	SPRTElo0     float64
	SPRTElo1     float64
	SPRTStop     bool // end the match once the GSPRT decides (Games is then the most)
	// EngineTimeout bounds an external engine's decision (0: the default)
	EngineTimeout time.Duration
	// AnyVariant plays checkpoints trained for the other variant too.
	AnyVariant bool
}

func newArenaCmd() *cobra.Command { return newCmdArena(nil) }

func newCmdArena(runF func(*ArenaOptions) error) *cobra.Command {
	opts := &ArenaOptions{}
	var variant string
	var movetime int
	var mix float64
	cmd := &cobra.Command{
		Use:   "arena --a PLAYER --b PLAYER --games N",
		Short: "Play two players in game pairs from varied openings; report score, Elo and a GSPRT verdict",
		Long: `Play two players against each other as a sequence of game pairs (as Fishtest and cutechess-cli
do): both games of a pair start from the same opening with colours swapped, so every game differs
even between deterministic players and the opening's bias cancels out. An opening is
--opening-plies random ring placements, or a line of --openings FILE (action tokens or a position
text). Games run in parallel with fixed seeds.

PLAYER is a checkpoint file, reference, level:N (strength level N in [1, 10] over the reference
network: yinsh levels), random, heuristic, rollout:N (pure MCTS with N random-rollout
simulations) or engine:"CMD ARGS" (an external program speaking the engine protocol). --sims sets
the simulations of checkpoint players. --movetime MS bounds every searching player by time instead
(simulations then cap it: --sims if given, rollout:N's N): players of different cost compared at
equal time.

The report gives wins, draws and losses, the pentanomial counts of the pairs, Elo and normalised
Elo with 95% intervals, a GSPRT verdict (Fishtest's generalised SPRT on the pentanomial), and each
side's mean and maximum time per move.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			switch {
			case opts.A == "" || opts.B == "":
				return fmt.Errorf("--a and --b are required")
			case opts.Games < 2 || opts.Games%2 != 0:
				return fmt.Errorf("--games %d: a match is played in game pairs (each opening with both colours, so its bias cancels), give an even number of at least 2 (%d or %d)", opts.Games, max(2, opts.Games-1), opts.Games+1)
			case opts.Parallel < 1:
				return fmt.Errorf("--parallel must be at least 1, got %d", opts.Parallel)
			case opts.OpeningPlies < 0 || opts.OpeningPlies > selfplay.MaxOpeningPlies:
				return fmt.Errorf("--opening-plies must be in [0, %d] (ring placements), got %d", selfplay.MaxOpeningPlies, opts.OpeningPlies)
			case !(opts.SPRTElo1 > opts.SPRTElo0):
				return fmt.Errorf("--sprt-elo1 (%g) must be above --sprt-elo0 (%g)", opts.SPRTElo1, opts.SPRTElo0)
			}
			if err := checkSearchFlags(mix, opts.Sims, movetime, opts.LeavesInFlight); err != nil {
				return err
			}
			opts.MoveTime, opts.RolloutMix = time.Duration(movetime)*time.Millisecond, float32(mix)
			opts.SimsSet = cmd.Flags().Changed("sims")
			opts.Variant, opts.Out, opts.Err = v, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := checkVariant("--a", opts.A, v, opts.AnyVariant); err != nil {
				return err
			}
			if err := checkVariant("--b", opts.B, v, opts.AnyVariant); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return arenaRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.BackendFlags.add(f)
	// -a and -b as well: cobra completes a one-letter flag's value through its shorthand only
	f.StringVarP(&opts.A, "a", "a", "", `player A: checkpoint file, reference, level:N, random, heuristic, rollout:N or engine:"CMD ARGS"`)
	f.StringVarP(&opts.B, "b", "b", "", "player B")
	f.IntVar(&opts.Games, "games", 100, "number of games, even: pairs of two, each opening played with both colours")
	f.IntVar(&opts.Sims, "sims", 200, "simulations per decision for checkpoint players (with --movetime: a cap, none unless given)")
	f.IntVar(&movetime, "movetime", 0, "milliseconds per decision for searching players (0: bounded by simulations)")
	f.IntVar(&opts.Parallel, "parallel", 2, "games played at once (keep at most the cores with --movetime)")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed (players and random openings)")
	f.StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	f.StringVar(&opts.Openings, "openings", "", "opening file: one opening per line, action tokens or a position text (default: random openings)")
	f.IntVar(&opts.OpeningPlies, "opening-plies", selfplay.DefaultOpeningPlies, "random ring placements that open each pair (without --openings)")
	f.StringVar(&opts.Record, "record", "", "write every game to this file, one line each (tokens, then opening, colours and result; yinsh replay reads it)")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing --record file")
	f.StringVar(&opts.Results, "results", "auto", "append the result to this JSONL file (\"\" for none; auto: RUN/"+arenaResultsName+" when a player is a checkpoint of run RUN, else ./"+train.ResultsFileName+")")
	f.Float64Var(&opts.SPRTElo0, "sprt-elo0", 0, "GSPRT H0 Elo difference (logistic)")
	f.Float64Var(&opts.SPRTElo1, "sprt-elo1", 30, "GSPRT H1 Elo difference (logistic; alpha = beta = 0.05)")
	f.BoolVar(&opts.SPRTStop, "sprt-stop", false, "end the match once the GSPRT accepts H0 or H1 (--games is then the most; every started pair is finished)")
	f.BoolVar(&opts.Gumbel, "gumbel", false, "checkpoint players search with Gumbel AlphaZero's root (else PUCT)")
	f.Float64Var(&mix, "rollout-mix", 0, "checkpoint players' leaf value: (1-λ)·network + λ·random rollout")
	f.DurationVar(&opts.EngineTimeout, "engine-timeout", 0, "engine:\"CMD\" players: time a decision may take before the engine is killed and loses the game (0: 60s, or 2×movetime+2s)")
	f.IntVar(&opts.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint player's search sends per network call (1: sequential search)")
	f.BoolVar(&opts.AnyVariant, "any-variant", false, "play checkpoints trained for the other variant too")
	return cmd
}

// arenaResultsName is the results file arena writes into a run directory by default; `yinsh ratings
// RUN` reads it with the run's own results.jsonl (both match results*.jsonl).
const arenaResultsName = "results-arena.jsonl"

// defaultResults returns where arena appends its result by default: next to the run of the first
// player that is a checkpoint of a run directory (see runOf), else results.jsonl in the current
// directory.
func defaultResults(players ...string) string {
	for _, p := range players {
		if dir := runOf(p); dir != "" {
			return filepath.Join(dir, arenaResultsName)
		}
	}
	return train.ResultsFileName
}

// runOf returns the run directory a checkpoint player belongs to: RUN for RUN/checkpoints/NAME.ckpt
// and for RUN/best.ckpt (any .ckpt directly in RUN), where RUN holds state.json; "" otherwise.
func runOf(spec string) string {
	if !strings.HasSuffix(spec, ".ckpt") {
		return ""
	}
	dir := filepath.Dir(spec)
	if filepath.Base(dir) == "checkpoints" {
		dir = filepath.Dir(dir)
	}
	if _, err := os.Stat(filepath.Join(dir, train.StateFile)); err != nil {
		return ""
	}
	return dir
}

// runPlayerName is the name training gives a checkpoint of the run whose results file arena
// appends to (gen-NNNN, the name in the run's results.jsonl), so that a network is one player to
// `yinsh ratings RUN` whether training or arena played it: the file's generation name for
// RUN/checkpoints/gen-NNNN.ckpt, the generation its metadata records for RUN/best.ckpt. Other specs,
// and checkpoints of other runs, keep their spec as their name (ok false).
func runPlayerName(spec, resultsFile string) (string, bool) {
	dir := runOf(spec)
	if dir == "" || filepath.Base(resultsFile) != arenaResultsName || !sameDir(dir, filepath.Dir(resultsFile)) {
		return "", false
	}
	if g, ok := train.ParseCheckpointName(filepath.Base(spec)); ok && filepath.Base(filepath.Dir(spec)) == "checkpoints" {
		return train.GenName(g), true
	}
	h, err := model.ReadMetadata(spec)
	if err != nil || h.Meta.Run == nil {
		return "", false
	}
	return train.GenName(h.Meta.Run.Generation), true
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// ratedName is the name a player gets in results: its spec, with "@MSms" for searching players under
// a time control (a different strength than the same player bounded by simulations).
func ratedName(spec string, movetime time.Duration) string {
	if movetime <= 0 || spec == "random" || spec == "heuristic" {
		return spec
	}
	return fmt.Sprintf("%s@%dms", spec, movetime.Milliseconds())
}

func arenaRun(ctx context.Context, opts *ArenaOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	popts := selfplay.PlayerOptions{Search: opts.Search, Variant: opts.Variant, Parallel: opts.Parallel, EngineTimeout: opts.EngineTimeout}
	var err error
	if popts.Load, err = opts.loader(); err != nil {
		return err
	}
	var openings []selfplay.Opening
	if opts.Openings != "" {
		var err error
		if openings, err = selfplay.LoadOpenings(opts.Openings, opts.Variant); err != nil {
			return fmt.Errorf("--openings: %w", err)
		}
	}
	fa, ca, err := selfplay.OpenPlayer(opts.A, popts)
	if err != nil {
		return fmt.Errorf("--a: %w", err)
	}
	defer ca.Close()
	fb, cb, err := selfplay.OpenPlayer(opts.B, popts)
	if err != nil {
		return fmt.Errorf("--b: %w", err)
	}
	defer cb.Close()
	results := opts.Results
	if results == "auto" {
		results = defaultResults(opts.A, opts.B)
	}
	// a checkpoint of the run the result goes to is named as training names it
	name := func(spec string) string {
		if n, ok := runPlayerName(spec, results); ok {
			return ratedName(n, opts.MoveTime)
		}
		return ratedName(spec, opts.MoveTime)
	}
	nameA, nameB := name(opts.A), name(opts.B)
	var rec *recordWriter
	if opts.Record != "" {
		if rec, err = createRecord(opts.Record, opts.Force, nameA, nameB, opts); err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		defer rec.Close()
	}
	bar := progress.New(opts.Err, opts.Games, "arena", 10*time.Second)
	start := time.Now()
	var sprtStop func(selfplay.MatchResult) bool
	sprt := &train.SPRTStopper{Elo0: opts.SPRTElo0, Elo1: opts.SPRTElo1}
	if opts.SPRTStop {
		sprtStop = sprt.Stop
	}
	res, err := selfplay.Match(ctx, fa, fb, selfplay.MatchOptions{
		Games: opts.Games, Parallel: opts.Parallel, Seed: opts.Seed, Variant: opts.Variant, Stop: sprtStop,
		Openings: openings, OpeningPlies: opts.OpeningPlies,
		OnGame: func(done int, r selfplay.MatchResult, g selfplay.GameRecord) error {
			bar.Add(1, fmt.Sprintf("+%d =%d -%d", r.Wins, r.Draws, r.Losses))
			if g.Forfeit >= 0 {
				fmt.Fprintf(opts.Err, "game %d: %s loses by forfeit: %s\n", g.Game+1, env.Color(g.Forfeit), g.Reason)
			}
			if rec != nil {
				return rec.write(g, nameA, nameB)
			}
			return nil
		},
	})
	bar.Finish()
	if err != nil {
		return err
	}
	if rec != nil {
		if err := rec.Close(); err != nil {
			return fmt.Errorf("--record: %w", err)
		}
	}
	res.A, res.B = nameA, nameB
	if sprt.Decided() {
		fmt.Fprintf(opts.Out, "stopped by the GSPRT: %s after %d of %d games (--sprt-stop; the games then in flight, %d, finished their pairs and count below)\n",
			train.VerdictText(sprt.Verdict), sprt.Games, opts.Games, res.Games()-sprt.Games)
	}
	printMatch(opts.Out, res, opts.SPRTElo0, opts.SPRTElo1, time.Since(start))
	if results != "" {
		r := train.ResultOf(res, nameA, nameB)
		r.Sims, r.MoveTimeMS = opts.Sims, int(opts.MoveTime.Milliseconds())
		if opts.MoveTime > 0 && !opts.SimsSet {
			r.Sims = 0
		}
		if err := train.AppendResult(results, r); err != nil {
			return fmt.Errorf("--results: %w", err)
		}
		fmt.Fprintf(opts.Out, "results: appended to %s\n", results)
	}
	return nil
}

// printMatch prints a match summary from A's view.
func printMatch(w io.Writer, r selfplay.MatchResult, elo0, elo1 float64, elapsed time.Duration) {
	rep := train.Report(r, elo0, elo1)
	fmt.Fprintf(w, "%s vs %s: %d games in %s\n", r.A, r.B, r.Games(), elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "wins: %d\ndraws: %d\nlosses: %d\n", r.Wins, r.Draws, r.Losses)
	if r.Forfeits != [2]int{} {
		fmt.Fprintf(w, "forfeits: %s %d, %s %d\n", r.A, r.Forfeits[0], r.B, r.Forfeits[1])
	}
	fmt.Fprintf(w, "score: %.4f\n", r.Score())
	for _, line := range rep {
		fmt.Fprintln(w, line)
	}
	for i, name := range []string{r.A, r.B} {
		t := r.Times[i]
		fmt.Fprintf(w, "time per move: %s mean %.3f ms, max %.3f ms (%d moves)\n", name,
			float64(t.Mean().Microseconds())/1000, float64(t.Max.Microseconds())/1000, t.Moves)
	}
}

// RatingsOptions configures `yinsh ratings`.
type RatingsOptions struct {
	Out, Err io.Writer
	Dir      string
	Anchor   string
	// Steps, when it names two or more players, adds the rating difference of each one over the one
	// before it with its 95% interval (the fit anchored at the one before: the interval of the
	// difference itself, not of two ratings taken apart).
	Steps []string
}

func newRatingsCmd() *cobra.Command {
	opts := &RatingsOptions{}
	cmd := &cobra.Command{
		Use:   "ratings [DIR]",
		Short: "Fit Elo ratings for every player from the match results recorded in DIR (default .)",
		Long: `Fit Elo ratings for every player from every results*.jsonl file in DIR (default the current
directory; a run directory holds results.jsonl from training and results-arena.jsonl from yinsh arena):
maximum likelihood of all match results under the Bradley-Terry model with draws, with 95% intervals.
The anchor is fixed at 0: gen-0000 when the results reach it (a training run), else random.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir, opts.Out, opts.Err = ".", cmd.OutOrStdout(), cmd.ErrOrStderr()
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			return ratingsRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Anchor, "anchor", "", "player fixed at Elo 0 (default: gen-0000 if rated, else random)")
	cmd.Flags().StringSliceVar(&opts.Steps, "steps", nil, "players in order (comma-separated): also print each one's Elo over the one before, with the 95% interval of that difference")
	return cmd
}

func ratingsRun(opts *RatingsOptions) error {
	if len(opts.Steps) == 1 {
		return fmt.Errorf("ratings: --steps: want at least two players, got 1 (%s)", opts.Steps[0])
	}
	results, err := train.ReadResultsNoting(opts.Dir, func(file string, line int) {
		fmt.Fprintf(opts.Err, "warning: %s: line %d is cut short (a write interrupted by a crash): its result is not counted\n", file, line)
	})
	if err != nil {
		return err
	}
	anchor := opts.Anchor
	var rs []train.Rating
	if anchor == "" {
		rs, anchor, err = train.FitRatingsAuto(results)
	} else {
		rs, err = train.FitRatings(results, anchor)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "%-40s %8s %19s %7s\n", "player", "elo", "95% interval", "games")
	for _, r := range rs {
		fmt.Fprintf(opts.Out, "%-40s %+8.1f [%+8.1f, %+8.1f] %7d\n", r.Player, r.Elo.Value, r.Elo.Low, r.Elo.High, r.Games)
	}
	fmt.Fprintf(opts.Out, "anchor: %s = 0, %d results\n", anchor, len(results))
	if len(opts.Steps) == 0 {
		return nil
	}
	return ratingSteps(opts.Out, results, opts.Steps)
}

// ratingSteps prints, for each player of steps after the first, its Elo over the player before it
// with the 95% interval of that difference: the fit anchored at the player before (with one player
// fixed, a rating's interval from the inverse Hessian is that of its difference to the anchor).
func ratingSteps(out io.Writer, results []train.Result, steps []string) error {
	fmt.Fprintf(out, "\n%-40s %8s %19s %s\n", "step", "elo", "95% interval", "separated")
	for i := 1; i < len(steps); i++ {
		lo, hi := steps[i-1], steps[i]
		rs, err := train.FitRatings(results, lo)
		if err != nil {
			return fmt.Errorf("ratings: --steps: %s: %w", lo, err)
		}
		var r *train.Rating
		for k := range rs {
			if rs[k].Player == hi {
				r = &rs[k]
			}
		}
		if r == nil {
			return fmt.Errorf("ratings: --steps: no result names %q", hi)
		}
		sep := "no"
		if r.Elo.Low > 0 {
			sep = "yes"
		}
		fmt.Fprintf(out, "%-40s %+8.1f [%+8.1f, %+8.1f] %s\n", hi+" over "+lo, r.Elo.Value, r.Elo.Low, r.Elo.High, sep)
	}
	return nil
}
