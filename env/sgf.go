package env

import (
	"fmt"
	"io"
	"strings"
)

// SGFGame is a boardspace.net YINSH record turned into project actions.
type SGFGame struct {
	Variant Variant
	Players [2]string // boardspace player names, indexed by colour
	Result  string    // the RE property as recorded
	Actions []Action  // the actions in order
	Lines   []int     // the source line of each action
	// Resigned is the colour that resigned, or -1.
	Resigned int
	// Final is the state after every action (terminal when the game ended on the board).
	Final *State
}

// Outcome returns the recorded result: the board outcome, or a win for the other side on resignation.
func (g *SGFGame) Outcome() Outcome {
	if g.Final.IsTerminal() {
		return g.Final.Outcome()
	}
	if g.Resigned >= 0 {
		return winnerOutcome(Color(g.Resigned).Other())
	}
	return Ongoing
}

// RecordedWinner returns the colour whose player's name the RE property names as winner, or -1.
func (g *SGFGame) RecordedWinner() int {
	for c, name := range g.Players {
		if name != "" && strings.Contains(g.Result, name) {
			return c
		}
	}
	return -1
}

// sgfNode is one node's properties with the line where the node starts.
type sgfProp struct {
	id, value string
	line      int
}

// parseSGFProps tokenises the first game tree of an SGF text into properties, in order.
func parseSGFProps(text string) ([]sgfProp, error) {
	var props []sgfProp
	line := 1
	i := 0
	depth := 0
	started := false
	for i < len(text) {
		ch := text[i]
		switch {
		case ch == '\n':
			line++
			i++
		case ch == '(':
			depth++
			started = true
			i++
		case ch == ')':
			depth--
			i++
			if started && depth <= 0 {
				return props, nil
			}
		case ch == ';' || ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'):
			if !started {
				return nil, fmt.Errorf("sgf line %d: property outside a game tree", line)
			}
			j := i
			for j < len(text) && text[j] != '[' && text[j] != '\n' && text[j] != ';' && text[j] != ')' {
				j++
			}
			if j >= len(text) || text[j] != '[' {
				return nil, fmt.Errorf("sgf line %d: property %q has no value", line, strings.TrimSpace(text[i:j]))
			}
			id := strings.TrimSpace(text[i:j])
			propLine := line
			var val strings.Builder
			j++
			for ; j < len(text) && text[j] != ']'; j++ {
				if text[j] == '\\' && j+1 < len(text) {
					j++
				}
				if text[j] == '\n' {
					line++
				}
				val.WriteByte(text[j])
			}
			if j >= len(text) {
				return nil, fmt.Errorf("sgf line %d: unterminated value of property %s", propLine, id)
			}
			props = append(props, sgfProp{id, val.String(), propLine})
			i = j + 1
		default:
			return nil, fmt.Errorf("sgf line %d: unexpected character %q", line, ch)
		}
	}
	if !started {
		return nil, fmt.Errorf("sgf: no game tree found")
	}
	return nil, fmt.Errorf("sgf line %d: unterminated game tree", line)
}

// ReadSGF reads a boardspace YINSH record and replays it, checking every action's legality. Errors
// name the line, the ply, the command and the reason.
func ReadSGF(r io.Reader) (*SGFGame, error) {
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("sgf: %w", err)
	}
	props, err := parseSGFProps(string(data))
	if err != nil {
		return nil, err
	}
	g := &SGFGame{Resigned: -1}
	for _, p := range props {
		if p.id == "SU" {
			su := strings.ToLower(p.value)
			if !strings.Contains(su, "yinsh") {
				return nil, fmt.Errorf("sgf line %d: game %q is not YINSH", p.line, p.value)
			}
			if strings.Contains(su, "blitz") {
				g.Variant = Blitz
			}
		}
	}
	s := NewState(g.Variant)
	firstColor := White // the colour of player P0
	var pendingMarker = -1
	for _, p := range props {
		switch p.id {
		case "RE":
			g.Result = p.value
			continue
		case "P0", "P1":
		default:
			continue
		}
		player := Color(p.id[1] - '0')
		fields := strings.Fields(p.value)
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "id" {
			g.Players[player^firstColor] = strings.Trim(strings.Join(fields[1:], " "), `"`)
			continue
		}
		if fields[0] == "time" {
			continue
		}
		if len(fields) < 2 {
			return nil, fmt.Errorf("sgf line %d: bad move %q", p.line, p.value)
		}
		cmd := strings.ToLower(fields[1])
		args := fields[2:]
		bad := func(format string, a ...any) error {
			return fmt.Errorf("sgf line %d: ply %d %q: %s", p.line, len(g.Actions)+1, p.value, fmt.Sprintf(format, a...))
		}
		point := func(col, row string) (int, error) {
			c, err := ParseCell(strings.ToLower(col) + row)
			if err != nil {
				return -1, bad("%v", err)
			}
			return c, nil
		}
		var act Action
		have := false
		switch cmd {
		case "start":
			if len(args) == 1 && strings.EqualFold(args[0], "black") {
				firstColor = Black
				g.Players[0], g.Players[1] = g.Players[1], g.Players[0]
			}
			continue
		case "done", "":
			continue
		case "resign":
			g.Resigned = int(player ^ firstColor)
			continue
		case "place":
			if len(args) != 3 {
				return nil, bad("want place <piece> <col> <row>")
			}
			c, err := point(args[1], args[2])
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(args[0]) {
			case "wr", "br":
				act, have = PlaceAction(c), true
			case "w", "b":
				pendingMarker = c // a marker in a ring; the ring is dropped next
			default:
				return nil, bad("unknown piece %q", args[0])
			}
		case "drop":
			if len(args) != 3 || !strings.EqualFold(args[0], "board") {
				return nil, bad("want drop board <col> <row>")
			}
			if pendingMarker < 0 {
				return nil, bad("drop without a marker placed")
			}
			c, err := point(args[1], args[2])
			if err != nil {
				return nil, err
			}
			a, ok := MoveAction(pendingMarker, c)
			if !ok {
				return nil, bad("%s and %s are not on a common line", CellName(pendingMarker), CellName(c))
			}
			act, have = a, true
			pendingMarker = -1
		case "move":
			if len(args) != 4 {
				return nil, bad("want move <col> <row> <col> <row>")
			}
			a, err := point(args[0], args[1])
			if err != nil {
				return nil, err
			}
			b, err := point(args[2], args[3])
			if err != nil {
				return nil, err
			}
			m, ok := MoveAction(a, b)
			if !ok {
				return nil, bad("%s and %s are not on a common line", CellName(a), CellName(b))
			}
			act, have = m, true
		case "remove":
			switch {
			case len(args) == 5:
				a, err := point(args[1], args[2])
				if err != nil {
					return nil, err
				}
				b, err := point(args[3], args[4])
				if err != nil {
					return nil, err
				}
				row, ok := RowAction(a, b)
				if !ok {
					return nil, bad("%s and %s are not the ends of a row of five", CellName(a), CellName(b))
				}
				act, have = row, true
			case len(args) == 3:
				c, err := point(args[1], args[2])
				if err != nil {
					return nil, err
				}
				act, have = RemoveRingAction(c), true
			default:
				return nil, bad("want remove <piece> <col> <row> [<col> <row>]")
			}
		case "pass":
			act, have = PassAction, true
		default:
			return nil, bad("unknown command %q", fields[1])
		}
		if !have {
			continue
		}
		if s.toAct != player^firstColor && !s.IsTerminal() {
			return nil, bad("%s acts but it is %s's turn", player^firstColor, s.toAct)
		}
		if err := s.ApplyAction(act); err != nil {
			return nil, bad("%s: %v", act, err)
		}
		g.Actions = append(g.Actions, act)
		g.Lines = append(g.Lines, p.line)
	}
	if pendingMarker >= 0 {
		return nil, fmt.Errorf("sgf: record ends with a marker placed in the ring on %s but no drop", CellName(pendingMarker))
	}
	g.Final = s
	return g, nil
}
