package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// positionFlags are the flags of every command that starts from a position.
type positionFlags struct {
	variant  string
	moves    string
	position string
}

func (p *positionFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.variant, "variant", "standard", "rules variant: standard or blitz")
	cmd.Flags().StringVar(&p.moves, "moves", "", "action tokens to play from the start position (space separated)")
	cmd.Flags().StringVar(&p.position, "position", "", "start from this position text instead of the empty board")
}

// state builds the start state: the position (or the empty board) followed by the moves.
func (p *positionFlags) state() (*env.State, error) {
	v, err := parseVariant(p.variant)
	if err != nil {
		return nil, err
	}
	s := env.NewState(v)
	if p.position != "" {
		if s, err = env.ParsePosition(p.position, v); err != nil {
			return nil, fmt.Errorf("--position: %s", strings.TrimPrefix(err.Error(), "env: position: "))
		}
	}
	acts, err := env.ParseTokens(p.moves)
	if err != nil {
		return nil, fmt.Errorf("--moves: %w", err)
	}
	if err := env.Replay(s, acts); err != nil {
		return nil, fmt.Errorf("--moves: %w", err)
	}
	return s, nil
}

// PerftOptions configures `yinsh perft`.
type PerftOptions struct {
	Out    io.Writer
	State  *env.State
	Depth  int
	Divide bool
}

func newPerftCmd() *cobra.Command { return newCmdPerft(nil) }

func newCmdPerft(runF func(*PerftOptions) error) *cobra.Command {
	opts := &PerftOptions{}
	var pf positionFlags
	cmd := &cobra.Command{
		Use:   "perft --depth N",
		Short: "Count the leaf states N actions deep (rules-engine check); the last line is the count",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Depth < 0 || opts.Depth > 12 {
				return fmt.Errorf("--depth must be 0..12, got %d", opts.Depth)
			}
			s, err := pf.state()
			if err != nil {
				return err
			}
			opts.State, opts.Out = s, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return perftRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Depth, "depth", 1, "number of actions")
	cmd.Flags().BoolVar(&opts.Divide, "divide", false, "print the count below each legal action first")
	pf.add(cmd)
	return cmd
}

func perftRun(opts *PerftOptions) error {
	if opts.Divide && opts.Depth > 0 {
		acts, counts := env.PerftDivide(opts.State, opts.Depth)
		var total uint64
		for i, a := range acts {
			fmt.Fprintf(opts.Out, "%s: %d\n", a, counts[i])
			total += counts[i]
		}
		fmt.Fprintln(opts.Out, total)
		return nil
	}
	fmt.Fprintln(opts.Out, env.Perft(opts.State, opts.Depth))
	return nil
}

// ReplayOptions configures `yinsh replay`.
type ReplayOptions struct {
	Out         io.Writer
	In          io.Reader
	Name        string // file name for messages ("-" for standard input)
	SGF         bool
	LegalCounts bool
	Variant     env.Variant
	// VariantSet: --variant was given; otherwise a token file's comment "variant=blitz" decides.
	VariantSet bool
	Game       int // in a game record file: the game to replay (0: all, one line each)
}

func newReplayCmd() *cobra.Command { return newCmdReplay(nil) }

func newCmdReplay(runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{}
	var variant string
	cmd := &cobra.Command{
		Use:   "replay [--legal-counts] [--sgf] [--game N] FILE|-",
		Short: "Replay a game (action tokens or a boardspace SGF record), checking every action",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
			if err != nil {
				return err
			}
			opts.Variant, opts.Out, opts.Name = v, cmd.OutOrStdout(), args[0]
			opts.VariantSet = cmd.Flags().Changed("variant")
			if args[0] == "-" {
				opts.In = cmd.InOrStdin()
			} else {
				if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
					return fmt.Errorf("%s is a directory, not a game file (a shard directory? yinsh datasets games %s prints its games)", args[0], args[0])
				}
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				opts.In = f
				if strings.EqualFold(filepath.Ext(args[0]), ".sgf") {
					opts.SGF = true
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return replayRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.SGF, "sgf", false, "the input is a boardspace SGF record (implied by a .sgf file name)")
	cmd.Flags().IntVar(&opts.Game, "game", 0, "in a game record file (yinsh arena --record), replay game N only (default: every game, one line each)")
	cmd.Flags().BoolVar(&opts.LegalCounts, "legal-counts", false, "print '<ply> <w|b> <legal actions before it> <token>' per action")
	cmd.Flags().StringVar(&variant, "variant", "standard", "rules variant for token files: standard or blitz (default: a comment's variant=…, else standard; SGF and record files say their own)")
	return cmd
}

func replayRun(opts *ReplayOptions) error {
	var acts []env.Action
	var lines []int
	v := opts.Variant
	resigned := -1
	if opts.SGF {
		g, err := env.ReadSGF(opts.In)
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Name, err)
		}
		acts, lines, v, resigned = g.Actions, g.Lines, g.Variant, g.Resigned
	} else {
		data, err := io.ReadAll(opts.In)
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Name, err)
		}
		if err := notTokens(opts.Name, data); err != nil {
			return err
		}
		if selfplay.IsRecordFile(data) {
			return replayRecords(opts, data)
		}
		if opts.Game > 0 {
			return fmt.Errorf("%s: --game needs a game record file (yinsh arena --record, yinsh datasets games), this is a token list", opts.Name)
		}
		if !opts.VariantSet {
			if cv, ok := commentVariant(data); ok {
				v = cv
			}
		}
		toks, err := env.ReadTokens(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Name, err)
		}
		for _, t := range toks {
			acts = append(acts, t.Action)
			lines = append(lines, t.Line)
		}
	}
	return replayGame(opts, env.NewState(v), acts, lines, resigned)
}

// zstdMagic starts every zstd frame.
const zstdMagic = "\x28\xb5\x2f\xfd"

// File kinds sniffed from a file's first bytes (sniffKind): what replay, model info and the like
// say a file is when it is not what they read.
const (
	kindShard      = "a dataset shard"
	kindZstd       = "zstd-compressed data"
	kindCheckpoint = "a network checkpoint"
	kindParquet    = "a Parquet file"
	kindBinary     = "a binary file"
	kindText       = "a text file"
)

// sniffKind names the kind of a file from its first bytes (up to 4 KiB are looked at), or "" for an
// empty one.
func sniffKind(data []byte) string {
	head := data[:min(len(data), 4096)]
	switch {
	case len(head) == 0:
		return ""
	case datasets.IsShard(head):
		return kindShard
	case bytes.HasPrefix(head, []byte(zstdMagic)):
		return kindZstd
	case len(head) > 8 && head[8] == '{' && bytes.Contains(head, []byte(`"`+model.FormatName+`"`)):
		return kindCheckpoint
	case bytes.HasPrefix(head, []byte("PAR1")):
		return kindParquet
	case bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:max(0, len(head)-3)]):
		return kindBinary
	}
	return kindText
}

// notTokens says what a file is when it is not text to replay: a dataset shard, a checkpoint, zstd
// data, or some other binary file.
func notTokens(name string, data []byte) error {
	switch sniffKind(data) {
	case kindShard:
		return fmt.Errorf("%s is a dataset shard: use yinsh datasets games %s", name, name)
	case kindZstd:
		return fmt.Errorf("%s is zstd-compressed data, not action tokens (a dataset shard? yinsh datasets games reads those)", name)
	case kindCheckpoint:
		return fmt.Errorf("%s is a network checkpoint, not a game: use yinsh model info %s", name, name)
	case kindParquet:
		return fmt.Errorf("%s is a Parquet file, not action tokens", name)
	case kindBinary:
		return fmt.Errorf("%s is a binary file, not action tokens (whitespace-separated, # comments)", name)
	}
	return nil
}

// variantField is a comment's variant=standard|blitz field (yinsh play --record, yinsh datasets
// games --id write one).
var variantField = regexp.MustCompile(`(?:^|\s)variant=(standard|blitz)\b`)

// commentVariant returns the variant a token file's comments name, if one does.
func commentVariant(data []byte) (env.Variant, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		_, comment, ok := strings.Cut(line, "#")
		if !ok {
			continue
		}
		if m := variantField.FindStringSubmatch(comment); m != nil {
			v, err := env.ParseVariant(m[1])
			return v, err == nil
		}
	}
	return 0, false
}

// replayRecords replays the games of a record file: every game with one summary line (its recorded
// result checked against the replay), or game opts.Game alone as a token list is replayed.
func replayRecords(opts *ReplayOptions, data []byte) error {
	games, err := selfplay.ReadRecords(bytes.NewReader(data), opts.Name)
	if err != nil {
		return err
	}
	if opts.Game > len(games) {
		return fmt.Errorf("%s: --game %d: the file holds %d games", opts.Name, opts.Game, len(games))
	}
	for i := range games {
		g := &games[i]
		if opts.Game > 0 && i+1 != opts.Game {
			continue
		}
		s, err := g.StartState()
		if err != nil {
			return fmt.Errorf("%s: line %d: start: %w", opts.Name, g.Line, err)
		}
		if opts.Game > 0 {
			fmt.Fprintf(opts.Out, "game %d: white %s, black %s, opening %d plies\n", g.Game, g.White, g.Black, g.OpeningPlies)
			lines := make([]int, len(g.Actions))
			for k := range lines {
				lines[k] = g.Line
			}
			resigned := -1
			if g.Forfeit == "white" {
				resigned = int(env.White)
			} else if g.Forfeit == "black" {
				resigned = int(env.Black)
			}
			return replayGame(opts, s, g.Actions, lines, resigned)
		}
		if err := env.Replay(s, g.Actions); err != nil {
			return fmt.Errorf("%s: line %d: %w", opts.Name, g.Line, err)
		}
		got := s.Outcome()
		note := ""
		if g.Forfeit != "" {
			if s.IsTerminal() {
				return fmt.Errorf("%s: line %d: recorded as a forfeit, but the game is over (%s)", opts.Name, g.Line, got)
			}
			got, note = env.WhiteWins, " ("+g.Forfeit+" forfeited: "+g.Reason+")"
			if g.Forfeit == "white" {
				got = env.BlackWins
			}
		}
		if got != g.Result {
			return fmt.Errorf("%s: line %d: recorded result %s, the replay gives %s", opts.Name, g.Line, g.Result, got)
		}
		fmt.Fprintf(opts.Out, "game %d: %s (white) vs %s (black): %d actions, result: %s%s\n", g.Game, g.White, g.Black, len(g.Actions), got, note)
	}
	fmt.Fprintf(opts.Out, "games: %d\n", len(games))
	return nil
}

// replayGame applies acts (from lines) to s, printing legal counts if asked, then the final position
// and result.
func replayGame(opts *ReplayOptions, s *env.State, acts []env.Action, lines []int, resigned int) error {
	var buf []env.Action
	for i, a := range acts {
		before := s.CurrentPlayer()
		n := len(s.LegalActions(buf))
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("%s: line %d: ply %d %q: %w", opts.Name, lines[i], i+1, a, err)
		}
		if opts.LegalCounts {
			fmt.Fprintf(opts.Out, "%d %c %d %s\n", i+1, "wb"[before], n, a)
		}
	}
	result := s.Outcome()
	if !s.IsTerminal() && resigned >= 0 {
		result = env.WhiteWins
		if env.Color(resigned) == env.White {
			result = env.BlackWins
		}
		fmt.Fprintf(opts.Out, "%s resigned\n", env.Color(resigned))
	}
	fmt.Fprintf(opts.Out, "position: %s\n", s.Text())
	fmt.Fprintf(opts.Out, "result: %s\n", result)
	return nil
}

// ShowOptions configures `yinsh show`.
type ShowOptions struct {
	Out   io.Writer
	State *env.State
}

func newShowCmd() *cobra.Command { return newCmdShow(nil) }

func newCmdShow(runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{}
	var pf positionFlags
	cmd := &cobra.Command{
		Use:   "show [--moves TOKENS | --position TEXT]",
		Short: "Print the board diagram, position text and legal actions of a position",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := pf.state()
			if err != nil {
				return err
			}
			opts.State, opts.Out = s, cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	pf.add(cmd)
	return cmd
}

func showRun(opts *ShowOptions) error {
	s := opts.State
	fmt.Fprint(opts.Out, s.String())
	fmt.Fprintf(opts.Out, "position: %s\n", s.Text())
	legal := s.LegalActions(nil)
	toks := make([]string, len(legal))
	for i, a := range legal {
		toks[i] = a.String()
	}
	fmt.Fprintf(opts.Out, "legal (%d): %s\n", len(legal), strings.Join(toks, " "))
	return nil
}
