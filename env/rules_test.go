package env

import (
	"slices"
	"strings"
	"testing"
)

// spec builds position text from piece lists, e.g. spec(t, "W:e2 a2 B:k7 w:e3 b:e4", "w 0-0").
func spec(t *testing.T, pieces, rest string) string {
	t.Helper()
	board := []byte(strings.Repeat(".", NumPoints))
	ch := byte(0)
	for _, f := range strings.Fields(pieces) {
		if len(f) > 2 && f[1] == ':' {
			ch = f[0]
			f = f[2:]
		}
		c, err := ParseCell(f)
		if err != nil {
			t.Fatal(err)
		}
		if board[cellPoint[c]] != '.' {
			t.Fatalf("spec puts two pieces on %s", f)
		}
		board[cellPoint[c]] = ch
	}
	return string(board) + " " + rest
}

func mustParse(t *testing.T, text string, v Variant) *State {
	t.Helper()
	s, err := ParsePosition(text, v)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return s
}

func tokens(as []Action) string {
	var b []string
	for _, a := range as {
		b = append(b, a.String())
	}
	return strings.Join(b, " ")
}

func play(t *testing.T, s *State, toks ...string) {
	t.Helper()
	for _, tok := range toks {
		a, err := ParseAction(tok)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatalf("%s: %v\n%s", tok, err, s)
		}
	}
}

func wantLegal(t *testing.T, s *State, want string) {
	t.Helper()
	if got := tokens(s.LegalActions(nil)); got != want {
		t.Fatalf("legal actions %q, want %q\n%s", got, want, s)
	}
}

func wantTurn(t *testing.T, s *State, c Color, p Phase) {
	t.Helper()
	if s.CurrentPlayer() != c || s.Phase() != p {
		t.Fatalf("%s to act in phase %s, want %s in %s\n%s", s.CurrentPlayer(), s.Phase(), c, p, s)
	}
}

const spareW, spareB = "a2 a3 a4 a5", "k7 k8 k9 k10"

func TestPlacementThenMove(t *testing.T) {
	s := NewState(Standard)
	wantTurn(t, s, White, PhasePlace)
	if n := len(s.LegalActions(nil)); n != 85 {
		t.Fatalf("%d placements", n)
	}
	play(t, s, "e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "e9")
	wantTurn(t, s, Black, PhasePlace)
	if err := s.ApplyAction(PlaceAction(mustCell(t, "e5"))); err == nil {
		t.Fatal("placed on an occupied point")
	}
	play(t, s, "f10")
	wantTurn(t, s, White, PhaseMove)
	if s.MarkersInPool() != 51 {
		t.Fatal("pool")
	}
}

func mustCell(t *testing.T, s string) int {
	c, err := ParseCell(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestMoveJumpsAndFlips(t *testing.T) {
	s := mustParse(t, spec(t, "W:e2 "+spareW+" B:j11 "+spareB+" b:e3 e4", "w 0-0"), Standard)
	// from e2: down to e1; up over e3 e4 to e5 only; row 2 right f2, g2; left d2, c2, b2 (a2 is a ring);
	// diagonal f3 … (up-right), d1 (down-left)
	var from []string
	for _, a := range s.LegalActions(nil) {
		if f, _ := a.Cells(); CellName(f) == "e2" {
			from = append(from, a.String())
		}
	}
	slices.Sort(from)
	// k8 is a black ring: the diagonal stops before it at j7; a2 is a white ring: the row stops at b2
	if got := strings.Join(from, " "); got != "e2-b2 e2-c2 e2-d1 e2-d2 e2-e1 e2-e5 e2-f2 e2-f3 e2-g2 e2-g4 e2-h5 e2-i6 e2-j7" {
		t.Fatalf("moves from e2: %s", got)
	}
	for _, bad := range []string{"e2-e3", "e2-e4", "e2-e6", "e2-k8"} {
		a, _ := ParseAction(bad)
		if s.IsLegal(a) {
			t.Errorf("%s is legal", bad)
		}
	}
	play(t, s, "e2-e5")
	for cell, want := range map[string]byte{"e2": 'w', "e3": 'w', "e4": 'w', "e5": 'W'} {
		if got := s.Cell(mustCell(t, cell)); got != want {
			t.Errorf("%s holds %q, want %q", cell, got, want)
		}
	}
	if s.MarkersInPool() != 48 {
		t.Errorf("pool %d, want 48", s.MarkersInPool())
	}
	wantTurn(t, s, Black, PhaseMove)
}

func TestRingsBlockMoves(t *testing.T) {
	// e2 up: e3 empty, e4 black ring: only e3. Row 2: b2 marker c2 marker d2 empty: lands on d2, not b2's
	// far side; a jump may not continue past the first empty point.
	s := mustParse(t, spec(t, "W:e2 a2 a3 a4 a5 B:e4 k7 k8 k9 k10 w:d2 c2", "w 0-0"), Standard)
	legalFromE2 := map[string]bool{}
	for _, a := range s.LegalActions(nil) {
		if f, _ := a.Cells(); CellName(f) == "e2" {
			legalFromE2[a.String()] = true
		}
	}
	if !legalFromE2["e2-e3"] || legalFromE2["e2-e5"] || legalFromE2["e2-e6"] {
		t.Errorf("up from e2: %v", legalFromE2)
	}
	if !legalFromE2["e2-b2"] || legalFromE2["e2-c2"] || legalFromE2["e2-d2"] {
		t.Errorf("left from e2 over d2 c2 must land on b2 only: %v", legalFromE2)
	}
}

func TestOverline(t *testing.T) {
	s := mustParse(t, spec(t, "W:e5 "+spareW+" B:j11 "+spareB+" w:e3 e4 e6 e7 e8", "w 0-0"), Standard)
	play(t, s, "e5-f5")
	wantTurn(t, s, White, PhaseRemoveRow)
	wantLegal(t, s, "xe3-e7 xe4-e8")
	play(t, s, "xe8-e4")
	wantTurn(t, s, White, PhaseRemoveRing)
	wantLegal(t, s, "xa2 xa3 xa4 xa5 xf5")
	play(t, s, "xf5")
	wantTurn(t, s, Black, PhaseMove)
	if s.Cell(mustCell(t, "e3")) != 'w' || s.RingsRemoved(White) != 1 || s.MarkersInPool() != 51-1 {
		t.Fatalf("after overline removal:\n%s", s)
	}
}

func TestTwoSeparateRows(t *testing.T) {
	// c5 jumps d5 e5 (black) to f5: d1-d5 and e5-e9 become white rows.
	s := mustParse(t, spec(t, "W:c5 "+spareW+" B:j11 "+spareB+" w:d1 d2 d3 d4 e6 e7 e8 e9 b:d5 e5", "w 0-0"), Standard)
	play(t, s, "c5-f5")
	wantLegal(t, s, "xd1-d5 xe5-e9")
	play(t, s, "xd1-d5", "xa2")
	wantTurn(t, s, White, PhaseRemoveRow)
	wantLegal(t, s, "xe5-e9")
	play(t, s, "xe5-e9", "xa3")
	wantTurn(t, s, Black, PhaseMove)
	if s.RingsRemoved(White) != 2 {
		t.Fatal("two rings removed expected")
	}
}

func TestIntersectingRows(t *testing.T) {
	s := mustParse(t, spec(t, "W:e5 "+spareW+" B:j11 "+spareB+" w:e3 e4 e6 e7 c5 d5 f5 g5", "w 0-0"), Standard)
	play(t, s, "e5-f6")
	wantLegal(t, s, "xc5-g5 xe3-e7")
	play(t, s, "xe3-e7", "xf6")
	// the row c5-g5 lost e5 with the first removal: the turn passes to black
	wantTurn(t, s, Black, PhaseMove)
}

func TestRowMadeForOpponent(t *testing.T) {
	// d4 jumps the white marker e5 to f6: e5 turns black and completes e3-e7 for black.
	s := mustParse(t, spec(t, "W:d4 "+spareW+" B:j11 "+spareB+" w:e5 b:e3 e4 e6 e7", "w 0-0"), Standard)
	play(t, s, "d4-f6")
	wantTurn(t, s, Black, PhaseRemoveRow)
	if s.AfterMove() {
		t.Fatal("black resolves before its own move, not after")
	}
	wantLegal(t, s, "xe3-e7")
	play(t, s, "xe3-e7", "xk7")
	wantTurn(t, s, Black, PhaseMove)
}

func TestRowsForBothSides(t *testing.T) {
	pieces := "W:d4 a2 a3 a4 a5 B:j11 k7 k8 k9 k10 w:d1 d2 d3 d5 e5 b:e3 e4 e6 e7"
	s := mustParse(t, spec(t, pieces, "w 0-0"), Standard)
	play(t, s, "d4-f6")
	wantTurn(t, s, White, PhaseRemoveRow)
	if !s.AfterMove() {
		t.Fatal("white resolves after its own move")
	}
	wantLegal(t, s, "xd1-d5")
	play(t, s, "xd1-d5", "xa2")
	wantTurn(t, s, Black, PhaseRemoveRow)
	play(t, s, "xe3-e7", "xk7")
	wantTurn(t, s, Black, PhaseMove)
	if s.RingsRemoved(White) != 1 || s.RingsRemoved(Black) != 1 {
		t.Fatal("one ring each")
	}
}

func TestMoversThirdRowWinsFirst(t *testing.T) {
	pieces := "W:d4 a2 a3 B:j11 k7 k8 w:d1 d2 d3 d5 e5 b:e3 e4 e6 e7"
	s := mustParse(t, spec(t, pieces, "w 2-2"), Standard)
	play(t, s, "d4-f6", "xd1-d5", "xa2")
	if !s.IsTerminal() || s.Outcome() != WhiteWins {
		t.Fatalf("want white to win:\n%s", s)
	}
	wantLegal(t, s, "")
}

func TestBlitzFirstRingWins(t *testing.T) {
	s := mustParse(t, spec(t, "W:e5 "+spareW+" B:j11 "+spareB+" w:e3 e4 e6 e7", "w 0-0"), Blitz)
	play(t, s, "e5-f5", "xe3-e7", "xf5")
	if s.Outcome() != WhiteWins {
		t.Fatalf("blitz: first ring removal wins:\n%s", s)
	}
}

// markerFill returns piece-spec text placing n markers on the points not in skip, coloured so that no
// five of one colour stand in a row: colour by (col + 2·row) mod 4 < 2, which alternates in runs of at
// most two along every axis.
func markerFill(skip map[string]bool, n int) string {
	var w, b []string
	for p := 0; p < NumPoints && len(w)+len(b) < n; p++ {
		c := int(pointCell[p])
		name := CellName(c)
		if skip[name] {
			continue
		}
		col, row := CellColRow(c)
		if (col+2*row)%4 < 2 {
			w = append(w, name)
		} else {
			b = append(b, name)
		}
	}
	return " w:" + strings.Join(w, " ") + " b:" + strings.Join(b, " ")
}

func setOf(names string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(names) {
		m[f] = true
	}
	return m
}

func TestMarkerExhaustionEndsGame(t *testing.T) {
	rings := "f6 g7 h8 i9 e4 d3 c2 b1 e10"
	skip := setOf(rings + " f7 g8 h9 i10 e5 d4 c3 e9 j9 f5")
	pieces := "W:f6 g7 h8 i9 B:e4 d3 c2 b1 e10" + markerFill(skip, 50)
	s := mustParse(t, spec(t, pieces, "w 1-0"), Standard)
	wantTurn(t, s, White, PhaseMove)
	if s.MarkersInPool() != 1 {
		t.Fatalf("pool %d", s.MarkersInPool())
	}
	ended := 0
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		play(t, c, a.String())
		if c.Phase() == PhaseRemoveRow {
			continue // the last marker made a row: play goes on (tested below)
		}
		if !c.IsTerminal() || c.Outcome() != WhiteWins {
			t.Fatalf("after %s with an empty pool: %s, want white to win on rings\n%s", a, c.Outcome(), c)
		}
		ended++
	}
	if ended == 0 {
		t.Fatal("no move tested")
	}
}

func TestLastMarkerCompletesRow(t *testing.T) {
	rings := "e5 a2 a3 a4 a5 j11 k7 k8 k9 k10"
	row := "e3 e4 e6 e7"
	skip := setOf(rings + " " + row + " f5 e2 e8 d4 f6 d5 e9")
	pieces := "W:e5 a2 a3 a4 a5 B:j11 k7 k8 k9 k10 w:" + row + markerFill(skip, 46)
	s := mustParse(t, spec(t, pieces, "w 0-0"), Standard)
	if s.MarkersInPool() != 1 {
		t.Fatalf("pool %d", s.MarkersInPool())
	}
	wantTurn(t, s, White, PhaseMove)
	play(t, s, "e5-f5")
	if s.MarkersInPool() != 0 {
		t.Fatal("the move takes the last marker")
	}
	wantTurn(t, s, White, PhaseRemoveRow)
	play(t, s, "xe3-e7", "xf5")
	wantTurn(t, s, Black, PhaseMove)
	if s.MarkersInPool() != 5 {
		t.Fatalf("pool %d after the row came back", s.MarkersInPool())
	}
}

// blockedPosition surrounds six rings in the a/b/c corner (the set needing fewest markers, 45) with markers so that no ring can move: every
// point on every line from a ring up to the next ring or the edge holds a marker.
func blockedPosition(t *testing.T, side, flags string) *State {
	w, b := []string{"a2", "b3", "c2"}, []string{"b1", "b2", "c3"}
	ringAt := map[int]bool{}
	for _, n := range append(append([]string{}, w...), b...) {
		ringAt[mustCell(t, n)] = true
	}
	need := map[string]bool{}
	for c := range ringAt {
		for d := 0; d < 6; d++ {
			for k := 0; k < int(rayLen[c][d]); k++ {
				nc := int(rays[c][d][k])
				if ringAt[nc] {
					break
				}
				need[CellName(nc)] = true
			}
		}
	}
	// markerFill colours the needed points (it fills in point order, so mark everything else skipped)
	skip := map[string]bool{}
	for p := 0; p < NumPoints; p++ {
		if n := CellName(int(pointCell[p])); !need[n] {
			skip[n] = true
		}
	}
	if len(need) > 50 {
		t.Fatalf("%d markers needed", len(need))
	}
	pieces := "W:" + strings.Join(w, " ") + " B:" + strings.Join(b, " ") + markerFill(skip, len(need))
	return mustParse(t, spec(t, pieces, side+" 2-2"+flags), Standard)
}

func TestPassAndDoublePass(t *testing.T) {
	s := blockedPosition(t, "w", "")
	wantLegal(t, s, "pass")
	if s.IsLegal(PlaceAction(mustCell(t, "f6"))) {
		t.Fatal("placement legal in the move phase")
	}
	play(t, s, "pass")
	wantTurn(t, s, Black, PhaseMove)
	if !s.Passed() || !strings.HasSuffix(s.Text(), " p") {
		t.Fatalf("pass flag missing: %q", s.Text())
	}
	wantLegal(t, s, "pass")
	play(t, s, "pass")
	if !s.IsTerminal() || s.Outcome() != Draw {
		t.Fatalf("two passes must end the game in a draw at 2-2:\n%s", s)
	}
	if !strings.HasSuffix(s.Text(), " e") {
		t.Fatalf("ended-game flag missing: %q", s.Text())
	}
	// a pass is illegal while a ring can move
	s2 := NewState(Standard)
	play(t, s2, "e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "e9", "f10")
	if s2.IsLegal(PassAction) {
		t.Fatal("pass legal with moves available")
	}
}

func TestPositionTextErrors(t *testing.T) {
	good := spec(t, "W:e5 "+spareW+" B:j11 "+spareB, "w 0-0")
	if _, err := ParsePosition(good, Standard); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"":                                 "fields",
		good[:84] + " w 0-0":               "characters",
		strings.Replace(good, ".", "x", 1): "want one of",
		good[:85] + " q 0-0":               "side",
		good[:85] + " w 0-4":               "rings-removed",
		good[:85] + " w 0":                 "rings-removed",
		good[:85] + " w 0-0 z":             "unknown flag",
		good[:85] + " w 1-0":               "must total",
		spec(t, "W:e5 f5", "w 0-0"):        "cannot be to place",
		spec(t, "W:e5 "+spareW+" B:j11 "+spareB+" b:e6 e7 e8 e9 e10", "w 0-0"): "must be removed before",
		good[:85] + " w 0-0 m":   "flag m",
		good[:85] + " w 0-0 p r": "fields",
	}
	for text, want := range cases {
		_, err := ParsePosition(text, Standard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to mention %q", text, err, want)
		}
	}
}
