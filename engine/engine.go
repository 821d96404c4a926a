// Package engine implements the YINSH engine protocol: a line-based text protocol on stdin/stdout with
// GTP (Go Text Protocol, version 2) framing, through which game clients (GUIs, tournament managers,
// other engines) drive a YINSH Zero player. docs/engine-protocol.md is the reference.
//
// Framing, as in GTP: a command is one line, "[id] name [args...]"; the answer is "=[id] result" on
// success or "?[id] message" on failure, followed by an empty line. Control characters other than tab
// and newline are dropped, '#' starts a comment, tabs count as spaces, blank lines are ignored.
package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// Version is the engine's version, answered by the version command.
const Version = "0.1.0"

// ProtocolVersion is the version of this protocol, answered by protocol_version. Version 2 added
// analyze, policy and the GTP aliases (clear_board, boardsize, komi, a colour for genmove and play)
// to version 1; nothing of version 1 changed.
const ProtocolVersion = "2"

// Name is answered by the name command.
const Name = "YINSH Zero"

// DefaultSims is the number of simulations per decision of checkpoint players when Options.Sims is 0
// (the arena's default too). rollout:N players use their N.
const DefaultSims = 200

// DefaultPlayer is the player spec used when Options.Player is empty, for its variant: the
// reference network (nets.Reference) for standard games, the heuristic baseline for blitz.
func DefaultPlayer(v env.Variant) string { return nets.DefaultPlayer(v) }

// Options configures an Engine.
type Options struct {
	// Player is a player spec as selfplay.ParsePlayer takes it (random, heuristic, rollout:N, a
	// checkpoint file, reference); empty means DefaultPlayer(Variant).
	Player string
	// Search is the player's search settings (selfplay.Search), which its decisions and the
	// analysis (analyze) search with. Sims 0 means DefaultSims; MoveTime bounds every search of
	// searching players by time (see `set movetime`), Sims then being a cap only if SimsSet.
	selfplay.Search
	// Seed seeds the player; the same seed and the same commands give the same answers.
	Seed uint64
	// Variant is the rules variant of the first game (newgame may change it).
	Variant env.Variant
	// AnyVariant lets a checkpoint that records another variant play the game's (by default
	// set player and newgame refuse it, naming both).
	AnyVariant bool
	// Log receives one record per genmove (and per rebuilt player); nil discards.
	Log *slog.Logger
	// Load loads checkpoint players' networks: the backend (model/gonum's or model/torch's Load).
	// Required for checkpoint players (the engine links no backend); nil refuses them.
	Load func(path string) (model.Net, error)
}

// Engine holds one game and one player and answers protocol commands. It is not safe for concurrent
// use; one Engine serves one client.
type Engine struct {
	spec string
	// set is the player's search settings: set.Sims the simulations (set.SimsSet: set explicitly,
	// so that with a move time it caps the search, else there is no cap), set.MoveTime the time
	// per decision (0: bounded by simulations)
	set     selfplay.Search
	seed    uint64
	variant env.Variant
	log     *slog.Logger

	anyVar bool
	clock  gtpClock // GTP time_settings, mapped onto movetime

	player selfplay.Player
	closer io.Closer // releases what the player's factory holds
	nets   netCache  // the network of the checkpoint loaded last, shared by players and analysis

	state   env.State
	history []env.State  // history[i] is the state before moves[i]
	moves   []env.Action // actions since newgame or position
	buf     []env.Action

	// analysis (analyze, policy): built on first use for the player spec, dropped when it changes
	search  *searcher
	atree   *mcts.Tree // the analysis tree, its root the position akey names
	arng    *rand.Rand
	akey    string
	pending *analysis // set by cmdAnalyze for Run or Exec to run

	quit bool
}

// New returns an engine at the start of a game, or an error if the player cannot be built.
func New(opts Options) (*Engine, error) {
	if opts.Player == "" {
		opts.Player = DefaultPlayer(opts.Variant)
	}
	switch {
	case opts.Sims == 0:
		opts.Sims = DefaultSims
	case opts.Sims < 0:
		return nil, fmt.Errorf("engine: sims must be at least 1, got %d", opts.Sims)
	}
	if opts.MoveTime < 0 {
		return nil, fmt.Errorf("engine: move time must be 0 or positive, got %v", opts.MoveTime)
	}
	e := &Engine{log: opts.Log, variant: opts.Variant, anyVar: opts.AnyVariant, nets: netCache{loader: opts.Load}}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if err := e.configure(opts.Player, opts.Search, opts.Seed, opts.Variant); err != nil {
		return nil, err
	}
	e.reset(env.NewState(opts.Variant))
	return e, nil
}

// configure builds a player from spec, search settings, seed and variant and, if that works, makes
// them current. On error the engine is unchanged. Every change of a setting goes through here (or
// through the player's SetMoveTime, which mcts.Tree.SetConfig validates): the settings are checked
// by the player's search, mcts.Config.Validate, and nowhere else.
func (e *Engine) configure(spec string, set selfplay.Search, seed uint64, v env.Variant) error {
	if !e.anyVar && isCheckpointSpec(spec) { // ReadMetadata refuses a named pipe before opening it
		path, err := nets.Resolve(spec)
		if err != nil {
			return err
		}
		if h, err := model.ReadMetadata(path); err == nil {
			if trained, ok := h.Meta.VariantValue(); ok && trained != v {
				return fmt.Errorf("checkpoint %s was trained for %s, the game is %s (newgame %s, or start the engine with --any-variant)", spec, trained, v, trained)
			}
		}
	}
	factory, closer, err := e.openPlayer(spec, selfplay.PlayerOptions{Search: set, Variant: v})
	if err != nil {
		return err
	}
	p, err := factory(seed)
	if err != nil {
		closer.Close()
		return err
	}
	if e.closer != nil {
		e.closer.Close() // the old player's resources: a network's batcher, an engine process
	}
	e.dropSearcher()
	e.nets.flush() // networks no player or searcher uses any more
	e.spec, e.set, e.seed, e.variant, e.player, e.closer = spec, set, seed, v, p, closer
	e.log.Debug("player", "spec", spec, "name", p.Name(), "sims", set.Sims, "movetime", set.MoveTime, "gumbel", set.Gumbel,
		"seed", seed, "variant", v.String())
	return nil
}

// reset starts a game from s.
func (e *Engine) reset(s *env.State) {
	e.state = *s
	e.history = e.history[:0]
	e.moves = e.moves[:0]
	e.player.NewGame()
}

// State returns a copy of the current game state.
func (e *Engine) State() *env.State { return e.state.Clone() }

// Run reads commands from r and writes answers to w until quit or the end of r. Bad input is answered
// with an error and never ends the loop. Run returns nil on quit or end of input, or the read or write
// error that stopped it.
//
// An analyze command answers "=[id] " and a line break at once, then info lines from a search in
// the background while Run reads on: the next line holding a command stops the analysis (its answer
// is ended by the empty line), then runs. At the end of the input an analysis with a budget runs to
// its end, one without stops at once.
func (e *Engine) Run(r io.Reader, w io.Writer) error {
	lr := &lineReader{br: bufio.NewReaderSize(r, protocol.MaxLine)}
	bw := bufio.NewWriter(w)
	e.quit = false
	for !e.quit {
		l := lr.next()
		if l.err != nil && l.err != io.EOF {
			return l.err
		}
		var an *analysis
		if l.tooLong {
			protocol.WriteAnswer(bw, "", false, protocol.TooLongMessage)
		} else if id, ok, text, answered, a := e.exec(l.line); a != nil {
			an = a
			bw.WriteString("=" + id + " \n") // the analysis writes the rest of the answer
		} else if answered {
			protocol.WriteAnswer(bw, id, ok, text)
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if an != nil {
			if err := e.runAnalysis(an, lr, bw, l.err == io.EOF); err != nil {
				return err
			}
		}
		if l.err == io.EOF {
			return nil
		}
	}
	return nil
}

// runAnalysis runs an analysis on a goroutine of its own, which writes to bw, until the next line
// with a command arrives (it is kept in lr for Run), the analysis spends its budget, or the input
// ends (eof: it already has): then an analysis with a budget runs to its end, one without stops.
func (e *Engine) runAnalysis(an *analysis, lr *lineReader, bw *bufio.Writer, eof bool) error {
	done := make(chan error, 1)
	go func() { done <- an.run(bw) }()
	if eof && !an.b.bounded() {
		an.stop()
	}
	for wait := !eof; wait; {
		select {
		case err := <-done:
			return e.analysisDone(an, err)
		case l := <-lr.readAhead():
			lr.ahead = nil
			blank := !l.tooLong && protocol.Clean(l.line) == ""
			if blank && l.err == nil {
				continue // a blank or comment line holds no command: the analysis goes on
			}
			lr.peeked = &l // Run runs it, or returns its read error or the end of the input
			if !blank || l.err != io.EOF || !an.b.bounded() {
				an.stop()
			}
			wait = false
		}
	}
	return e.analysisDone(an, <-done)
}

// analysisDone returns the analysis' write error; after a failed search the tree is not reused.
func (e *Engine) analysisDone(an *analysis, err error) error {
	if an.failed {
		e.akey = ""
	}
	return err
}

// lineReader reads command lines: in the foreground, or in the background while an analysis runs.
type lineReader struct {
	br     *bufio.Reader
	ahead  chan readResult // a background read in flight (or done and not yet received)
	peeked *readResult     // a line read ahead and not yet run
}

type readResult struct {
	line    string
	tooLong bool
	err     error
}

// next returns the next line: one read ahead, or a new one.
func (lr *lineReader) next() readResult {
	switch {
	case lr.peeked != nil:
		l := *lr.peeked
		lr.peeked = nil
		return l
	case lr.ahead != nil:
		l := <-lr.ahead
		lr.ahead = nil
		return l
	}
	return lr.read()
}

func (lr *lineReader) read() readResult {
	line, tooLong, err := protocol.ReadLine(lr.br)
	return readResult{string(line), tooLong, err}
}

// readAhead starts reading the next line in the background, unless a read is in flight, and returns
// the channel its result comes on. Who receives it sets lr.ahead to nil.
func (lr *lineReader) readAhead() <-chan readResult {
	if lr.ahead == nil {
		ch := make(chan readResult, 1)
		go func() { ch <- lr.read() }()
		lr.ahead = ch
	}
	return lr.ahead
}

// Exec runs one command line and returns the answer: its id (empty if none), success, and the result
// or error message. answered is false for lines that carry no command (blank lines and comments), which get
// no answer. Exec cannot stream: it runs an analyze command with a budget to its end and returns all
// its info lines (the bytes Run writes), and refuses one without a budget.
func (e *Engine) Exec(line string) (id string, ok bool, text string, answered bool) {
	id, ok, text, answered, an := e.exec(line)
	if an != nil {
		text, err := runAnalysisSync(an)
		e.analysisDone(an, nil)
		if err != nil {
			return id, false, err.Error(), true
		}
		return id, true, text, true
	}
	return id, ok, text, answered
}

// exec runs one command line as Exec does, except for analyze, whose analysis it returns to run.
func (e *Engine) exec(line string) (id string, ok bool, text string, answered bool, an *analysis) {
	line = protocol.Clean(line)
	if line == "" {
		return "", false, "", false, nil
	}
	f := strings.Fields(line)
	if c := f[0][0]; c >= '0' && c <= '9' {
		if !protocol.ValidID(f[0]) {
			return "", false, fmt.Sprintf("malformed id %q (want an integer of at most 18 digits)", f[0]), true, nil
		}
		id, f = f[0], f[1:]
		if len(f) == 0 {
			return id, false, "missing command after the id", true, nil
		}
	}
	name, args := strings.ToLower(f[0]), f[1:]
	cmd, found := commandIndex[name]
	if !found {
		return id, false, fmt.Sprintf("unknown command %q (list_commands lists them)", f[0]), true, nil
	}
	if len(args) < cmd.minArgs || cmd.maxArgs >= 0 && len(args) > cmd.maxArgs {
		return id, false, "usage: " + cmd.usage(), true, nil
	}
	e.pending = nil
	res, err := cmd.run(e, args)
	if err != nil {
		return id, false, err.Error(), true, nil
	}
	an, e.pending = e.pending, nil
	return id, true, res, true, an
}

// command is one protocol command.
type command struct {
	name    string
	args    string // argument synopsis, e.g. "TOKEN [TOKEN...]"
	help    string
	minArgs int
	maxArgs int // -1: any number
	run     func(e *Engine, args []string) (string, error)
}

func (c *command) usage() string {
	if c.args == "" {
		return c.name
	}
	return c.name + " " + c.args
}

// commands is the command table, in the order list_commands prints it; commandIndex finds them by name.
var (
	commands     []command
	commandIndex map[string]*command
)

func init() {
	commands = []command{
		{"protocol_version", "", "the protocol version (2)", 0, 0, (*Engine).cmdProtocolVersion},
		{"name", "", "the engine name", 0, 0, (*Engine).cmdName},
		{"version", "", "the engine version", 0, 0, (*Engine).cmdVersion},
		{"list_commands", "", "the commands, one a line", 0, 0, (*Engine).cmdListCommands},
		{"known_command", "NAME", "true if NAME is a command, else false", 1, 1, (*Engine).cmdKnownCommand},
		{"help", "[NAME]", "usage and one line of help for NAME, or for every command", 0, 1, (*Engine).cmdHelp},
		{"quit", "", "answer, then exit", 0, 0, (*Engine).cmdQuit},
		{"newgame", "[standard|blitz]", "start a game from the empty board (default: the current variant)", 0, 1, (*Engine).cmdNewgame},
		{"position", "[TEXT]", "set up position TEXT as a new game; without TEXT, print the current position text", 0, 4, (*Engine).cmdPosition},
		{"play", "[COLOR] TOKEN [TOKEN...]", "apply the actions in order for whoever is to act (all or none); COLOR (GTP), if given, must be the side to act", 1, -1, (*Engine).cmdPlay},
		{"undo", "[N]", "take back the last N actions (default 1)", 0, 1, (*Engine).cmdUndo},
		{"legal", "", "the legal actions, space separated (empty when the game is over)", 0, 0, (*Engine).cmdLegal},
		{"turn", "", "the side to act and the phase: '<w|b> <place|move|remove-row|remove-ring>', or '- over'", 0, 0, (*Engine).cmdTurn},
		{"moves", "", "the actions played since newgame or position, space separated", 0, 0, (*Engine).cmdMoves},
		{"genmove", "[COLOR]", "choose, play and print an action for the side to act; COLOR (w|b|white|black, GTP), if given, must be the side to act", 0, 1, (*Engine).cmdGenmove},
		{"genmove_info", "", "like genmove, then 'key value' lines: action, side, time_ms, wdl, top, pv", 0, 0, (*Engine).cmdGenmoveInfo},
		{"eval", "[N]", "the player's view of the position without playing: side, wdl, best, N top actions (default 10), pv", 0, 1, (*Engine).cmdEval},
		{"analyze", analyzeArgs, "search in the background, an info line every INTERVAL_MS (default 100), until the next command or the budget", 0, 7, (*Engine).cmdAnalyze},
		{"policy", "", "the network's prior over the legal actions, 'TOKEN P' lines, most probable first (uniform without a network)", 0, 0, (*Engine).cmdPolicy},
		{"showboard", "", "the board diagram (the last action in brackets, '+' completing a row of four) and status lines", 0, 0, (*Engine).cmdShowboard},
		{"result", "", "white, black, draw or ongoing", 0, 0, (*Engine).cmdResult},
		{"set", "[player SPEC|sims N|seed N|movetime MS]", "change a setting (rebuilds the player); without arguments, list the settings", 0, 2, (*Engine).cmdSet},
		{"time_settings", "MAIN BYO STONES", "GTP time control in seconds (main time, byo-yomi period, stones per period; 0 0 0: none), mapped onto movetime", 3, 3, (*Engine).cmdTimeSettings},
		{"time_left", "COLOR SECONDS STONES", "GTP: the time COLOR (w|b|white|black) has left; sets the move time of the next decisions", 3, 3, (*Engine).cmdTimeLeft},
		{"clear_board", "", "GTP: newgame with the current variant", 0, 0, (*Engine).cmdClearBoard},
		{"boardsize", "N", "GTP: accepted and ignored (YINSH has one board)", 1, 1, (*Engine).cmdBoardsize},
		{"komi", "K", "GTP: accepted and ignored (YINSH has no komi)", 1, 1, (*Engine).cmdKomi},
	}
	commandIndex = make(map[string]*command, len(commands))
	for i := range commands {
		commandIndex[commands[i].name] = &commands[i]
	}
}

func (e *Engine) cmdProtocolVersion([]string) (string, error) { return ProtocolVersion, nil }
func (e *Engine) cmdName([]string) (string, error)            { return Name, nil }
func (e *Engine) cmdVersion([]string) (string, error)         { return Version, nil }

func (e *Engine) cmdListCommands([]string) (string, error) {
	var b strings.Builder
	for i, c := range commands {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.name)
	}
	return b.String(), nil
}

func (e *Engine) cmdKnownCommand(args []string) (string, error) {
	_, ok := commandIndex[strings.ToLower(args[0])]
	return strconv.FormatBool(ok), nil
}

func (e *Engine) cmdHelp(args []string) (string, error) {
	if len(args) == 1 {
		c, ok := commandIndex[strings.ToLower(args[0])]
		if !ok {
			return "", fmt.Errorf("unknown command %q", args[0])
		}
		return c.usage() + " -- " + c.help, nil
	}
	lines := make([]string, len(commands))
	for i := range commands {
		lines[i] = commands[i].usage() + " -- " + commands[i].help
	}
	return strings.Join(lines, "\n"), nil
}

func (e *Engine) cmdQuit([]string) (string, error) {
	e.quit = true
	return "", nil
}

func (e *Engine) cmdNewgame(args []string) (string, error) {
	v := e.variant
	if len(args) == 1 {
		var err error
		if v, err = env.ParseVariant(strings.ToLower(args[0])); err != nil {
			return "", errors.New(strings.ReplaceAll(err.Error(), "env: ", ""))
		}
	}
	if v != e.variant {
		if err := e.configure(e.spec, e.set, e.seed, v); err != nil {
			return "", err
		}
	}
	e.reset(env.NewState(v))
	return "", nil
}

func (e *Engine) cmdPosition(args []string) (string, error) {
	if len(args) == 0 {
		return e.state.Text(), nil
	}
	s, err := env.ParsePosition(strings.Join(args, " "), e.variant)
	if err != nil {
		return "", errors.New(strings.ReplaceAll(err.Error(), "env: ", ""))
	}
	e.reset(s)
	return "", nil
}

func (e *Engine) cmdPlay(args []string) (string, error) {
	if c, ok := parseColor(args[0]); ok && len(args) > 1 {
		if err := e.checkColor("play", c); err != nil {
			return "", fmt.Errorf("%v (nothing played)", err)
		}
		args = args[1:]
	}
	n := len(e.moves)
	for i, tok := range args {
		a, err := env.ParseAction(tok)
		if err != nil {
			err = errors.New(strings.ReplaceAll(err.Error(), "env: ", ""))
		} else if err = e.apply(a); err != nil {
			err = fmt.Errorf("illegal action %q: %s", tok, strings.TrimPrefix(err.Error(), env.ErrIllegal.Error()+": "))
		}
		if err != nil {
			e.undo(len(e.moves) - n)
			if len(args) > 1 {
				return "", fmt.Errorf("token %d: %v (nothing played)", i+1, err)
			}
			return "", err
		}
	}
	return "", nil
}

// apply plays a for the side to act, keeping the state before it for undo.
func (e *Engine) apply(a env.Action) error {
	before := e.state
	if err := e.state.ApplyAction(a); err != nil {
		return err
	}
	e.history = append(e.history, before)
	e.moves = append(e.moves, a)
	if ob, ok := e.player.(selfplay.Observer); ok {
		ob.Observe(a) // an external engine follows the game
	}
	return nil
}

// Close releases the player's resources (a network's batcher, an external engine's process).
func (e *Engine) Close() error {
	if e.closer == nil {
		return nil
	}
	err := e.closer.Close()
	e.closer = nil
	e.dropSearcher()
	e.nets.close()
	return err
}

// undo takes back the last n actions (n ≤ len(e.moves)).
func (e *Engine) undo(n int) {
	if n <= 0 {
		return
	}
	k := len(e.moves) - n
	e.state = e.history[k]
	e.history = e.history[:k]
	e.moves = e.moves[:k]
}

func (e *Engine) cmdUndo(args []string) (string, error) {
	n := 1
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			return "", fmt.Errorf("undo: want a count of at least 1, got %q", args[0])
		}
	}
	if n > len(e.moves) {
		if len(e.moves) == 0 {
			return "", errors.New("nothing to undo")
		}
		return "", fmt.Errorf("cannot undo %d actions, only %d played since newgame or position", n, len(e.moves))
	}
	e.undo(n)
	e.player.NewGame() // a player that keeps a search tree must not reuse it across a take-back
	return "", nil
}

func (e *Engine) cmdLegal([]string) (string, error) {
	e.buf = e.state.LegalActions(e.buf)
	return joinActions(e.buf), nil
}

func (e *Engine) cmdTurn([]string) (string, error) {
	if e.state.IsTerminal() {
		return "- over", nil
	}
	return sideName(e.state.CurrentPlayer()) + " " + e.state.Phase().String(), nil
}

func (e *Engine) cmdMoves([]string) (string, error) { return joinActions(e.moves), nil }

func (e *Engine) cmdResult([]string) (string, error) { return e.state.Outcome().String(), nil }

func (e *Engine) cmdShowboard([]string) (string, error) {
	o := env.DiagramOptions{Fours: true}
	if n := len(e.moves); n > 0 {
		o.Last, o.HasLast = e.moves[n-1], true
	}
	// The diagram starts on its own line, as GTP engines print boards.
	return "\n" + e.state.Diagram(o), nil
}

func (e *Engine) cmdClearBoard([]string) (string, error) { return e.cmdNewgame(nil) }

// GTP GUIs send boardsize and komi before every game and give up on an error: accept them, with a
// note that they change nothing.
func (e *Engine) cmdBoardsize(args []string) (string, error) {
	if _, err := strconv.Atoi(args[0]); err != nil {
		return "", fmt.Errorf("boardsize: want an integer, got %q", args[0])
	}
	return "ignored: YINSH has one board (85 points)", nil
}

func (e *Engine) cmdKomi(args []string) (string, error) {
	if _, err := strconv.ParseFloat(args[0], 64); err != nil {
		return "", fmt.Errorf("komi: want a number, got %q", args[0])
	}
	return "ignored: YINSH has no komi", nil
}

// parseColor reads a GTP colour: w, b, white or black, in any case.
func parseColor(s string) (env.Color, bool) {
	switch strings.ToLower(s) {
	case "w", "white":
		return env.White, true
	case "b", "black":
		return env.Black, true
	}
	return 0, false
}

// checkColor errs unless c is the side to act (a GTP client names the colour it wants to play).
func (e *Engine) checkColor(cmd string, c env.Color) error {
	if e.state.IsTerminal() {
		return fmt.Errorf("the game is over (result %s)", e.state.Outcome())
	}
	if me := e.state.CurrentPlayer(); c != me {
		return fmt.Errorf("%s: %s is not to act: %s is to %s", cmd, c, me, e.state.Phase().Verb())
	}
	return nil
}

func (e *Engine) cmdSet(args []string) (string, error) {
	switch {
	case len(args) == 0:
		return fmt.Sprintf("player %s\nsims %d\nseed %d\nvariant %s\nmovetime %d", e.spec, e.set.Sims, e.seed, e.variant, e.set.MoveTime.Milliseconds()), nil
	case len(args) != 2:
		return "", errors.New("usage: set [player SPEC|sims N|seed N|movetime MS]")
	}
	key, val := strings.ToLower(args[0]), args[1]
	switch key {
	case "player":
		return "", e.configure(val, e.set, e.seed, e.variant)
	case "sims":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 100_000_000 {
			return "", fmt.Errorf("set sims: want an integer in [1, 100000000], got %q", val)
		}
		set := e.set
		set.Sims, set.SimsSet = n, true
		return "", e.configure(e.spec, set, e.seed, e.variant)
	case "movetime":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 3_600_000 {
			return "", fmt.Errorf("set movetime: want milliseconds in [0, 3600000] (0: bounded by sims), got %q", val)
		}
		e.clock = gtpClock{}
		return "", e.setMoveTime(time.Duration(n) * time.Millisecond)
	case "seed":
		n, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return "", fmt.Errorf("set seed: want an unsigned 64-bit integer, got %q", val)
		}
		return "", e.configure(e.spec, e.set, n, e.variant)
	}
	return "", fmt.Errorf("set: unknown setting %q (want player, sims, seed or movetime)", args[0])
}

// setMoveTime makes d the time per decision (0: bounded by simulations). A player that can change
// its move time in place (selfplay.SearchPlayer) keeps its tree; otherwise, and when the cap on
// simulations changes with it, the player is rebuilt. Either way the player's search validates the
// new settings (a timed Gumbel search is mcts.Config.Validate's to accept or refuse); on error the
// engine keeps its old move time.
func (e *Engine) setMoveTime(d time.Duration) error {
	old := e.set.MoveTime
	if d == old {
		return nil
	}
	if mt, ok := e.player.(interface{ SetMoveTime(time.Duration) error }); ok && (old > 0) == (d > 0) {
		if err := mt.SetMoveTime(d); err != nil {
			return err
		}
		e.set.MoveTime = d
		e.dropSearcher() // the analysis searches as the player does: with its move time
		return nil
	}
	set := e.set
	set.MoveTime = d
	return e.configure(e.spec, set, e.seed, e.variant)
}

// gtpClock is a GTP time control (time_settings): main time, then byo-yomi periods of Byo for
// Stones decisions, all in seconds. Zero Byo and Main means no time limit.
type gtpClock struct {
	Main, Byo float64
	Stones    int
	set       bool
}

// movesLeftGuess is how many more own decisions a main time is spread over (YINSH games last
// about 70-80 actions, 35-40 per side; a fixed share keeps early moves from using it all).
const movesLeftGuess = 30

// perMove returns the time for the next decision given the time left and the stones left in the
// current byo-yomi period (0: in main time), keeping a margin for the protocol and the process.
func (c gtpClock) perMove(left float64, stones int) time.Duration {
	var sec float64
	switch {
	case stones > 0:
		sec = left / float64(stones)
	case c.Byo > 0 && c.Stones > 0:
		sec = left/movesLeftGuess + c.Byo/float64(c.Stones)
	default:
		sec = left / movesLeftGuess
	}
	sec = sec*0.9 - 0.02 // 10% and 20 ms of margin
	if sec < 0.001 {
		sec = 0.001
	}
	return time.Duration(sec * float64(time.Second))
}

func parseSeconds(name, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x < 1e7) {
		return 0, fmt.Errorf("%s: want seconds >= 0, got %q", name, v)
	}
	return x, nil
}

func (e *Engine) cmdTimeSettings(args []string) (string, error) {
	main, err := parseSeconds("time_settings main time", args[0])
	if err != nil {
		return "", err
	}
	byo, err := parseSeconds("time_settings byo-yomi time", args[1])
	if err != nil {
		return "", err
	}
	stones, err := strconv.Atoi(args[2])
	if err != nil || stones < 0 || stones > 1_000_000 {
		return "", fmt.Errorf("time_settings byo-yomi stones: want a count >= 0, got %q", args[2])
	}
	if byo > 0 && stones == 0 {
		return "", errors.New("time_settings: a byo-yomi time needs at least 1 stone")
	}
	c := gtpClock{Main: main, Byo: byo, Stones: stones, set: true}
	if main == 0 && byo == 0 {
		e.clock = gtpClock{}
		return "", e.setMoveTime(0) // GTP: 0 0 0 means no time limit
	}
	d := c.perMove(main, 0)
	if main == 0 {
		d = c.perMove(byo, stones)
	}
	if err := e.setMoveTime(d); err != nil {
		return "", err
	}
	e.clock = c
	return "", nil
}

func (e *Engine) cmdTimeLeft(args []string) (string, error) {
	switch strings.ToLower(args[0]) {
	case "w", "white", "b", "black":
	default:
		return "", fmt.Errorf("time_left: colour %q, want w, b, white or black", args[0])
	}
	left, err := parseSeconds("time_left", args[1])
	if err != nil {
		return "", err
	}
	stones, err := strconv.Atoi(args[2])
	if err != nil || stones < 0 || stones > 1_000_000 {
		return "", fmt.Errorf("time_left stones: want a count >= 0, got %q", args[2])
	}
	if !e.clock.set {
		return "", errors.New("time_left: no time_settings given (the engine is bounded by sims or set movetime)")
	}
	return "", e.setMoveTime(e.clock.perMove(left, stones))
}

// decide asks the player for the side to act; it errs on a finished game.
func (e *Engine) decide() (selfplay.Decision, time.Duration, error) {
	if e.state.IsTerminal() {
		return selfplay.Decision{}, 0, fmt.Errorf("the game is over (result %s)", e.state.Outcome())
	}
	c := e.state // the player gets a copy: nothing it does can touch the game or the undo stack
	start := time.Now()
	d, err := e.player.Decide(&c)
	elapsed := time.Since(start)
	if err != nil {
		return d, elapsed, fmt.Errorf("player %s: %v", e.player.Name(), err)
	}
	return d, elapsed, nil
}

// genmove decides and plays an action, logging it with its time.
func (e *Engine) genmove() (selfplay.Decision, env.Color, time.Duration, error) {
	side := e.state.CurrentPlayer()
	d, elapsed, err := e.decide()
	if err != nil {
		return d, side, elapsed, err
	}
	if err := e.apply(d.Action); err != nil {
		return d, side, elapsed, fmt.Errorf("player %s chose %s: %v", e.player.Name(), d.Action, err)
	}
	attrs := []any{"action", d.Action.String(), "side", sideName(side), "ply", e.state.Ply(),
		"player", e.player.Name(), "ms", float64(elapsed.Microseconds()) / 1000}
	if d.HasValue {
		attrs = append(attrs, "wdl", formatWDL(d))
	}
	e.log.Info("genmove", attrs...)
	return d, side, elapsed, nil
}

func (e *Engine) cmdGenmove(args []string) (string, error) {
	if len(args) == 1 {
		c, ok := parseColor(args[0])
		if !ok {
			return "", fmt.Errorf("genmove: colour %q, want w, b, white or black", args[0])
		}
		if err := e.checkColor("genmove", c); err != nil {
			return "", err
		}
	}
	d, _, _, err := e.genmove()
	if err != nil {
		return "", err
	}
	return d.Action.String(), nil
}

func (e *Engine) cmdGenmoveInfo([]string) (string, error) {
	d, side, elapsed, err := e.genmove()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "action %s\nside %s\ntime_ms %.3f\nwdl %s", d.Action, sideName(side),
		float64(elapsed.Microseconds())/1000, formatWDL(d))
	writeTop(&b, d.Top, 10)
	writePV(&b, d.PV)
	return b.String(), nil
}

func (e *Engine) cmdEval(args []string) (string, error) {
	n := 10
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 0 {
			return "", fmt.Errorf("eval: want a count of at least 0, got %q", args[0])
		}
	}
	side := e.state.CurrentPlayer()
	d, _, err := e.decide()
	if err != nil {
		return "", err
	}
	top := d.Top
	if len(top) == 0 {
		// Players that do not search say nothing about the candidates: list the legal actions with
		// uniform priors and no visits.
		e.buf = e.state.LegalActions(e.buf)
		p := float32(1) / float32(len(e.buf))
		top = make([]selfplay.ActionStat, 0, min(n, len(e.buf)))
		for _, a := range e.buf[:min(n, len(e.buf))] {
			top = append(top, selfplay.ActionStat{Action: a, Prior: p})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "side %s\nwdl %s\nbest %s", sideName(side), formatWDL(d), d.Action)
	writeTop(&b, top, n)
	writePV(&b, d.PV)
	return b.String(), nil
}

// formatWDL prints the decision's win/draw/loss for the side to act, or "unknown".
func formatWDL(d selfplay.Decision) string {
	if !d.HasValue {
		return "unknown"
	}
	return fmt.Sprintf("%.3f %.3f %.3f", d.WDL[0], d.WDL[1], d.WDL[2])
}

// writeTop writes up to n lines "top TOKEN prior P visits V q Q" (q is "-" for unvisited actions).
func writeTop(b *strings.Builder, top []selfplay.ActionStat, n int) {
	for _, st := range top[:min(n, len(top))] {
		q := "-"
		if st.Visits > 0 {
			q = strconv.FormatFloat(float64(st.Q), 'f', 3, 32)
			if q == "-0.000" {
				q = "0.000"
			}
		}
		fmt.Fprintf(b, "\ntop %s prior %.4f visits %d q %s", st.Action, st.Prior, st.Visits, q)
	}
}

func writePV(b *strings.Builder, pv []env.Action) {
	if len(pv) > 0 {
		b.WriteString("\npv ")
		b.WriteString(joinActions(pv))
	}
}

func joinActions(acts []env.Action) string {
	var b strings.Builder
	b.Grow(len(acts) * 7)
	for i, a := range acts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
	}
	return b.String()
}

func sideName(c env.Color) string { return string("wb"[c]) }

// Commands returns the command names in list_commands order.
func Commands() []string {
	names := make([]string, len(commands))
	for i := range commands {
		names[i] = commands[i].name
	}
	return names
}

// Answer is one answer of the protocol, as a client reads it.
type Answer struct {
	OK   bool   // '=' (true) or '?' (false)
	ID   string // the command's id, empty if it had none
	Text string // the result or error message; lines of a multi-line result are joined by '\n'
}

// ReadAnswer reads one answer (up to and including its terminating empty line) from r, for Go clients
// and tests: protocol.ReadAnswer's parse. Lines before the answer that are empty are skipped.
func ReadAnswer(r *bufio.Reader) (Answer, error) {
	ok, id, text, err := protocol.ReadAnswer(r)
	return Answer{OK: ok, ID: id, Text: text}, err
}
