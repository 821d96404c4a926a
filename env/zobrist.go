package env

import "math/rand/v2"

// Zobrist keys. The hash covers cell contents, side to act, phase, the afterMove and passed flags,
// rings removed per colour and the variant; the marker pool is implied by the markers on the board.
var (
	zCell      [NumCells][5]uint64 // index 0 (empty) is zero
	zBlack     uint64
	zPhase     [5]uint64
	zAfterMove uint64
	zPassed    uint64
	zRemoved   [2][6]uint64
	zBlitz     uint64
)

func initZobrist() {
	r := rand.New(rand.NewPCG(0x59494e5348, 0x5a45524f)) // fixed seed: hashes are stable across runs
	for c := range zCell {
		for v := 1; v < 5; v++ {
			zCell[c][v] = r.Uint64()
		}
	}
	zBlack = r.Uint64()
	for i := range zPhase {
		zPhase[i] = r.Uint64()
	}
	zAfterMove = r.Uint64()
	zPassed = r.Uint64()
	for c := range zRemoved {
		for i := range zRemoved[c] {
			zRemoved[c][i] = r.Uint64()
		}
	}
	zBlitz = r.Uint64()
}

// computeHash recomputes the hash from scratch (the incremental one must always equal it).
func (s *State) computeHash() uint64 {
	var h uint64
	for c := 0; c < NumCells; c++ {
		h ^= zCell[c][s.cells[c]]
	}
	if s.toAct == Black {
		h ^= zBlack
	}
	h ^= zPhase[s.phase]
	if s.afterMove {
		h ^= zAfterMove
	}
	if s.passed {
		h ^= zPassed
	}
	h ^= zRemoved[White][s.removed[White]] ^ zRemoved[Black][s.removed[Black]]
	if s.variant == Blitz {
		h ^= zBlitz
	}
	return h
}
