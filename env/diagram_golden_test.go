package env

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/diagram from the current output")

// midgame is a seeded random game (PCG seed 4, standard): ring moves, two row removals (one along a
// diagonal, xb4-f8, its last action), a ring removal between them.
const midgame = "b6 k9 a3 a5 i7 e9 c3 h11 g5 c6 a3-b4 k9-f9 c3-c5 c6-j6 b6-b5 e9-e8 c5-i11 e8-f8 i7-i9 j6-h4 " +
	"i11-h10 h4-i4 b4-b3 i4-g4 g5-g7 f9-f10 h10-g10 f8-d8 b3-a2 g4-c4 g7-d7 c4-c7 a2-f2 f10-g11 i9-d9 " +
	"c7-c2 f2-i5 c2-b1 b5-b2 b1-c1 d9-c8 a5-d5 d7-a4 xb5-f9 xb2 d5-d6 g10-c6 d6-e7 c8-e10 e7-d7 xb4-f8"

// diagramCase is a position (reached by tokens from a new game of variant, or given as position
// text) and the options it is drawn with; last names DiagramOptions.Last by its token.
type diagramCase struct {
	name     string
	variant  Variant
	tokens   string // played from the start; ignored when text is set
	text     string // position text
	last     string // the marked action's token, "" for none
	fours    bool
	lastPlay bool // mark the last token played (overrides last)
}

var diagramCases = []diagramCase{
	{name: "empty", variant: Standard},
	{name: "empty-fours-last-pass", variant: Standard, last: "pass", fours: true},
	// last action on the board's edge points: a corner of each side, the top and bottom rows
	{name: "edge-a2", variant: Standard, tokens: "a2", lastPlay: true},
	{name: "edge-a5", variant: Standard, tokens: "a5", lastPlay: true},
	{name: "edge-k7", variant: Standard, tokens: "k7", lastPlay: true},
	{name: "edge-k10", variant: Standard, tokens: "k10", lastPlay: true},
	{name: "edge-g11", variant: Standard, tokens: "g11", lastPlay: true},
	{name: "edge-j11", variant: Standard, tokens: "j11", lastPlay: true},
	{name: "edge-b1", variant: Standard, tokens: "b1", lastPlay: true},
	{name: "edge-e1", variant: Standard, tokens: "e1", lastPlay: true},
	{name: "move-e5-e1", variant: Blitz, tokens: "e5 f6 e6 f7 e7 f8 e8 f9 e9 f10 e5-e1", lastPlay: true},
	// rows removed along each line direction: a row of text, a column, a diagonal
	{name: "row-along-row", variant: Standard, last: "xb5-f5"},
	{name: "row-along-column", variant: Standard, last: "xe2-e6"},
	{name: "row-along-diagonal-edge", variant: Standard, last: "xf7-j11"},
	{name: "midgame", variant: Standard, tokens: midgame[:strings.Index(midgame, " xb5-f9")], lastPlay: true},
	{name: "midgame-fours", variant: Standard, tokens: midgame[:strings.Index(midgame, " xb5-f9")], lastPlay: true, fours: true},
	{name: "midgame-row-removed", variant: Standard, tokens: midgame, lastPlay: true, fours: true},
	{name: "fours", variant: Standard, text: "WWWWW..........w.......w.....wwww........w......bbbbB............................BBBB w 0-0", fours: true},
	{name: "game-over-blitz", variant: Blitz, tokens: midgame[:strings.Index(midgame, " d5-d6")], lastPlay: true, fours: true},
}

// state returns the case's position and options.
func (c diagramCase) state(t *testing.T) (*State, DiagramOptions) {
	t.Helper()
	var s *State
	if c.text != "" {
		var err error
		if s, err = ParsePosition(c.text, c.variant); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	} else {
		s = NewState(c.variant)
	}
	o := DiagramOptions{Fours: c.fours}
	toks := strings.Fields(c.tokens)
	for _, tok := range toks {
		if err := s.ApplyAction(mustAct(t, tok)); err != nil {
			t.Fatalf("%s: %s: %v", c.name, tok, err)
		}
	}
	if c.last != "" {
		o.Last, o.HasLast = mustAct(t, c.last), true
	}
	if c.lastPlay {
		o.Last, o.HasLast = mustAct(t, toks[len(toks)-1]), true
	}
	return s, o
}

// TestDiagramGolden compares each case's diagram with testdata/diagram/NAME.golden (go test ./env
// -run TestDiagramGolden -update rewrites them; TestDiagramAlignment checks what the goldens cannot).
func TestDiagramGolden(t *testing.T) {
	for _, c := range diagramCases {
		s, o := c.state(t)
		got := s.Diagram(o)
		path := filepath.Join("testdata", "diagram", c.name+".golden")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./env -run TestDiagramGolden -update to create it)", err)
		}
		checkDiagram(t, c.name, got, string(want))
	}
}

// TestDiagramAlignment reads each case's diagram back as a user would and checks, for every point,
// that its glyph stands in the same text column as its column's letter, that the glyph is the
// point's content, and that marks move nothing: the glyphs and both row numbers of every line stand
// where they stand in the unmarked diagram of the same position. It does not use the layout's
// formula, so it catches a misaligned layout even when the goldens were rewritten from it.
func TestDiagramAlignment(t *testing.T) {
	for _, c := range diagramCases {
		s, o := c.state(t)
		marked := readDiagram(t, c.name, s, s.Diagram(o), o.Fours)
		plain := readDiagram(t, c.name+" (plain)", s, s.String(), false)
		for row := range marked.glyphX {
			if !slices.Equal(marked.glyphX[row], plain.glyphX[row]) || marked.numX[row] != plain.numX[row] {
				t.Errorf("%s: row %d shifted by its marks: glyphs at %v, numbers at %v; unmarked %v, %v",
					c.name, row, marked.glyphX[row], marked.numX[row], plain.glyphX[row], plain.numX[row])
			}
		}
	}
}

// readDiagram is what TestDiagramAlignment reads off one diagram: per row, the text columns of its
// points' glyphs (in column order) and of its two row numbers.
type readBoard struct {
	glyphX map[int][]int
	numX   map[int][2]int
}

func readDiagram(t *testing.T, name string, s *State, d string, fours bool) readBoard {
	t.Helper()
	lines := strings.Split(d, "\n")
	if len(lines) < GridSize+1 {
		t.Fatalf("%s: %d lines", name, len(lines))
	}
	// the letters line: each column's letter once, nothing else
	letters := lines[GridSize]
	var letterX [GridSize]int
	for col := range GridSize {
		l := string(rune('a' + col))
		if strings.Count(letters, l) != 1 {
			t.Fatalf("%s: letters line %q", name, letters)
		}
		letterX[col] = strings.Index(letters, l)
	}
	if strings.Trim(letters, " abcdefghijk") != "" {
		t.Fatalf("%s: letters line %q", name, letters)
	}
	plus := map[int]bool{}
	if fours {
		for _, f := range s.Fours() {
			plus[f.Fifth] = s.cells[f.Fifth] == empty
		}
	}
	rb := readBoard{glyphX: map[int][]int{}, numX: map[int][2]int{}}
	for i, line := range lines[:GridSize] {
		row := GridSize - i
		f := strings.Fields(line)
		num := strconv.Itoa(row)
		if len(f) < 2 || f[0] != num || f[len(f)-1] != num {
			t.Errorf("%s: row %d: line %q", name, row, line)
			continue
		}
		left := strings.Index(line, num)
		right := strings.LastIndex(line, num)
		rb.numX[row] = [2]int{left, right}
		// the glyphs between the numbers, brackets aside
		var xs []int
		for x := left + len(num); x < right; x++ {
			switch line[x] {
			case ' ', '[', ']':
			default:
				xs = append(xs, x)
			}
		}
		var cells []int
		for col := range GridSize {
			if c, ok := CellOf(col, row); ok {
				cells = append(cells, c)
			}
		}
		if len(xs) != len(cells) {
			t.Errorf("%s: row %d: %d glyphs for %d points in %q", name, row, len(xs), len(cells), line)
			continue
		}
		for k, c := range cells {
			col, _ := CellColRow(c)
			want := s.Cell(c)
			if plus[c] {
				want = '+'
			}
			if line[xs[k]] != want {
				t.Errorf("%s: %s drawn %q, holds %q", name, CellName(c), line[xs[k]], want)
			}
			if xs[k] != letterX[col] {
				t.Errorf("%s: %s at text column %d, its letter %c at %d:\n%s\n%s", name, CellName(c), xs[k], 'a'+col, letterX[col], line, letters)
			}
		}
		rb.glyphX[row] = xs
	}
	return rb
}
