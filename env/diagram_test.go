package env

import (
	"strings"
	"testing"
)

// boardText returns the position text with the given points (name → '.', 'W', 'B', 'w', 'b') and
// the rest empty, white to move, no rings removed.
func boardText(points map[string]byte) string {
	var b strings.Builder
	for p := 0; p < NumPoints; p++ {
		ch, ok := points[CellName(PointCell(p))]
		if !ok {
			ch = '.'
		}
		b.WriteByte(ch)
	}
	return b.String() + " w 0-0"
}

func mustAct(t *testing.T, tok string) Action {
	t.Helper()
	a, err := ParseAction(tok)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func checkDiagram(t *testing.T, name, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n%s\nwant:\n%s", name, got, want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("%s: trailing space in %q", name, l)
		}
	}
}

const emptyDiagram = `11              . . . .  11
10          . . . . . . .  10
 9        . . . . . . . .  9
 8      . . . . . . . . .  8
 7    . . . . . . . . . .  7
 6    . . . . . . . . .  6
 5  . . . . . . . . . .  5
 4  . . . . . . . . .  4
 3  . . . . . . . .  3
 2  . . . . . . .  2
 1    . . . .  1
    a b c d e f g h i j k
standard, rings removed 0-0, markers in pool 51, white to place a ring
`

// TestDiagramCoordinates checks that every point is drawn where the row numbers and column letters
// say: point (col, row) at x = diagramX0 + 2·col of its row's line, the row's number at both ends,
// the column's letter on the line below row 1 at the same x.
func TestDiagramCoordinates(t *testing.T) {
	checkDiagram(t, "empty board", NewState(Standard).String(), emptyDiagram)
	// Put a distinct ring at each point in turn and find it again through the coordinates.
	lines := strings.Split(NewState(Standard).String(), "\n")
	letters := lines[GridSize]
	for p := 0; p < NumPoints; p++ {
		c := PointCell(p)
		col, row := CellColRow(c)
		line := lines[GridSize-row]
		x := diagramX0 + 2*col
		if line[x] != '.' {
			t.Fatalf("%s: %q at x=%d of %q", CellName(c), line[x], x, line)
		}
		// the letter stands under the column's points
		if letters[x] != byte('a'+col) {
			t.Errorf("%s: letter %q at x=%d", CellName(c), letters[x], x)
		}
		if f := strings.Fields(line); f[0] != f[len(f)-1] || f[0] != itoa(row) {
			t.Errorf("row %d: line %q", row, line)
		}
	}
}

func itoa(n int) string {
	if n >= 10 {
		return string([]byte{byte('0' + n/10), byte('0' + n%10)})
	}
	return string([]byte{byte('0' + n)})
}

// TestDiagramLastAction checks the brackets of each kind of action: a run of neighbours along a line
// of text shares one pair.
func TestDiagramLastAction(t *testing.T) {
	s := NewState(Blitz)
	for _, tok := range strings.Fields("e5 f6 e6 f7 e7 f8 e8 f9 e9 f10 e5-e1") {
		if err := s.ApplyAction(mustAct(t, tok)); err != nil {
			t.Fatal(err)
		}
	}
	checkDiagram(t, "move e5-e1", s.Diagram(DiagramOptions{Last: mustAct(t, "e5-e1"), HasLast: true}), moveDiagram)
	placed := NewState(Standard)
	if err := placed.ApplyAction(mustAct(t, "e9")); err != nil {
		t.Fatal(err)
	}
	checkDiagram(t, "placement e9", placed.Diagram(DiagramOptions{Last: mustAct(t, "e9"), HasLast: true}), placeDiagram)
	empty := NewState(Standard)
	row := empty.Diagram(DiagramOptions{Last: mustAct(t, "xb5-f5"), HasLast: true})
	if l := strings.Split(row, "\n")[6]; l != " 5  .[. . . . .]. . . .  5" {
		t.Errorf("row along a line of text: %q", l)
	}
	col := empty.Diagram(DiagramOptions{Last: mustAct(t, "xe2-e6"), HasLast: true})
	for _, r := range []int{2, 3, 4, 5, 6} {
		if l := strings.Split(col, "\n")[GridSize-r]; strings.Count(l, "[.]") != 1 {
			t.Errorf("row along a column, row %d: %q", r, l)
		}
	}
	if !strings.HasSuffix(col, "white to place a ring\nlast action xe2-e6\n") {
		t.Errorf("last action line: %q", col)
	}
	// pass marks nothing; an invalid action is ignored
	if d := empty.Diagram(DiagramOptions{Last: PassAction, HasLast: true}); strings.Contains(d, "[") || !strings.HasSuffix(d, "last action pass\n") {
		t.Errorf("pass: %q", d)
	}
	for _, a := range []Action{-1, Action(NumActions)} {
		if d := empty.Diagram(DiagramOptions{Last: a, HasLast: true, Fours: true}); d != emptyDiagram {
			t.Errorf("invalid action %d: %q", a, d)
		}
	}
}

// TestDiagramFours: four markers of one colour with an empty fifth point ('+') or the colour's own
// ring there.
func TestDiagramFours(t *testing.T) {
	s := mustParse(t, boardText(map[string]byte{
		"a2": 'W', "a3": 'W', "a4": 'W', "a5": 'W', "b1": 'W',
		"g7": 'B', "k7": 'B', "k8": 'B', "k9": 'B', "k10": 'B',
		"e2": 'w', "e3": 'w', "e4": 'w', "e5": 'w', // column e: fifths e1 and e6
		"g3": 'b', "g4": 'b', "g5": 'b', "g6": 'b', // column g: fifth g2, and g7 with black's ring
		"c5": 'w', "d5": 'w', "f5": 'w', // row 5 with e5: c5..f5, b5 and g5 (black) ends
	}), Standard)
	fours := s.Fours()
	var got []string
	for _, f := range fours {
		got = append(got, f.Color.String()+" "+CellName(f.Ends[0])+"-"+CellName(f.Ends[1])+" "+CellName(f.Fifth))
	}
	want := "white b5-f5 b5,white e1-e5 e1,white e2-e6 e6,black g2-g6 g2,black g3-g7 g7"
	if strings.Join(got, ",") != want {
		t.Errorf("fours %v, want %s", got, want)
	}
	checkDiagram(t, "fours", s.Diagram(DiagramOptions{Fours: true}), foursDiagram)
	if s.String() == s.Diagram(DiagramOptions{Fours: true}) || strings.Contains(s.String(), "+") {
		t.Error("String marks fours")
	}
}

const moveDiagram = `11              . . . .  11
10          . B . . . . .  10
 9        . W B . . . . .  9
 8      . . W B . . . . .  8
 7    . . . W B . . . . .  7
 6    . . . W B . . . .  6
 5  . . . .[w]. . . . .  5
 4  . . . . . . . . .  4
 3  . . . . . . . .  3
 2  . . . . . . .  2
 1    . . .[W] 1
    a b c d e f g h i j k
blitz, rings removed 0-0, markers in pool 50, black to move a ring
last action e5-e1
`
const placeDiagram = `11              . . . .  11
10          . . . . . . .  10
 9        .[W]. . . . . .  9
 8      . . . . . . . . .  8
 7    . . . . . . . . . .  7
 6    . . . . . . . . .  6
 5  . . . . . . . . . .  5
 4  . . . . . . . . .  4
 3  . . . . . . . .  3
 2  . . . . . . .  2
 1    . . . .  1
    a b c d e f g h i j k
standard, rings removed 0-0, markers in pool 51, black to place a ring
last action e9
`
const foursDiagram = `11              . . . .  11
10          . . . . . . B  10
 9        . . . . . . . B  9
 8      . . . . . . . . B  8
 7    . . . . . B . . . B  7
 6    . . . + . b . . .  6
 5  W + w w w w b . . .  5
 4  W . . . w . b . .  4
 3  W . . . w . b .  3
 2  W . . . w . +  2
 1    W . . +  1
    a b c d e f g h i j k
standard, rings removed 0-0, markers in pool 40, white to move a ring
fours: white b5-f5 at b5, white e1-e5 at e1, white e2-e6 at e6, black g2-g6 at g2, black g3-g7 at g7 (ring)
`
