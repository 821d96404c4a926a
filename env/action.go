package env

import (
	"fmt"
	"sort"
	"strings"
)

// Action is an id in the flat action space shared by every consumer (search, networks, records):
//
//	[0, 85)        place a ring on point p                     token "e5"
//	[85, 1933)     ring moves, ordered (from, to) point pairs on a common line, sorted by from then to;
//	               a marker is put on from and the ring moves to to          token "e5-e10"
//	[1933, 2056)   remove the row (5-window of a line) with the given end points, sorted by lower end
//	               point then upper end point                                 token "xe5-e9"
//	[2056, 2141)   remove the ring on point p                                 token "xe5"
//	2141           pass                                                       token "pass"
type Action int

// Action space layout.
const (
	NumPlaceActions   = NumPoints
	NumMoveActions    = 1848
	NumRowActions     = 123
	NumRemoveActions  = NumPoints
	FirstMoveAction   = NumPlaceActions
	FirstRowAction    = FirstMoveAction + NumMoveActions
	FirstRemoveAction = FirstRowAction + NumRowActions
	PassAction        = Action(FirstRemoveAction + NumRemoveActions)
	NumActions        = int(PassAction) + 1
)

// Kind is the kind of an action.
type Kind uint8

const (
	KindPlace Kind = iota
	KindMove
	KindRemoveRow
	KindRemoveRing
	KindPass
)

// actionInfo describes an action: for placements and ring removals from is the cell; for moves from/to
// are cells, dir the direction index and dist the number of steps; for rows from/to are the end cells
// (lower cell first), dir the direction from from to to, and win the window index.
type actionInfo struct {
	kind     Kind
	from, to uint8
	dir      uint8
	dist     uint8
}

var (
	actions [NumActions]actionInfo
	// moveAction[c][d][k] is the move action from cell c, k+1 steps in direction d.
	moveAction [NumCells][6][GridSize]int16
	// windows[i] is the set of cells of row window i; windowCells lists them in order.
	windows     [NumRowActions]bits128
	windowCells [NumRowActions][5]uint8
	// rowActionByEnds maps (lower end cell, upper end cell) to the row action.
	rowActionByEnds map[[2]uint8]Action
)

func initActions() {
	type pair struct{ from, to, dir, dist int }
	var moves []pair
	var wins []pair
	for p := 0; p < NumPoints; p++ {
		actions[p] = actionInfo{kind: KindPlace, from: pointCell[p]}
		actions[FirstRemoveAction+p] = actionInfo{kind: KindRemoveRing, from: pointCell[p]}
		c := int(pointCell[p])
		for d := 0; d < 6; d++ {
			for k := 0; k < int(rayLen[c][d]); k++ {
				moves = append(moves, pair{c, int(rays[c][d][k]), d, k + 1})
			}
			// windows are enumerated from their lower end, in the three positive directions
			if d%2 == 0 && rayLen[c][d] >= 4 {
				wins = append(wins, pair{c, int(rays[c][d][3]), d, 4})
			}
		}
	}
	sort.Slice(moves, func(i, j int) bool {
		if moves[i].from != moves[j].from {
			return moves[i].from < moves[j].from
		}
		return moves[i].to < moves[j].to
	})
	sort.Slice(wins, func(i, j int) bool {
		if wins[i].from != wins[j].from {
			return wins[i].from < wins[j].from
		}
		return wins[i].to < wins[j].to
	})
	if len(moves) != NumMoveActions || len(wins) != NumRowActions {
		panic(fmt.Sprintf("env: %d moves and %d rows, want %d and %d", len(moves), len(wins), NumMoveActions, NumRowActions))
	}
	for i, m := range moves {
		a := FirstMoveAction + i
		actions[a] = actionInfo{kind: KindMove, from: uint8(m.from), to: uint8(m.to), dir: uint8(m.dir), dist: uint8(m.dist)}
		moveAction[m.from][m.dir][m.dist-1] = int16(a)
	}
	rowActionByEnds = make(map[[2]uint8]Action, NumRowActions)
	for i, w := range wins {
		a := FirstRowAction + i
		actions[a] = actionInfo{kind: KindRemoveRow, from: uint8(w.from), to: uint8(w.to), dir: uint8(w.dir), dist: 4}
		c := w.from
		for k := 0; k < 5; k++ {
			windows[i] = windows[i].set(c)
			windowCells[i][k] = uint8(c)
			c += cellStep[w.dir]
		}
		rowActionByEnds[[2]uint8{uint8(w.from), uint8(w.to)}] = Action(a)
	}
	actions[PassAction] = actionInfo{kind: KindPass}
}

// Kind returns the kind of the action. It panics if a is out of range; use Valid first on untrusted ids.
func (a Action) Kind() Kind { return actions[a].kind }

// Valid reports whether a is an id of the action space.
func (a Action) Valid() bool { return a >= 0 && int(a) < NumActions }

// Cells returns the cells an action names: (cell, -1) for placements and ring removals, (from, to) for
// moves and rows (rows: lower end first), (-1, -1) for pass.
func (a Action) Cells() (from, to int) {
	in := actions[a]
	switch in.kind {
	case KindPlace, KindRemoveRing:
		return int(in.from), -1
	case KindMove, KindRemoveRow:
		return int(in.from), int(in.to)
	}
	return -1, -1
}

// PlaceAction returns the placement action on a cell (which must be a board point).
func PlaceAction(cell int) Action { return Action(cellPoint[cell]) }

// RemoveRingAction returns the ring-removal action on a cell (which must be a board point).
func RemoveRingAction(cell int) Action { return Action(FirstRemoveAction + int(cellPoint[cell])) }

// MoveAction returns the ring move between two cells, or false if they do not share a line.
func MoveAction(from, to int) (Action, bool) {
	if from < 0 || from >= NumCells || to < 0 || to >= NumCells || !cellValid[from] || !cellValid[to] {
		return 0, false
	}
	for d := 0; d < 6; d++ {
		for k := 0; k < int(rayLen[from][d]); k++ {
			if int(rays[from][d][k]) == to {
				return Action(moveAction[from][d][k]), true
			}
		}
	}
	return 0, false
}

// RowAction returns the row removal with the given end cells (either order), or false if they are not
// the ends of a 5-window on a line.
func RowAction(a, b int) (Action, bool) {
	if a > b {
		a, b = b, a
	}
	if a < 0 || b >= NumCells {
		return 0, false
	}
	act, ok := rowActionByEnds[[2]uint8{uint8(a), uint8(b)}]
	return act, ok
}

// String returns the action's token (lowercase): "e5", "e5-e10", "xe5-e9", "xe5" or "pass".
func (a Action) String() string {
	if !a.Valid() {
		return fmt.Sprintf("action(%d)", int(a))
	}
	in := actions[a]
	switch in.kind {
	case KindPlace:
		return CellName(int(in.from))
	case KindMove:
		return CellName(int(in.from)) + "-" + CellName(int(in.to))
	case KindRemoveRow:
		return "x" + CellName(int(in.from)) + "-" + CellName(int(in.to))
	case KindRemoveRing:
		return "x" + CellName(int(in.from))
	}
	return "pass"
}

// ParseCell parses a point name such as "e5" (case-insensitive) into a cell.
func ParseCell(s string) (int, error) {
	if len(s) < 2 || len(s) > 3 {
		return -1, fmt.Errorf("env: bad point %q", s)
	}
	col := int(s[0]|0x20) - 'a'
	row := 0
	for _, ch := range s[1:] {
		if ch < '0' || ch > '9' {
			return -1, fmt.Errorf("env: bad point %q", s)
		}
		row = row*10 + int(ch-'0')
	}
	c, ok := CellOf(col, row)
	if !ok {
		return -1, fmt.Errorf("env: %q is not a point of the board", s)
	}
	return c, nil
}

// ParseAction parses an action token (case-insensitive, surrounding space ignored).
func ParseAction(tok string) (Action, error) {
	t := strings.ToLower(strings.TrimSpace(tok))
	if t == "pass" {
		return PassAction, nil
	}
	if t == "" {
		return 0, fmt.Errorf("env: empty action token")
	}
	remove := false
	if t[0] == 'x' {
		remove = true
		t = t[1:]
	}
	from, to, two := strings.Cut(t, "-")
	a, err := ParseCell(from)
	if err != nil {
		return 0, fmt.Errorf("env: bad action %q: %w", tok, err)
	}
	if !two {
		if remove {
			return RemoveRingAction(a), nil
		}
		return PlaceAction(a), nil
	}
	b, err := ParseCell(to)
	if err != nil {
		return 0, fmt.Errorf("env: bad action %q: %w", tok, err)
	}
	if remove {
		act, ok := RowAction(a, b)
		if !ok {
			return 0, fmt.Errorf("env: bad action %q: %s and %s are not the ends of a row of five", tok, CellName(a), CellName(b))
		}
		return act, nil
	}
	act, ok := MoveAction(a, b)
	if !ok {
		return 0, fmt.Errorf("env: bad action %q: %s and %s are not on a common line", tok, CellName(a), CellName(b))
	}
	return act, nil
}

// MarshalText implements encoding.TextMarshaler.
func (a Action) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("env: action %d out of range", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Action) UnmarshalText(b []byte) error {
	x, err := ParseAction(string(b))
	if err != nil {
		return err
	}
	*a = x
	return nil
}

// RowCells returns the five cells of a row-removal action, from the lower end.
func RowCells(a Action) [5]int {
	var out [5]int
	for k, c := range windowCells[int(a)-FirstRowAction] {
		out[k] = int(c)
	}
	return out
}
