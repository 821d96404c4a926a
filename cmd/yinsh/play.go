package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// PlayOptions configures `yinsh play`.
type PlayOptions struct {
	BackendFlags
	In     io.Reader
	Out    io.Writer
	Player string // the agent: a checkpoint, reference, level:N, random, heuristic or rollout:N
	// Search is the player's search settings (--sims and whether it was given, --movetime,
	// --gumbel, --leaves-in-flight, --rollout-mix): the one type every command builds players with.
	selfplay.Search
	As      env.Color // the human's colour
	Variant env.Variant
	Seed    uint64
	// Record is the file the game is written to as it goes ("" for none); Force lets it replace an
	// existing file.
	Record string
	Force  bool
	// AnyVariant plays a checkpoint trained for the other variant.
	AnyVariant bool
}

func newPlayCmd() *cobra.Command { return newCmdPlay(nil) }

func newCmdPlay(runF func(*PlayOptions) error) *cobra.Command {
	opts := &PlayOptions{}
	var checkpoint, as, variant string
	var movetime, level int
	var mix float64
	cmd := &cobra.Command{
		Use:   "play [--level N | --checkpoint FILE | --player PLAYER] [--sims N] [--as white|black]",
		Short: "Play against an agent in the terminal",
		Long: `Play against an agent in the terminal. Type action tokens (e5 to place a ring, e5-e8 to move the
ring on e5, xe5-e9 to remove a row, xe5 to remove a ring, pass), or: legal, board, undo, moves (the
game's tokens so far), save FILE (write them to FILE; save --force FILE replaces it), help, quit.

--record FILE writes the game to FILE as it goes (rewritten after every action): a comment line
naming the players and the variant, then the tokens on one line; yinsh replay FILE replays it.
An existing FILE is kept unless --force.

--level N plays against strength level N, 1 (a beginner can beat it) to 10 (the full agent): the
same as --player level:N (yinsh levels lists the levels' recipes). The levels and reference play
the reference network of the game's variant (standard and blitz each have one).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := parseVariant(variant)
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
			if cmd.Flags().Changed("level") {
				if level < 1 || level > selfplay.MaxLevel {
					return fmt.Errorf("--level must be in [1, %d], got %d", selfplay.MaxLevel, level)
				}
				if checkpoint != "" || opts.Player != "" {
					return fmt.Errorf("give one of --level, --checkpoint and --player")
				}
				opts.Player = selfplay.LevelPrefix + strconv.Itoa(level)
			}
			switch {
			case checkpoint != "" && opts.Player != "":
				return fmt.Errorf("give --checkpoint or --player, not both")
			case checkpoint != "":
				opts.Player = checkpoint
			case opts.Player == "":
				opts.Player = nets.DefaultPlayer(v) // the variant's reference network
			}
			if err := checkSearchFlags(mix, opts.Sims, movetime, opts.LeavesInFlight); err != nil {
				return err
			}
			if err := checkVariant("", opts.Player, v, opts.AnyVariant); err != nil {
				return err
			}
			if opts.Record != "" {
				if err := checkOverwrite(opts.Record, opts.Force); err != nil {
					return fmt.Errorf("--record: %w", err)
				}
			}
			opts.MoveTime, opts.SimsSet = time.Duration(movetime)*time.Millisecond, cmd.Flags().Changed("sims")
			opts.RolloutMix = float32(mix)
			opts.Variant, opts.In, opts.Out = v, cmd.InOrStdin(), cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return playRun(opts)
		},
	}
	f := cmd.Flags()
	opts.BackendFlags.add(f)
	f.StringVar(&checkpoint, "checkpoint", "", "the agent's network checkpoint (default: the variant's reference network)")
	f.StringVar(&opts.Player, "player", "", "or another agent: reference, level:N, random, heuristic, rollout:N (default: reference, the variant's embedded network)")
	f.IntVar(&level, "level", 0, "play against strength level N in [1, 10] (--player level:N; yinsh levels lists them)")
	f.IntVar(&opts.Sims, "sims", 200, "search simulations per agent action (with --movetime: a cap, none unless given)")
	f.IntVar(&movetime, "movetime", 0, "milliseconds per agent action (0: bounded by --sims)")
	f.StringVar(&as, "as", "white", "your colour: white or black")
	f.StringVar(&variant, "variant", "standard", "rules variant: standard or blitz")
	f.Uint64Var(&opts.Seed, "seed", 1, "the agent's random seed")
	f.Float64Var(&mix, "rollout-mix", 0, "the agent's leaf value: (1-λ)·network + λ·random rollout (as in training)")
	f.BoolVar(&opts.Gumbel, "gumbel", false, "a checkpoint agent searches with Gumbel AlphaZero's root (else PUCT)")
	f.IntVar(&opts.LeavesInFlight, "leaves-in-flight", 8, "leaves a checkpoint agent's search sends per network call (1: sequential search)")
	f.StringVar(&opts.Record, "record", "", "write the game to this file as it goes (tokens on one line; yinsh replay reads it)")
	f.BoolVar(&opts.Force, "force", false, "overwrite an existing --record file")
	f.BoolVar(&opts.AnyVariant, "any-variant", false, "play a checkpoint trained for the other variant")
	return cmd
}

// gameFile is a game as a token file that yinsh replay reads: a comment line naming the players and
// the variant (replay takes the variant from it), the tokens on one line, and the result when known.
type gameFile struct {
	header string
}

func newGameFile(opts *PlayOptions, agent string) gameFile {
	white, black := "you", agent
	if opts.As == env.Black {
		white, black = agent, "you"
	}
	return gameFile{header: fmt.Sprintf("# yinsh play: white=%s black=%s variant=%s seed=%d started=%s",
		strconv.Quote(white), strconv.Quote(black), opts.Variant, opts.Seed, time.Now().UTC().Format(time.RFC3339))}
}

// write replaces path with the game (atomically: a reader sees the old or the new content).
func (g gameFile) write(path string, acts []env.Action, s *env.State) error {
	var b strings.Builder
	b.WriteString(g.header)
	b.WriteByte('\n')
	b.WriteString(tokenLine(acts))
	b.WriteByte('\n')
	if s.IsTerminal() {
		fmt.Fprintf(&b, "# result: %s\n", s.Outcome())
	}
	return atomicfile.WriteFile(path, []byte(b.String()))
}

func tokenLine(acts []env.Action) string {
	toks := make([]string, len(acts))
	for i, a := range acts {
		toks[i] = a.String()
	}
	return strings.Join(toks, " ")
}

func playRun(opts *PlayOptions) error {
	load, err := opts.loader()
	if err != nil {
		return err
	}
	factory, closer, err := selfplay.OpenPlayer(opts.Player, selfplay.PlayerOptions{Search: opts.Search, Variant: opts.Variant, Parallel: 1, Load: load})
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
	var history []env.State // the state before each action of moves
	var moves []env.Action
	game := newGameFile(opts, agent.Name())
	record := func() error {
		if opts.Record == "" {
			return nil
		}
		if err := game.write(opts.Record, moves, s); err != nil {
			return fmt.Errorf("--record: %w", err)
		}
		return nil
	}
	if err := record(); err != nil {
		return err
	}
	budget := fmt.Sprintf("%d simulations", opts.Sims)
	if opts.MoveTime > 0 {
		budget = fmt.Sprintf("%v a move", opts.MoveTime)
	}
	if n, err := selfplay.ParseLevel(opts.Player); err == nil && n < selfplay.MaxLevel {
		budget = selfplay.Levels[n-1].Recipe() // its own budget, not --sims
		if opts.MoveTime > 0 {
			budget += fmt.Sprintf(", at most %v a move", opts.MoveTime)
		}
	}
	fmt.Fprintf(out, "You play %s against %s (%s, %s). Type help for commands.\n", opts.As, agent.Name(), opts.Variant, budget)
	if opts.Record != "" {
		fmt.Fprintf(out, "Recording the game in %s.\n", opts.Record)
	}
	fmt.Fprintln(out)
	// board draws the diagram with the last action marked and rows of four pointed out
	board := func() string {
		o := env.DiagramOptions{Fours: true}
		if len(moves) > 0 {
			o.Last, o.HasLast = moves[len(moves)-1], true
		}
		return s.Diagram(o)
	}
	fmt.Fprint(out, board())
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
			moves = append(moves, d.Action)
			if err := record(); err != nil {
				return err
			}
			fmt.Fprintf(out, "\n%s plays %s", agent.Name(), d.Action)
			if d.HasValue {
				fmt.Fprintf(out, "  (its view: win %.0f%% draw %.0f%% loss %.0f%%", 100*d.WDL[0], 100*d.WDL[1], 100*d.WDL[2])
				var others []selfplay.ActionStat // the candidates other than the action played
				for _, t := range d.Top {
					if t.Action != d.Action && len(others) < 3 {
						others = append(others, t)
					}
				}
				if len(others) > 0 {
					fmt.Fprintf(out, "; also considered")
					for _, t := range others {
						fmt.Fprintf(out, " %s (%d visits)", t.Action, t.Visits)
					}
				}
				fmt.Fprint(out, ")")
			}
			fmt.Fprintf(out, "\n\n%s", board())
			continue
		}
		fmt.Fprintf(out, "your action (%s): ", phaseHint(s))
		if !in.Scan() {
			fmt.Fprintln(out, "\ngame abandoned")
			return in.Err()
		}
		line := strings.TrimSpace(in.Text())
		if f := strings.Fields(line); len(f) > 0 && strings.ToLower(f[0]) == "save" {
			playSave(out, game, f[1:], moves, s)
			continue
		}
		switch strings.ToLower(line) {
		case "":
			continue
		case "quit", "exit":
			fmt.Fprintln(out, "game abandoned")
			return nil
		case "help":
			fmt.Fprintln(out, "tokens: e5 (place a ring), e5-e8 (marker on e5, ring to e8), xe5-e9 (remove the row e5..e9), xe5 (remove your ring on e5), pass")
			fmt.Fprintln(out, "commands: legal (list legal actions), board (show the board), undo (take back your last turn),")
			fmt.Fprintln(out, "  moves (the game's tokens so far), save FILE (write them for yinsh replay; save --force FILE replaces FILE), quit")
			continue
		case "moves":
			if len(moves) == 0 {
				fmt.Fprintln(out, "(no actions yet)")
			} else {
				fmt.Fprintln(out, tokenLine(moves))
			}
			continue
		case "board":
			fmt.Fprint(out, board())
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
				history, moves = history[:len(history)-1], moves[:len(moves)-1]
				if s.CurrentPlayer() == opts.As {
					break
				}
			}
			agent.NewGame()
			if err := record(); err != nil {
				return err
			}
			fmt.Fprint(out, board())
			continue
		}
		a, err := env.ParseAction(line)
		if err != nil {
			fmt.Fprintf(out, "cannot read %q: %s (type help)\n", line, actionError(err))
			continue
		}
		prev := *s
		if err := s.ApplyAction(a); err != nil {
			fmt.Fprintf(out, "%s is not legal here: %v (type legal to list the legal actions)\n", a, strings.TrimPrefix(tidyError(err.Error()), "illegal action: "))
			continue
		}
		history, moves = append(history, prev), append(moves, a)
		if err := record(); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n%s", board())
	}
	verdict := "a draw"
	switch s.Outcome() {
	case env.WhiteWins:
		verdict = "white wins"
	case env.BlackWins:
		verdict = "black wins"
	}
	if s.Outcome() != env.Draw && (s.Outcome() == env.WhiteWins) == (opts.As == env.White) {
		verdict += " (you win)"
	} else if s.Outcome() != env.Draw {
		verdict += " (the agent wins)"
	}
	fmt.Fprintf(out, "\n%s\nresult: %s\n", verdict, s.Outcome())
	return nil
}

// playSave handles "save [--force] FILE" in play: writes the game so far as a token file, refusing
// to replace an existing file without --force.
func playSave(out io.Writer, game gameFile, args []string, moves []env.Action, s *env.State) {
	force := false
	var path string
	for _, a := range args {
		switch {
		case a == "--force" || a == "-f":
			force = true
		case path == "":
			path = a
		default:
			fmt.Fprintln(out, "usage: save [--force] FILE")
			return
		}
	}
	if path == "" {
		fmt.Fprintln(out, "usage: save [--force] FILE")
		return
	}
	if err := checkOverwrite(path, force); err != nil {
		fmt.Fprintf(out, "not saved: %s\n", strings.Replace(err.Error(), "pass --force", "save --force FILE", 1))
		return
	}
	if err := game.write(path, moves, s); err != nil {
		fmt.Fprintf(out, "not saved: %s\n", tidyError(err.Error()))
		return
	}
	fmt.Fprintf(out, "saved %d actions to %s (yinsh replay %s)\n", len(moves), path, path)
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

// checkSearchFlags checks the ranges of the search flags play, arena, engine, analyze and serve
// share, naming the flag: --rollout-mix, --sims, --movetime (milliseconds, 0 none) and
// --leaves-in-flight. Whether the settings go together (--gumbel with --movetime among them) is
// not decided here: selfplay.Search.Validate, that is mcts.Config.Validate, decides it when a
// checkpoint player is built (and the engine's set movetime and time_settings go through it too).
func checkSearchFlags(mix float64, sims, movetime, leaves int) error {
	if !(mix >= 0 && mix <= 1) {
		return fmt.Errorf("--rollout-mix must be in [0, 1], got %g", mix)
	}
	if sims < 1 {
		return fmt.Errorf("--sims must be at least 1, got %d", sims)
	}
	if movetime < 0 {
		return fmt.Errorf("--movetime must be 0 (none) or a positive number of milliseconds, got %d", movetime)
	}
	if leaves < 1 || leaves > 4096 {
		return fmt.Errorf("--leaves-in-flight must be in [1, 4096], got %d", leaves)
	}
	return nil
}
