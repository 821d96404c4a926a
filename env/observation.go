package env

// EncodingVersion identifies the observation layout below; checkpoints store it and refuse a mismatch.
const EncodingVersion = 1

// NumPlanes is the number of observation planes.
const NumPlanes = 15

// ObservationSize is the length of an observation: NumPlanes × 11 × 11 float32.
const ObservationSize = NumPlanes * NumCells

// Observation planes, always from the view of the side to act ("own" = side to act); each plane is an
// 11×11 grid indexed [col][row-1] (cell order), so the value of plane k at a cell is dst[k*121+cell]:
//
//	0 own rings            1 own markers        2 opponent rings      3 opponent markers
//	4 valid points (1 on the 85 board points)
//	5 phase place          6 phase move         7 phase remove-row    8 phase remove-ring
//	9 own rings removed / rings to win          10 opponent rings removed / rings to win
//	11 markers in pool / 51                     12 blitz variant
//	13 resolving rows after own move (opponent acts next)             14 previous action was a pass
//
// Planes 5..14 are constant over the board points and zero off the board.
const (
	PlaneOwnRings = iota
	PlaneOwnMarkers
	PlaneOppRings
	PlaneOppMarkers
	PlaneValid
	PlanePhasePlace
	PlanePhaseMove
	PlanePhaseRemoveRow
	PlanePhaseRemoveRing
	PlaneOwnRemoved
	PlaneOppRemoved
	PlanePool
	PlaneBlitz
	PlaneAfterMove
	PlanePassed
)

// Observation writes the planes of the state into dst (length ObservationSize).
func (s *State) Observation(dst []float32) {
	dst = dst[:ObservationSize]
	clear(dst)
	me := s.toAct
	for p := 0; p < NumPoints; p++ {
		c := int(pointCell[p])
		switch v := s.cells[c]; v {
		case whiteRing, blackRing:
			if Color(v-whiteRing) == me {
				dst[PlaneOwnRings*NumCells+c] = 1
			} else {
				dst[PlaneOppRings*NumCells+c] = 1
			}
		case whiteMarker, blackMarker:
			if Color(v-whiteMarker) == me {
				dst[PlaneOwnMarkers*NumCells+c] = 1
			} else {
				dst[PlaneOppMarkers*NumCells+c] = 1
			}
		}
	}
	t := float32(s.variant.RingsToWin())
	var constant [NumPlanes]float32
	constant[PlaneValid] = 1
	if s.phase <= PhaseRemoveRing {
		constant[PlanePhasePlace+int(s.phase)] = 1
	}
	constant[PlaneOwnRemoved] = float32(s.removed[me]) / t
	constant[PlaneOppRemoved] = float32(s.removed[me^1]) / t
	constant[PlanePool] = float32(s.MarkersInPool()) / TotalMarkers
	if s.variant == Blitz {
		constant[PlaneBlitz] = 1
	}
	if s.afterMove {
		constant[PlaneAfterMove] = 1
	}
	if s.passed {
		constant[PlanePassed] = 1
	}
	for k := PlaneValid; k < NumPlanes; k++ {
		if v := constant[k]; v != 0 {
			plane := dst[k*NumCells : (k+1)*NumCells]
			for p := 0; p < NumPoints; p++ {
				plane[pointCell[p]] = v
			}
		}
	}
}
