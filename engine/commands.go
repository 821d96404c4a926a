package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The command table and the commands that read or change the game and the settings.

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
		{"set", "[player SPEC|level N|sims N|seed N|movetime MS]", "change a setting (rebuilds the player); without arguments, list the settings", 0, 2, (*Engine).cmdSet},
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

func (e *Engine) cmdName([]string) (string, error) { return Name, nil }

func (e *Engine) cmdVersion([]string) (string, error) { return Version, nil }

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
		return "", errors.New("usage: set [player SPEC|level N|sims N|seed N|movetime MS]")
	}
	key, val := strings.ToLower(args[0]), args[1]
	switch key {
	case "player":
		return "", e.configure(val, e.set, e.seed, e.variant)
	case "level": // set level N: set player level:N
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > selfplay.MaxLevel {
			return "", fmt.Errorf("set level: want an integer in [1, %d], got %q", selfplay.MaxLevel, val)
		}
		return "", e.configure(selfplay.LevelPrefix+strconv.Itoa(n), e.set, e.seed, e.variant)
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
	return "", fmt.Errorf("set: unknown setting %q (want player, level, sims, seed or movetime)", args[0])
}

// Commands returns the command names in list_commands order.
func Commands() []string {
	names := make([]string, len(commands))
	for i := range commands {
		names[i] = commands[i].name
	}
	return names
}
