package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/datasets/parquet"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func newDatasetsCmd() *cobra.Command {
	cmd := groupCmd("datasets", "Game records: import boardspace SGF, export to Parquet, summarise shards, print games")
	cmd.AddCommand(newCmdDatasetsImportSGF(nil), newCmdDatasetsExport(nil), newCmdDatasetsStats(nil), newCmdDatasetsGames(nil), newCmdDatasetsGenerate(nil))
	return cmd
}

// DatasetsImportOptions configures `yinsh datasets import-sgf`.
type DatasetsImportOptions struct {
	Out, Err      io.Writer
	In            string // directory of .sgf files
	Dir           string // shard directory to write
	GamesPerShard int
	Append        bool // add shards to a directory that already has some
	SkipBad       bool // report unreadable records and go on
}

func newCmdDatasetsImportSGF(runF func(*DatasetsImportOptions) error) *cobra.Command {
	opts := &DatasetsImportOptions{}
	cmd := &cobra.Command{
		Use:   "import-sgf DIR --out DIR",
		Short: "Turn boardspace SGF records into game-record shards (policy target: the played action)",
		Long: `Read every .sgf file of DIR (boardspace YINSH records), replay and check it, and write the games as
shards into --out for supervised pretraining: each position's policy target is the action played
(one-hot), the value target the recorded result (resignations included). Every file is read before
anything is written; a bad record stops the import naming its file and line, unless --skip-bad.
An --out directory that already holds shards is refused unless --append (existing shards are never
overwritten).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Dir == "" {
				return errors.New("--out is required")
			}
			if opts.GamesPerShard < 1 {
				return fmt.Errorf("--games-per-shard must be at least 1, got %d", opts.GamesPerShard)
			}
			opts.In, opts.Out, opts.Err = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return datasetsImportRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Dir, "out", "", "shard directory to write (created if missing)")
	f.IntVar(&opts.GamesPerShard, "games-per-shard", 1000, "games per shard file")
	f.BoolVar(&opts.Append, "append", false, "add new shards to an --out directory that already has shards")
	f.BoolVar(&opts.SkipBad, "skip-bad", false, "report records that cannot be read and import the others")
	return cmd
}

func datasetsImportRun(opts *DatasetsImportOptions) error {
	files, err := datasets.SGFFiles(opts.In)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no .sgf files", opts.In)
	}
	if existing, err := datasets.ListShards(opts.Dir); err == nil && len(existing) > 0 && !opts.Append {
		return fmt.Errorf("%s already holds %d shards (use --append to add to them)", opts.Dir, len(existing))
	}
	var recs []*datasets.Record
	skipped, unfinished, positions := 0, 0, 0
	for _, f := range files {
		r, err := datasets.ReadSGFFile(f)
		if err != nil {
			if !opts.SkipBad {
				return err
			}
			fmt.Fprintf(opts.Err, "skipping %v\n", err)
			skipped++
			continue
		}
		if r.Outcome == env.Ongoing {
			unfinished++
		}
		positions += len(r.Actions)
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return fmt.Errorf("%s: no readable records", opts.In)
	}
	w, err := datasets.NewWriter(opts.Dir, datasets.WriterOptions{GamesPerShard: opts.GamesPerShard})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	shards := w.Shards()
	fmt.Fprintf(opts.Out, "imported %d games (%d positions) from %s into %d shards in %s\n", len(recs), positions, opts.In, len(shards), opts.Dir)
	if unfinished > 0 {
		fmt.Fprintf(opts.Out, "%d games have no result (kept; the replay window skips them)\n", unfinished)
	}
	if skipped > 0 {
		fmt.Fprintf(opts.Out, "%d files skipped\n", skipped)
	}
	return nil
}

// DatasetsExportOptions configures `yinsh datasets export`.
type DatasetsExportOptions struct {
	Out    io.Writer
	Format string
	In     string // shard directory
	Path   string // file to write
	Force  bool
}

func newCmdDatasetsExport(runF func(*DatasetsExportOptions) error) *cobra.Command {
	opts := &DatasetsExportOptions{}
	cmd := &cobra.Command{
		Use:   "export --format parquet --in DIR --out FILE",
		Short: "Export every position of a shard directory as a table (Parquet: one row per position)",
		Long: `Write one row per position of every game in the shards of --in: game, game_id, ply, variant,
generator, position (position text before the action), side (w/b), action, action_id, target,
policy_actions, policy_probs, root_wdl, outcome (white/black/draw/ongoing) and value_target (+1/0/-1
for the side to act; null for unfinished games). The file is written atomically; an existing --out is
kept unless --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Format != "parquet" {
				return fmt.Errorf("--format %q: only parquet is supported", opts.Format)
			}
			if opts.In == "" || opts.Path == "" {
				return errors.New("--in and --out are required")
			}
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return datasetsExportRun(opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "parquet", "output format: parquet")
	f.StringVar(&opts.In, "in", "", "shard directory to read")
	f.StringVar(&opts.Path, "out", "", "file to write")
	f.BoolVar(&opts.Force, "force", false, "replace an existing --out file")
	return cmd
}

func datasetsExportRun(opts *DatasetsExportOptions) error {
	shards, err := datasets.ListShards(opts.In)
	if err != nil {
		return err
	}
	if len(shards) == 0 {
		return fmt.Errorf("%s: no shards", opts.In)
	}
	f, err := atomicfile.Create(opts.Path, opts.Force)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists (pass --force to overwrite it)", opts.Path)
	} else if err != nil {
		return err
	}
	rows, err := parquet.Export(f, opts.In)
	if err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists (pass --force to overwrite it)", opts.Path)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "wrote %d rows from %d shards to %s\n", rows, len(shards), opts.Path)
	return nil
}

// DatasetsStatsOptions configures `yinsh datasets stats`.
type DatasetsStatsOptions struct {
	Out io.Writer
	Dir string
}

func newCmdDatasetsStats(runF func(*DatasetsStatsOptions) error) *cobra.Command {
	opts := &DatasetsStatsOptions{}
	cmd := &cobra.Command{
		Use:   "stats DIR",
		Short: "Summarise the shards of a directory: games, positions, results, lengths",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir, opts.Out = args[0], cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return datasetsStatsRun(opts)
		},
	}
	return cmd
}

func datasetsStatsRun(opts *DatasetsStatsOptions) error {
	var st datasets.Stats
	err := datasets.ScanDir(opts.Dir, func(_ string, _ int, r *datasets.Record) error {
		st.Add(r)
		return nil
	})
	if err != nil {
		return err
	}
	all, err := datasets.ListShards(opts.Dir)
	if err != nil {
		return err
	}
	st.Shards = len(all)
	o := opts.Out
	fmt.Fprintf(o, "shards: %d\n", st.Shards)
	fmt.Fprintf(o, "games: %d\n", st.Games)
	fmt.Fprintf(o, "positions: %d\n", st.Positions)
	fmt.Fprintf(o, "training positions: %d\n", st.Targets)
	fmt.Fprintf(o, "results: white %.3f (%d) black %.3f (%d) draw %.3f (%d)",
		st.Share(env.WhiteWins), st.Results[env.WhiteWins], st.Share(env.BlackWins), st.Results[env.BlackWins],
		st.Share(env.Draw), st.Results[env.Draw])
	if n := st.Results[env.Ongoing]; n > 0 {
		fmt.Fprintf(o, " unfinished %.3f (%d)", st.Share(env.Ongoing), n)
	}
	fmt.Fprintln(o)
	fmt.Fprintf(o, "length: mean %.1f min %d max %d actions\n", st.MeanLength(), st.MinLength, st.MaxLength)
	fmt.Fprintf(o, "variants: standard %d blitz %d\n", st.Variants[env.Standard], st.Variants[env.Blitz])
	return nil
}

// DatasetsGamesOptions configures `yinsh datasets games`.
type DatasetsGamesOptions struct {
	Out   io.Writer
	Path  string // a shard file or a directory of shards
	ID    uint64 // with IDSet: print only the game with this record id
	IDSet bool
}

func newCmdDatasetsGames(runF func(*DatasetsGamesOptions) error) *cobra.Command {
	opts := &DatasetsGamesOptions{}
	cmd := &cobra.Command{
		Use:   "games SHARD|DIR [--id N]",
		Short: "Print the games of shards as token lines that yinsh replay reads",
		Long: `Print every game of a shard file, or of every shard of a directory, in the game record format of
yinsh arena --record: one line per game, its action tokens, then a # comment with the game's
fields (variant, generator as both players, result, and id, generator, shard and index). yinsh
replay checks each game's recorded result against its replay (a resigned game is recorded as a
forfeit of the side that resigned); each line is also a plain token list. A game without a result
(an unfinished import) is printed as a comment only.

With --id N only the game whose record id is N is printed, as a plain token file: a comment line
with its fields (variant=…, which yinsh replay reads), then its tokens.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path, opts.Out = args[0], cmd.OutOrStdout()
			opts.IDSet = cmd.Flags().Changed("id")
			if runF != nil {
				return runF(opts)
			}
			return datasetsGamesRun(opts)
		},
	}
	cmd.Flags().Uint64Var(&opts.ID, "id", 0, "print only the game with this record id (the id= field; self-play: the game's seed)")
	return cmd
}

// shardsOf returns the shard files a path names: itself, or the finished shards of a directory.
func shardsOf(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	shards, err := datasets.ListShards(path)
	if err != nil {
		return nil, err
	}
	if len(shards) == 0 {
		return nil, fmt.Errorf("%s: no shards (shard-NNNNNN.yz files)", path)
	}
	return shards, nil
}

// eachGame calls fn for every record of the shards, in order.
func eachGame(shards []string, fn func(shard string, index int, r *datasets.Record) error) error {
	for _, path := range shards {
		sr, err := datasets.OpenShard(path)
		if err != nil {
			return err
		}
		for i := 0; ; i++ {
			r, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				err = fn(path, i, r)
			}
			if err != nil {
				sr.Close()
				return err
			}
		}
		sr.Close()
	}
	return nil
}

func datasetsGamesRun(opts *DatasetsGamesOptions) error {
	shards, err := shardsOf(opts.Path)
	if err != nil {
		return err
	}
	o := opts.Out
	if !opts.IDSet {
		fmt.Fprintf(o, "%s format: the games of %s (yinsh datasets games; yinsh replay checks them)\n", selfplay.RecordHeader, opts.Path)
	}
	n, found := 0, false
	err = eachGame(shards, func(shard string, index int, r *datasets.Record) error {
		n++
		if opts.IDSet && (found || r.ID != opts.ID) {
			return nil
		}
		s := env.NewState(r.Variant)
		if err := env.Replay(s, r.Actions); err != nil {
			return fmt.Errorf("%s: game %d (id %d): %w", shard, index, r.ID, err)
		}
		where := fmt.Sprintf("id=%d generator=%s shard=%s index=%d", r.ID, strconv.Quote(r.Generator), strconv.Quote(filepath.Base(shard)), index)
		toks := tokenLine(r.Actions)
		if opts.IDSet {
			found = true
			fmt.Fprintf(o, "# %s variant=%s result=%s actions=%d\n%s\n", where, r.Variant, r.Outcome, len(r.Actions), toks)
			return nil
		}
		var result string
		switch {
		case s.IsTerminal() && s.Outcome() == r.Outcome:
			result = "result=" + r.Outcome.String()
		case !s.IsTerminal() && (r.Outcome == env.WhiteWins || r.Outcome == env.BlackWins):
			loser := env.White
			if r.Outcome == env.WhiteWins {
				loser = env.Black
			}
			result = fmt.Sprintf("result=%s forfeit=%s reason=%q", r.Outcome, loser, "resigned")
		default:
			fmt.Fprintf(o, "# not replayable as a record: %s variant=%s recorded %s, the actions end %s (yinsh datasets games %s --id %d prints its tokens)\n",
				where, r.Variant, r.Outcome, s.Outcome(), opts.Path, r.ID)
			return nil
		}
		if toks != "" {
			toks += " "
		}
		fmt.Fprintf(o, "%s# game=%d pair=0 variant=%s white=%s black=%s %s opening=0 %s\n",
			toks, n, r.Variant, strconv.Quote(r.Generator), strconv.Quote(r.Generator), result, where)
		return nil
	})
	if err != nil {
		return err
	}
	if opts.IDSet && !found {
		return fmt.Errorf("%s: no game with id %d (%d games)", opts.Path, opts.ID, n)
	}
	return nil
}
