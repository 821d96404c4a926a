package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
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
	v, err := env.ParseVariant(p.variant)
	if err != nil {
		return nil, err
	}
	s := env.NewState(v)
	if p.position != "" {
		if s, err = env.ParsePosition(p.position, v); err != nil {
			return nil, fmt.Errorf("--position: %w", err)
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
}

func newReplayCmd() *cobra.Command { return newCmdReplay(nil) }

func newCmdReplay(runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{}
	var variant string
	cmd := &cobra.Command{
		Use:   "replay [--legal-counts] [--sgf] FILE|-",
		Short: "Replay a game (action tokens or a boardspace SGF record), checking every action",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := env.ParseVariant(variant)
			if err != nil {
				return err
			}
			opts.Variant, opts.Out, opts.Name = v, cmd.OutOrStdout(), args[0]
			if args[0] == "-" {
				opts.In = cmd.InOrStdin()
			} else {
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
	cmd.Flags().BoolVar(&opts.LegalCounts, "legal-counts", false, "print '<ply> <w|b> <legal actions before it> <token>' per action")
	cmd.Flags().StringVar(&variant, "variant", "standard", "rules variant for token files: standard or blitz (SGF records say their own)")
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
		toks, err := env.ReadTokens(opts.In)
		if err != nil {
			return fmt.Errorf("%s: %w", opts.Name, err)
		}
		for _, t := range toks {
			acts = append(acts, t.Action)
			lines = append(lines, t.Line)
		}
	}
	s := env.NewState(v)
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
