package env

import "fmt"

// NumSymmetries is the number of symmetries of the hexagonal board: 6 rotations about f6 and 6
// reflections. Symmetry 0 is the identity.
const NumSymmetries = 12

var (
	symCell    [NumSymmetries][NumCells]int16 // cell → image cell (-1 for cells off the board)
	symAction  [NumSymmetries][NumActions]int16
	symInverse [NumSymmetries]int
)

// In axial coordinates about f6, (x, y) = (col-5, row-6), the rotation by 60° is (x, y) → (x-y, x)
// (it cycles the six directions (1,0) → (1,1) → (0,1) → (-1,0) → …) and the reflection is (x, y) → (y, x).
// Symmetry t < 6 is the rotation applied t times; t ≥ 6 is the reflection followed by t-6 rotations.
func initSymmetries() {
	for t := 0; t < NumSymmetries; t++ {
		for c := 0; c < NumCells; c++ {
			symCell[t][c] = -1
			if !cellValid[c] {
				continue
			}
			col, row := CellColRow(c)
			x, y := col-5, row-6
			if t >= 6 {
				x, y = y, x
			}
			for k := 0; k < t%6; k++ {
				x, y = x-y, x
			}
			nc, ok := CellOf(x+5, y+6)
			if !ok {
				panic(fmt.Sprintf("env: symmetry %d maps %s off the board", t, CellName(c)))
			}
			symCell[t][c] = int16(nc)
		}
		for a := 0; a < NumActions; a++ {
			in := actions[a]
			var img Action
			var ok bool
			switch in.kind {
			case KindPlace:
				img, ok = PlaceAction(int(symCell[t][in.from])), true
			case KindRemoveRing:
				img, ok = RemoveRingAction(int(symCell[t][in.from])), true
			case KindMove:
				img, ok = MoveAction(int(symCell[t][in.from]), int(symCell[t][in.to]))
			case KindRemoveRow:
				img, ok = RowAction(int(symCell[t][in.from]), int(symCell[t][in.to]))
			case KindPass:
				img, ok = PassAction, true
			}
			if !ok {
				panic(fmt.Sprintf("env: symmetry %d has no image for action %s", t, Action(a)))
			}
			symAction[t][a] = int16(img)
		}
	}
	for t := 0; t < NumSymmetries; t++ {
		for u := 0; u < NumSymmetries; u++ {
			if symCell[u][symCell[t][pointCell[1]]] == int16(pointCell[1]) && symCell[u][symCell[t][pointCell[7]]] == int16(pointCell[7]) {
				symInverse[t] = u
			}
		}
	}
}

// TransformCell returns the image of a board cell under symmetry t (-1 for a cell off the board).
func TransformCell(t, c int) int { return int(symCell[t][c]) }

// TransformAction returns the image of an action under symmetry t.
func TransformAction(t int, a Action) Action { return Action(symAction[t][a]) }

// InverseSymmetry returns the symmetry that undoes t.
func InverseSymmetry(t int) int { return symInverse[t] }

// TransformMask writes the image of a legal mask under symmetry t: dst[T(a)] = src[a].
func TransformMask(t int, src, dst []bool) {
	for a := 0; a < NumActions; a++ {
		dst[symAction[t][a]] = src[a]
	}
}

// TransformPolicy writes the image of a per-action vector under symmetry t: dst[T(a)] = src[a].
func TransformPolicy(t int, src, dst []float32) {
	for a := 0; a < NumActions; a++ {
		dst[symAction[t][a]] = src[a]
	}
}

// TransformPlanes writes the image of observation planes ([planes][11][11], any plane count) under
// symmetry t: the value at cell c of each plane moves to cell T(c); cells off the board are zero.
func TransformPlanes(t int, src, dst []float32) {
	n := len(src) / NumCells
	clear(dst[:n*NumCells])
	for p := 0; p < NumPoints; p++ {
		c := int(pointCell[p])
		tc := int(symCell[t][c])
		for k := 0; k < n; k++ {
			dst[k*NumCells+tc] = src[k*NumCells+c]
		}
	}
}

// Transform returns the image of the state under symmetry t (the rules commute with every symmetry).
func (s *State) Transform(t int) *State {
	n := &State{
		removed: s.removed, onBoard: s.onBoard, placed: s.placed, toAct: s.toAct, phase: s.phase,
		afterMove: s.afterMove, passed: s.passed, variant: s.variant, outcome: s.outcome, ply: s.ply,
	}
	for c := 0; c < NumCells; c++ {
		v := s.cells[c]
		if v == empty {
			continue
		}
		tc := int(symCell[t][c])
		n.cells[tc] = v
		if v >= whiteMarker {
			col := Color(v - whiteMarker)
			n.markers[col] = n.markers[col].set(tc)
		}
	}
	for col := Color(0); col < 2; col++ {
		for i := 0; i < int(s.ringN[col]); i++ {
			tc := int(symCell[t][s.rings[col][i]])
			n.cells[tc] = empty
			n.putRing(col, tc)
		}
	}
	n.hash = n.computeHash()
	return n
}
