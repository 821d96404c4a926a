package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// DatasetsGenerateOptions configures `yinsh datasets generate`.
type DatasetsGenerateOptions struct {
	BackendFlags
	Out, Err      io.Writer
	Player, Vs    string
	Games         int
	Dir           string
	Sims          int
	SimsSet       bool // --sims was given (with --movetime it is then a cap, else there is none)
	MoveTime      time.Duration
	Variant       env.Variant
	Parallel      int
	Seed          uint64
	OpeningPlies  int
	GamesPerShard int
}

// generateManifestName is the file in a generate directory naming the run its games belong to.
const generateManifestName = "generate.json"

// generateManifest is what makes two generate runs the same run: a rerun on the same directory must
// match it, so that its games continue the recorded ones.
type generateManifest struct {
	Format       int    `json:"format"`
	Player       string `json:"player"`
	Vs           string `json:"vs"`
	Variant      string `json:"variant"`
	Seed         uint64 `json:"seed"`
	OpeningPlies int    `json:"opening_plies"`
	// Sims is the simulation budget of checkpoint players (0 when no player is a checkpoint: rollout:N
	// players use their N).
	Sims       int    `json:"sims,omitempty"`
	MoveTimeMS int64  `json:"movetime_ms,omitempty"`
	Generator  string `json:"generator"`
}

func newCmdDatasetsGenerate(runF func(*DatasetsGenerateOptions) error) *cobra.Command {
	opts := &DatasetsGenerateOptions{}
	var variant string
	var movetime int
	cmd := &cobra.Command{
		Use:   "generate --player PLAYER [--vs PLAYER] --games N --out DIR",
		Short: "Play expert games between search players into game-record shards (policy target: the search's visits)",
		Long: `Play --games games between search players and write them as game-record shards into --out, as
self-play writes them, for expert iteration (Anthony, Tian & Barber 2017): each searched position's
policy target is the search's root visit distribution (every visited action, normalised), its root
value the searching side's win/draw/loss, the value target the game's result. The opening plies and
forced actions (one legal action) are not targets, nor are the positions of players that do not
search (random, heuristic, engine:"CMD"). yinsh datasets import-sgf writes boardspace games into the
same shard format, with one-hot targets (the action played).

PLAYER is anything yinsh arena takes: rollout:N (pure MCTS, N random-rollout simulations), a
checkpoint file (--sims simulations), random, heuristic or engine:"CMD ARGS"; --vs defaults to
--player. Games come in pairs from the same --opening-plies random ring placements with colours
swapped, --parallel at a time. --movetime MS bounds every search by time instead (simulations then
cap it: --sims if given, rollout:N's N); games are then no longer reproducible.

Game i is numbered and seeded from --seed and i, and its record id says which game it is: running
the same command again on the same --out continues (a killed run's unfinished shard is recovered,
recorded games are not played again) until the directory holds the --games games. --out keeps a
manifest (` + generateManifestName + `) of the player, opponent, variant, seed, opening plies and
search budget; a run that differs in any of them is refused. Nothing is ever overwritten.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			switch {
			case opts.Player == "":
				return errors.New("--player is required")
			case opts.Dir == "":
				return errors.New("--out is required")
			case opts.Games < 1:
				return fmt.Errorf("--games must be at least 1, got %d", opts.Games)
			case opts.Sims < 0:
				return fmt.Errorf("--sims must be positive, got %d", opts.Sims)
			case movetime < 0:
				return fmt.Errorf("--movetime must be 0 (none) or a positive number of milliseconds, got %d", movetime)
			case opts.Sims == 0 && movetime == 0:
				return errors.New("--sims and --movetime are both 0: give a simulation budget or a move time")
			case opts.Parallel < 1:
				return fmt.Errorf("--parallel must be at least 1, got %d", opts.Parallel)
			case opts.OpeningPlies < 0 || opts.OpeningPlies > selfplay.MaxOpeningPlies:
				return fmt.Errorf("--opening-plies must be in [0, %d] (ring placements), got %d", selfplay.MaxOpeningPlies, opts.OpeningPlies)
			case opts.GamesPerShard < 1:
				return fmt.Errorf("--games-per-shard must be at least 1, got %d", opts.GamesPerShard)
			}
			if opts.Vs == "" {
				opts.Vs = opts.Player
			}
			opts.MoveTime = time.Duration(movetime) * time.Millisecond
			opts.SimsSet = cmd.Flags().Changed("sims") && opts.Sims > 0 // --sims 0 --movetime MS: purely timed
			opts.Variant, opts.Out, opts.Err = v, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := checkVariant("--player", opts.Player, v, false); err != nil {
				return err
			}
			if err := checkVariant("--vs", opts.Vs, v, false); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return datasetsGenerateRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.BackendFlags.add(f)
	f.StringVar(&opts.Player, "player", "", `player A: rollout:N, a checkpoint file, random, heuristic or engine:"CMD ARGS"`)
	f.StringVar(&opts.Vs, "vs", "", "player B (default: the same as --player)")
	f.IntVar(&opts.Games, "games", 0, "number of games the directory should hold (pairs of two; a rerun plays the missing ones)")
	f.StringVar(&opts.Dir, "out", "", "shard directory to write (created if missing; a rerun continues it)")
	f.IntVar(&opts.Sims, "sims", 200, "simulations per decision for checkpoint players (with --movetime: a cap, none unless given)")
	f.IntVar(&movetime, "movetime", 0, "milliseconds per decision for searching players (0: bounded by simulations)")
	f.StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	f.IntVar(&opts.Parallel, "parallel", runtime.NumCPU(), "games played at once")
	f.Uint64Var(&opts.Seed, "seed", 1, "random seed: game i's players and opening come from (seed, i)")
	f.IntVar(&opts.OpeningPlies, "opening-plies", selfplay.DefaultOpeningPlies, "random ring placements that open each pair of games (not targets)")
	f.IntVar(&opts.GamesPerShard, "games-per-shard", 1000, "games per shard file")
	return cmd
}

// genName is a player's name in the generator string: its spec, with "@MSms" under a move time.
func genName(spec string, movetime time.Duration) string { return ratedName(spec, movetime) }

// manifestOf returns the manifest of a run with these options.
func manifestOf(opts *DatasetsGenerateOptions) generateManifest {
	m := generateManifest{Format: 1, Player: opts.Player, Vs: opts.Vs, Variant: opts.Variant.String(), Seed: opts.Seed,
		OpeningPlies: opts.OpeningPlies, MoveTimeMS: opts.MoveTime.Milliseconds(),
		Generator: "expert:" + genName(opts.Player, opts.MoveTime) + "-vs-" + genName(opts.Vs, opts.MoveTime)}
	if !builtinPlayer(opts.Player) || !builtinPlayer(opts.Vs) {
		m.Sims = selfplay.SimsCap(opts.Sims, opts.SimsSet, opts.MoveTime)
	}
	return m
}

// differences lists what differs between the manifest of dir (have) and this run's (want), as flags.
func (want generateManifest) differences(have generateManifest) []string {
	var out []string
	diff := func(flag string, w, h any) {
		if fmt.Sprint(w) != fmt.Sprint(h) {
			out = append(out, fmt.Sprintf("%s %v (%s has %v)", flag, w, generateManifestName, h))
		}
	}
	diff("--player", want.Player, have.Player)
	diff("--vs", want.Vs, have.Vs)
	diff("--variant", want.Variant, have.Variant)
	diff("--seed", want.Seed, have.Seed)
	diff("--opening-plies", want.OpeningPlies, have.OpeningPlies)
	diff("--sims", want.Sims, have.Sims)
	diff("--movetime", want.MoveTimeMS, have.MoveTimeMS)
	if len(out) == 0 && want.Format != have.Format {
		out = append(out, fmt.Sprintf("manifest format %d (want %d)", have.Format, want.Format))
	}
	return out
}

// prepareGenerateDir checks that dir is new, empty of shards, or holds the games of the same run, and
// writes the run's manifest into a directory that has none.
func prepareGenerateDir(dir string, want generateManifest) error {
	path := filepath.Join(dir, generateManifestName)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		var have generateManifest
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&have); err != nil {
			return fmt.Errorf("%s: not a generate manifest: %v", path, err)
		}
		if d := want.differences(have); len(d) > 0 {
			return fmt.Errorf("%s holds the games of another run: %s; use another --out, or the recorded settings to continue it", dir, strings.Join(d, ", "))
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if shards, err := datasets.ListShards(dir); err == nil {
		temps, _ := datasets.TempShards(dir)
		if n := len(shards) + len(temps); n > 0 {
			return fmt.Errorf("%s holds %d shards but no %s: not a yinsh datasets generate directory (use another --out)", dir, n, generateManifestName)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(path, false)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

func datasetsGenerateRun(ctx context.Context, opts *DatasetsGenerateOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	man := manifestOf(opts)
	popts := selfplay.PlayerOptions{Search: selfplay.Search{Sims: opts.Sims, SimsSet: opts.SimsSet, MoveTime: opts.MoveTime},
		Variant: opts.Variant, Parallel: opts.Parallel}
	var err error
	if popts.Load, err = opts.loader(); err != nil {
		return err
	}
	fa, ca, err := selfplay.OpenPlayer(opts.Player, popts)
	if err != nil {
		return fmt.Errorf("--player: %w", err)
	}
	defer ca.Close()
	fb := fa // the same spec: one factory (a checkpoint's network and batcher shared by both sides)
	if opts.Vs != opts.Player {
		var cb io.Closer
		if fb, cb, err = selfplay.OpenPlayer(opts.Vs, popts); err != nil {
			return fmt.Errorf("--vs: %w", err)
		}
		defer cb.Close()
	}
	if err := prepareGenerateDir(opts.Dir, man); err != nil {
		return err
	}
	logger := logFor(ctx, opts.Err, slog.LevelInfo)
	w, err := datasets.NewWriter(opts.Dir, datasets.WriterOptions{GamesPerShard: opts.GamesPerShard, Recover: true, Logger: logger})
	if err != nil {
		return err
	}
	recorded, err := datasets.RecordedIDs(opts.Dir)
	if err != nil {
		w.Close()
		return err
	}
	have := 0 // games of 0..Games-1 already recorded
	for i := 0; i < opts.Games; i++ {
		if recorded[selfplay.ExpertGameID(opts.Seed, i)] {
			have++
		}
	}
	if have == opts.Games {
		if err := w.Close(); err != nil {
			return err
		}
		fmt.Fprintf(opts.Out, "%s already holds all %d games (%d recorded in all); nothing to play\n", opts.Dir, opts.Games, len(recorded))
		return nil
	}
	if have > 0 {
		fmt.Fprintf(opts.Err, "%s: %d of the %d games already recorded; playing the other %d\n", opts.Dir, have, opts.Games, opts.Games-have)
	}
	bar := progress.New(opts.Err, opts.Games-have, "generate", 15*time.Second)
	var res [4]int
	positions, targets := 0, 0
	st, err := selfplay.PlayExpert(ctx, fa, fb, selfplay.ExpertOptions{
		Games: opts.Games, Parallel: opts.Parallel, Seed: opts.Seed, Variant: opts.Variant,
		OpeningPlies: opts.OpeningPlies, Generator: man.Generator,
		Recorded: func(id uint64) bool { return recorded[id] },
		OnGame: func(g selfplay.ExpertGame) error {
			if err := w.Append(g.Record); err != nil {
				return err
			}
			if g.Forfeit >= 0 {
				fmt.Fprintf(opts.Err, "game %d: %s loses by forfeit: %s\n", g.Index+1, env.Color(g.Forfeit), g.Reason)
			}
			res[g.Record.Outcome]++
			positions += len(g.Record.Actions)
			targets += g.Record.TrainingTargets()
			n := res[env.WhiteWins] + res[env.BlackWins] + res[env.Draw] + res[env.Ongoing]
			bar.Add(1, fmt.Sprintf("white %d black %d draw %d, %.0f positions %.0f targets/game",
				res[env.WhiteWins], res[env.BlackWins], res[env.Draw], float64(positions)/float64(n), float64(targets)/float64(n)))
			return nil
		},
	})
	bar.Finish()
	cerr := w.Close()
	shards := w.Shards()
	if err == nil {
		err = cerr
	}
	if err != nil {
		if ctx.Err() != nil {
			err = errors.New("interrupted")
		}
		return fmt.Errorf("%w (%d of the %d games are recorded in %s; run the same command again to continue)", err, have+st.Games, opts.Games, opts.Dir)
	}
	printGenerate(opts, st, have, shards)
	return nil
}

// printGenerate prints a generate run's summary.
func printGenerate(opts *DatasetsGenerateOptions, st selfplay.ExpertStats, had int, shards []string) {
	o := opts.Out
	fmt.Fprintf(o, "generated %d games in %s: %.1f games/hour", st.Games, st.Elapsed.Round(time.Millisecond), st.GamesPerHour())
	if had > 0 {
		fmt.Fprintf(o, " (%d were already recorded)", had)
	}
	fmt.Fprintf(o, "; %s holds all %d games\n", opts.Dir, opts.Games)
	per := func(n int) float64 { return float64(n) / float64(max(st.Games, 1)) }
	fmt.Fprintf(o, "positions: %d (%.1f per game), policy targets: %d (%.1f per game)\n", st.Positions, per(st.Positions), st.Targets, per(st.Targets))
	fmt.Fprintf(o, "results: white %d, black %d, draw %d\n", st.Results[env.WhiteWins], st.Results[env.BlackWins], st.Results[env.Draw])
	if opts.Vs != opts.Player {
		bc := st.ByColor
		fmt.Fprintf(o, "%s: as white +%d =%d -%d, as black +%d =%d -%d\n", genName(opts.Player, opts.MoveTime),
			bc[env.White][0], bc[env.White][1], bc[env.White][2], bc[env.Black][0], bc[env.Black][1], bc[env.Black][2])
	}
	if st.Forfeits > 0 {
		fmt.Fprintf(o, "forfeits: %d\n", st.Forfeits)
	}
	names := make([]string, len(shards))
	for i, s := range shards {
		names[i] = filepath.Base(s)
	}
	if len(names) > 4 {
		names = []string{names[0], "…", names[len(names)-1]}
	}
	fmt.Fprintf(o, "shards written: %d (%s)\n", len(shards), strings.Join(names, ", "))
}
