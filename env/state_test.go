package env

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkInvariants verifies the internal consistency of a state.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	var markers [2]bits128
	var rings [2]int
	onBoard := 0
	for c := 0; c < NumCells; c++ {
		v := s.cells[c]
		if v != empty && !cellValid[c] {
			t.Fatalf("cell %d off the board holds %d", c, v)
		}
		switch v {
		case whiteRing, blackRing:
			rings[v-whiteRing]++
		case whiteMarker, blackMarker:
			markers[v-whiteMarker] = markers[v-whiteMarker].set(c)
			onBoard++
		}
	}
	if markers != s.markers {
		t.Fatalf("marker bitboards disagree with cells")
	}
	if onBoard != int(s.onBoard) || onBoard > TotalMarkers {
		t.Fatalf("markers on board %d, counter %d", onBoard, s.onBoard)
	}
	for c := 0; c < 2; c++ {
		if rings[c] != int(s.ringN[c]) {
			t.Fatalf("%s has %d rings on the board, list has %d", Color(c), rings[c], s.ringN[c])
		}
		for i := 0; i < int(s.ringN[c]); i++ {
			if s.cells[s.rings[c][i]] != ringOf(Color(c)) {
				t.Fatalf("ring list of %s names %s, which holds %q", Color(c), CellName(int(s.rings[c][i])), s.Cell(int(s.rings[c][i])))
			}
		}
		if s.phase != PhasePlace && rings[c]+int(s.removed[c]) != RingsPerPlayer {
			t.Fatalf("%s: %d rings + %d removed", Color(c), rings[c], s.removed[c])
		}
	}
	if h := s.computeHash(); h != s.hash {
		t.Fatalf("incremental hash %x, recomputed %x", s.hash, h)
	}
	if s.phase == PhaseMove && (s.hasRow(White) || s.hasRow(Black)) {
		t.Fatalf("a row is on the board in the move phase")
	}
}

// TestRandomSimulation plays seeded random games checking, at every state: counts, clone equality,
// incremental hash, position-text round trip, legal list vs mask, illegal actions rejected, and
// legal(T(s)) = T(legal(s)) for the 12 symmetries.
func TestRandomSimulation(t *testing.T) {
	games := 2000
	if testing.Short() {
		games = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	mask := make([]bool, NumActions)
	tmask := make([]bool, NumActions)
	var legal, tlegal, img []Action
	obs := make([]float32, ObservationSize)
	tobs := make([]float32, ObservationSize)
	want := make([]float32, ObservationSize)
	seen := map[Phase]int{}
	outcomes := map[Outcome]int{}
	for g := 0; g < games; g++ {
		v := Standard
		if g%4 == 3 {
			v = Blitz
		}
		s := NewState(v)
		for ply := 0; ; ply++ {
			checkInvariants(t, s)
			seen[s.phase]++
			c := s.Clone()
			if *c != *s {
				t.Fatal("clone differs")
			}
			text := s.Text()
			p, err := ParsePosition(text, v)
			if err != nil {
				t.Fatalf("game %d ply %d: %q does not parse: %v", g, ply, text, err)
			}
			p.ply = s.ply
			if *p != *s {
				t.Fatalf("game %d ply %d: round trip of %q differs:\n%+v\n%+v", g, ply, text, *p, *s)
			}
			legal = s.LegalActions(legal)
			s.LegalMask(mask)
			n := 0
			for a, ok := range mask {
				if ok {
					n++
					if !s.IsLegal(Action(a)) {
						t.Fatalf("%q: %s in mask but IsLegal says no: %v", text, Action(a), s.checkLegal(Action(a)))
					}
				}
			}
			if n != len(legal) {
				t.Fatalf("%q: mask has %d actions, list %d", text, n, len(legal))
			}
			// a sample of non-legal actions must be rejected with ErrIllegal, leaving s unchanged
			for k := 0; k < 8; k++ {
				a := Action(r.IntN(NumActions))
				if mask[a] {
					continue
				}
				before := *s
				if err := s.ApplyAction(a); !errors.Is(err, ErrIllegal) {
					t.Fatalf("%q: illegal %s accepted (err %v)", text, a, err)
				}
				if *s != before {
					t.Fatalf("rejected action changed the state")
				}
			}
			// symmetries (planes only on a sample of states: they are slower)
			if g < 400 || ply%8 == 0 {
				for sym := 0; sym < NumSymmetries; sym++ {
					ts := s.Transform(sym)
					tlegal = ts.LegalActions(tlegal)
					img = img[:0]
					for _, a := range legal {
						img = append(img, TransformAction(sym, a))
					}
					slices.Sort(img)
					if !slices.Equal(img, tlegal) {
						t.Fatalf("%q symmetry %d: legal(T(s)) != T(legal(s))", text, sym)
					}
					if g < 50 {
						ts.LegalMask(tmask)
						mm := make([]bool, NumActions)
						TransformMask(sym, mask, mm)
						if !slices.Equal(mm, tmask) {
							t.Fatalf("%q symmetry %d: mask(T(s)) != T(mask(s))", text, sym)
						}
						s.Observation(obs)
						ts.Observation(tobs)
						TransformPlanes(sym, obs, want)
						if !slices.Equal(want, tobs) {
							t.Fatalf("%q symmetry %d: planes(T(s)) != T(planes(s))", text, sym)
						}
					}
				}
			}
			if s.IsTerminal() {
				if len(legal) != 0 {
					t.Fatal("terminal state has legal actions")
				}
				outcomes[s.Outcome()]++
				break
			}
			if err := s.ApplyAction(legal[r.IntN(len(legal))]); err != nil {
				t.Fatalf("legal action rejected: %v", err)
			}
		}
	}
	for _, ph := range []Phase{PhasePlace, PhaseMove, PhaseRemoveRow, PhaseRemoveRing, PhaseOver} {
		if seen[ph] == 0 {
			t.Errorf("phase %s never reached", ph)
		}
	}
	for _, o := range []Outcome{WhiteWins, BlackWins, Draw} {
		if outcomes[o] == 0 {
			t.Errorf("outcome %s never reached", o)
		}
	}
	t.Logf("phases %v outcomes %v", seen, outcomes)
}

func TestSymmetryGroup(t *testing.T) {
	for sym := 0; sym < NumSymmetries; sym++ {
		inv := InverseSymmetry(sym)
		seen := map[int]bool{}
		for p := 0; p < NumPoints; p++ {
			c := PointCell(p)
			tc := TransformCell(sym, c)
			if tc < 0 || seen[tc] {
				t.Fatalf("symmetry %d is not a permutation of the points", sym)
			}
			seen[tc] = true
			if TransformCell(inv, tc) != c {
				t.Fatalf("inverse of %d (%d) does not undo it", sym, inv)
			}
		}
		for a := Action(0); int(a) < NumActions; a++ {
			if TransformAction(inv, TransformAction(sym, a)) != a {
				t.Fatalf("symmetry %d: action %s does not come back", sym, a)
			}
		}
	}
	// f6 is the centre: every symmetry fixes it
	f6, _ := ParseCell("f6")
	for sym := 0; sym < NumSymmetries; sym++ {
		if TransformCell(sym, f6) != f6 {
			t.Fatalf("symmetry %d moves f6", sym)
		}
	}
	// all 12 are distinct
	imgs := map[[2]int]bool{}
	a2, _ := ParseCell("a2")
	b1, _ := ParseCell("b1")
	for sym := 0; sym < NumSymmetries; sym++ {
		imgs[[2]int{TransformCell(sym, a2), TransformCell(sym, b1)}] = true
	}
	if len(imgs) != NumSymmetries {
		t.Fatalf("only %d distinct symmetries", len(imgs))
	}
}

func TestActionCodec(t *testing.T) {
	for a := Action(0); int(a) < NumActions; a++ {
		tok := a.String()
		b, err := ParseAction(tok)
		if err != nil || b != a {
			t.Fatalf("%d → %q → %d (%v)", a, tok, b, err)
		}
	}
	for tok, want := range map[string]string{"E5": "e5", " e5-E10 ": "e5-e10", "xe9-e5": "xe5-e9", "XE5": "xe5", "PASS": "pass"} {
		a, err := ParseAction(tok)
		if err != nil || a.String() != want {
			t.Errorf("%q → %q (%v), want %q", tok, a, err, want)
		}
	}
	for _, tok := range []string{"", "z5", "a1", "e0", "e11", "e5-f7", "xe5-e8", "e5-e5", "x", "e5-", "-e5", "e5e6", "passs", "xpass"} {
		if _, err := ParseAction(tok); err == nil {
			t.Errorf("%q parsed", tok)
		}
	}
	counts := map[Kind]int{}
	for a := Action(0); int(a) < NumActions; a++ {
		counts[a.Kind()]++
	}
	if counts[KindPlace] != 85 || counts[KindMove] != 1848 || counts[KindRemoveRow] != 123 || counts[KindRemoveRing] != 85 || counts[KindPass] != 1 {
		t.Fatalf("action counts %v", counts)
	}
}

func TestBoardIsConvexAlongLines(t *testing.T) {
	for c := 0; c < NumCells; c++ {
		if !cellValid[c] {
			continue
		}
		col, row := CellColRow(c)
		for d := 0; d < 6; d++ {
			n := int(rayLen[c][d])
			for k := n + 1; k < 2*GridSize; k++ {
				if _, ok := CellOf(col+k*dirs[d][0], row+k*dirs[d][1]); ok {
					t.Fatalf("line from %s in direction %v has a gap", CellName(c), dirs[d])
				}
			}
		}
	}
}
