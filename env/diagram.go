package env

import (
	"fmt"
	"strings"
)

// The board diagram. Each text line is a board row, 11 at the top; point (col, row) is drawn at
// character x = diagramX0 + 2·col of its row's line, whatever the row, so a column is a vertical
// line of text and its letter stands on the line below row 1 exactly under its points:
//
//	11              . . . .  11
//	10          . . . . . . .  10
//	 9        . . . . . . . .  9
//	 ...
//	 5  . . . . . . . . . .  5
//	 ...
//	 1    . . . .  1
//	    a b c d e f g h i j k
//
// The six neighbours of a point are left and right of it on its line, directly above and below
// it, and one step up-right and down-left (col+1, row+1 and col-1, row-1): the board's three line
// directions are the rows (horizontal), the columns (vertical) and the diagonals running up and to
// the right. The row number stands at both ends of its line: in a fixed margin on the left, two
// spaces after the row's last point on the right. Marks (brackets around the last action's points)
// only ever replace the spaces between points, so no glyph moves. Below come a status line and, with
// DiagramOptions, the marks' legend lines.

// diagramX0 is the text column of column a's points and letter: the two-character row number, then
// two spaces (room for a bracket before a point of column a).
const diagramX0 = 4

// DiagramOptions selects the marks of State.Diagram. The zero value is the plain diagram of String.
type DiagramOptions struct {
	// Last, when HasLast, is the action that led to the state (an invalid id is ignored). Its points
	// are put in brackets, a run of neighbouring points of one line in one pair: the placed ring
	// ("[W]"), the moved ring's start (now its marker) and end ("[w] ... [W]"), the five points of a
	// removed row ("[. . . . .]" when the row lies along a line of text), the removed ring's point.
	// A line "last action TOKEN" follows the status line.
	Last    Action
	HasLast bool
	// Fours points out rows of four: five points in a line holding four markers of one colour and,
	// on the fifth point, nothing (drawn '+') or a ring of that colour (moving it away completes the
	// row). A line "fours: ..." after the status line lists them (see Fours).
	Fours bool
}

// diagramWidth holds the widest diagram line: points up to x = diagramX0 + 20, a bracket, the row
// number.
const diagramWidth = diagramX0 + 2*(GridSize-1) + 5

// String returns the plain board diagram and a status line (variant, rings removed, markers in the
// pool, who must do what, or the result): Diagram with no marks.
func (s *State) String() string { return s.Diagram(DiagramOptions{}) }

// Diagram returns the board diagram with the marks o asks for, then the status line and the marks'
// lines. Every line ends with '\n'; no line has trailing spaces.
func (s *State) Diagram(o DiagramOptions) string {
	var marked [NumCells]bool
	last := o.HasLast && o.Last.Valid()
	if last {
		for _, c := range actionPoints(o.Last) {
			marked[c] = true
		}
	}
	var fours []Four
	var plus [NumCells]bool
	if o.Fours {
		fours = s.Fours()
		for _, f := range fours {
			if s.cells[f.Fifth] == empty {
				plus[f.Fifth] = true
			}
		}
	}
	var b strings.Builder
	line := make([]byte, diagramWidth)
	for row := GridSize; row >= 1; row-- {
		for i := range line {
			line[i] = ' '
		}
		copy(line, fmt.Sprintf("%2d", row))
		lastX := -1
		for col := 0; col < GridSize; col++ {
			c, ok := CellOf(col, row)
			if !ok {
				continue
			}
			x := diagramX0 + 2*col
			ch := s.Cell(c)
			if plus[c] {
				ch = '+'
			}
			line[x] = ch
			if marked[c] {
				// a run of marked neighbours on this line shares one pair of brackets
				if prev, ok := CellOf(col-1, row); !ok || !marked[prev] {
					line[x-1] = '['
				}
				if next, ok := CellOf(col+1, row); !ok || !marked[next] {
					line[x+1] = ']'
				}
			}
			lastX = x
		}
		n := copy(line[lastX+3:], fmt.Sprint(row))
		b.Write(line[:lastX+3+n])
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat(" ", diagramX0))
	for col := 0; col < GridSize; col++ {
		if col > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(byte('a' + col))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s, rings removed %d-%d, markers in pool %d", s.variant, s.removed[White], s.removed[Black], s.MarkersInPool())
	if s.phase == PhaseOver {
		switch s.outcome {
		case Draw:
			b.WriteString(", game over: a draw")
		default:
			fmt.Fprintf(&b, ", game over: %s wins", s.outcome)
		}
	} else {
		fmt.Fprintf(&b, ", %s to %s", s.toAct, phaseVerb[s.phase])
	}
	b.WriteByte('\n')
	if last {
		fmt.Fprintf(&b, "last action %s\n", o.Last)
	}
	if len(fours) > 0 {
		b.WriteString("fours:")
		for i, f := range fours {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %s-%s at %s", f.Color, CellName(f.Ends[0]), CellName(f.Ends[1]), CellName(f.Fifth))
			if s.cells[f.Fifth] != empty {
				b.WriteString(" (ring)")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// actionPoints returns the cells an action names: the placed or removed ring's point, a move's start
// and end, a removed row's five points; none for pass.
func actionPoints(a Action) []int {
	switch a.Kind() {
	case KindPlace, KindRemoveRing:
		c, _ := a.Cells()
		return []int{c}
	case KindMove:
		from, to := a.Cells()
		return []int{from, to}
	case KindRemoveRow:
		cs := RowCells(a)
		return cs[:]
	}
	return nil
}

// Four is a row of four: a five-point window of a line (as a row removal names it) holding four
// markers of Color, with Fifth, the window's other point, empty or holding a ring of Color.
type Four struct {
	Color Color
	Ends  [2]int // the window's end cells, lower first (the row removal's token without the 'x')
	Fifth int    // the cell that would complete the row
}

// Fours returns the rows of four on the board, white's first, each colour's in row-action order.
// A line of four markers with both neighbours free is two fours (one per window).
func (s *State) Fours() []Four {
	var out []Four
	for _, col := range [2]Color{White, Black} {
		for w := range windows {
			if windows[w].and(s.markers[col]).count() != 4 {
				continue
			}
			cs := windowCells[w]
			for _, c := range cs {
				if v := s.cells[c]; v != markerOf(col) {
					if v == empty || v == ringOf(col) {
						out = append(out, Four{Color: col, Ends: [2]int{int(cs[0]), int(cs[4])}, Fifth: int(c)})
					}
					break
				}
			}
		}
	}
	return out
}
