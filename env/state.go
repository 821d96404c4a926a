package env

import (
	"errors"
	"fmt"
)

// Color is a player colour. White places and moves first.
type Color uint8

const (
	White Color = 0
	Black Color = 1
)

// Other returns the opponent colour.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == White {
		return "white"
	}
	return "black"
}

// Phase is the step of a turn the side to act is in (a turn is a sequence of actions by one player:
// a move, then row and ring removals; OpenSpiel-style multi-step turns).
type Phase uint8

const (
	PhasePlace      Phase = iota // placing rings
	PhaseMove                    // putting a marker and moving a ring (or passing)
	PhaseRemoveRow               // removing one of one's rows of five
	PhaseRemoveRing              // removing one of one's rings after a row
	PhaseOver                    // the game has ended
)

var phaseNames = [...]string{"place", "move", "remove-row", "remove-ring", "over"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// Variant selects the winning condition: standard (three rings removed) or blitz (one).
type Variant uint8

const (
	Standard Variant = iota
	Blitz
)

func (v Variant) String() string {
	if v == Blitz {
		return "blitz"
	}
	return "standard"
}

// ParseVariant parses "standard" or "blitz".
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "standard", "":
		return Standard, nil
	case "blitz":
		return Blitz, nil
	}
	return 0, fmt.Errorf("env: unknown variant %q (want standard or blitz)", s)
}

// RingsToWin is the number of removed rings that wins the game.
func (v Variant) RingsToWin() int {
	if v == Blitz {
		return 1
	}
	return 3
}

// Outcome is the result of a game.
type Outcome int8

const (
	Ongoing Outcome = iota
	WhiteWins
	BlackWins
	Draw
)

var outcomeNames = [...]string{"ongoing", "white", "black", "draw"}

func (o Outcome) String() string { return outcomeNames[o] }

// Game constants.
const (
	RingsPerPlayer = 5
	TotalMarkers   = 51
)

// cell contents
const (
	empty       = 0
	whiteRing   = 1
	blackRing   = 2
	whiteMarker = 3
	blackMarker = 4
)

func ringOf(c Color) uint8   { return whiteRing + uint8(c) }
func markerOf(c Color) uint8 { return whiteMarker + uint8(c) }

// ErrIllegal is wrapped by every error ApplyAction returns for an action that is not legal.
var ErrIllegal = errors.New("illegal action")

// State is a YINSH game state. The zero value is not valid; use NewState. States are plain values:
// assignment (or Clone) copies them, and copies are independent.
type State struct {
	cells   [NumCells]uint8
	markers [2]bits128  // marker cells per colour
	rings   [2][5]uint8 // ring cells per colour, the first ringN[c] entries are valid
	ringN   [2]uint8
	removed [2]uint8 // rings removed per colour
	onBoard uint8    // markers on the board (the pool holds TotalMarkers - onBoard)
	placed  uint8    // rings placed so far (10 ends the placement phase)
	toAct   Color
	phase   Phase
	// afterMove: the side to act is resolving rows made by its own move, so the opponent acts next.
	afterMove bool
	// passed: the previous action was a pass (a second one ends the game).
	passed  bool
	variant Variant
	outcome Outcome
	hash    uint64
	ply     int32
}

// NewState returns the empty board with white to place.
func NewState(v Variant) *State {
	s := &State{variant: v}
	s.hash = s.computeHash()
	return s
}

// Clone returns an independent copy.
func (s *State) Clone() *State {
	c := *s
	return &c
}

// CurrentPlayer returns the colour of the side to act.
func (s *State) CurrentPlayer() Color { return s.toAct }

// Phase returns the turn phase of the side to act (PhaseOver at the end).
func (s *State) Phase() Phase { return s.phase }

// Variant returns the game variant.
func (s *State) Variant() Variant { return s.variant }

// IsTerminal reports whether the game has ended.
func (s *State) IsTerminal() bool { return s.phase == PhaseOver }

// Outcome returns the result (Ongoing until the game ends).
func (s *State) Outcome() Outcome { return s.outcome }

// Returns gives the final score from each colour's view (+1 win, 0 draw, -1 loss; zero while ongoing).
func (s *State) Returns() [2]float64 {
	switch s.outcome {
	case WhiteWins:
		return [2]float64{1, -1}
	case BlackWins:
		return [2]float64{-1, 1}
	}
	return [2]float64{}
}

// RingsRemoved returns how many rings a colour has removed (its score).
func (s *State) RingsRemoved(c Color) int { return int(s.removed[c]) }

// MarkersInPool returns the number of markers left in the pool.
func (s *State) MarkersInPool() int { return TotalMarkers - int(s.onBoard) }

// Ply returns the number of actions applied since the state was created or parsed.
func (s *State) Ply() int { return int(s.ply) }

// Hash returns the Zobrist hash of the state (board, side to act, phase, flags, scores, variant).
func (s *State) Hash() uint64 { return s.hash }

// Cell returns the content of a cell as a position-text character: '.', 'W', 'B', 'w' or 'b'.
func (s *State) Cell(c int) byte { return ".WBwb"[s.cells[c]] }

// Rings returns the cells of a colour's rings on the board, appended to dst.
func (s *State) Rings(c Color, dst []int) []int {
	for i := 0; i < int(s.ringN[c]); i++ {
		dst = append(dst, int(s.rings[c][i]))
	}
	return dst
}

// Passed reports whether the previous action was a pass.
func (s *State) Passed() bool { return s.passed }

// AfterMove reports whether the side to act is resolving rows made by its own move.
func (s *State) AfterMove() bool { return s.afterMove }

// hasRow reports whether colour c has a row of five markers on the board.
func (s *State) hasRow(c Color) bool { return s.markers[c].hasFive() }

// LegalActions appends the legal actions to dst and returns it; it allocates only if dst lacks capacity.
// Actions come in increasing id order. A terminal state has none.
func (s *State) LegalActions(dst []Action) []Action {
	dst = dst[:0]
	me := s.toAct
	switch s.phase {
	case PhasePlace:
		for p := 0; p < NumPoints; p++ {
			if s.cells[pointCell[p]] == empty {
				dst = append(dst, Action(p))
			}
		}
	case PhaseMove:
		start := len(dst)
		for i := 0; i < int(s.ringN[me]); i++ {
			dst = s.appendRingMoves(dst, int(s.rings[me][i]))
		}
		if len(dst) == start {
			return append(dst, PassAction)
		}
		sortActions(dst[start:])
	case PhaseRemoveRow:
		m := s.markers[me]
		for i := range windows {
			if m.and(windows[i]) == windows[i] {
				dst = append(dst, Action(FirstRowAction+i))
			}
		}
	case PhaseRemoveRing:
		for p := 0; p < NumPoints; p++ {
			if s.cells[pointCell[p]] == ringOf(me) {
				dst = append(dst, Action(FirstRemoveAction+p))
			}
		}
	}
	return dst
}

// appendRingMoves appends the legal moves of the ring on cell c.
func (s *State) appendRingMoves(dst []Action, c int) []Action {
	for d := 0; d < 6; d++ {
		ray := &rays[c][d]
		n := int(rayLen[c][d])
		jumped := false
		for k := 0; k < n; k++ {
			v := s.cells[ray[k]]
			if v == empty {
				dst = append(dst, Action(moveAction[c][d][k]))
				if jumped {
					break
				}
				continue
			}
			if v <= blackRing {
				break
			}
			jumped = true
		}
	}
	return dst
}

// sortActions sorts a short slice in place (insertion sort: no allocation, lists are small).
func sortActions(a []Action) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}

// LegalMask sets mask[a] for every legal action and clears the rest; mask must have NumActions entries.
func (s *State) LegalMask(mask []bool) {
	var buf [256]Action
	clear(mask[:NumActions])
	for _, a := range s.LegalActions(buf[:0]) {
		mask[a] = true
	}
}

// IsLegal reports whether a is legal in s.
func (s *State) IsLegal(a Action) bool { return s.checkLegal(a) == nil }

// checkLegal returns nil if a is legal, or an error wrapping ErrIllegal saying why not.
func (s *State) checkLegal(a Action) error {
	if !a.Valid() {
		return fmt.Errorf("%w: action id %d out of range", ErrIllegal, int(a))
	}
	if s.phase == PhaseOver {
		return fmt.Errorf("%w: the game is over", ErrIllegal)
	}
	in := &actions[a]
	me := s.toAct
	want := phaseKind[s.phase]
	if in.kind == KindPass {
		if s.phase == PhaseMove && !s.hasAnyMove() {
			return nil
		}
		if s.phase == PhaseMove {
			return fmt.Errorf("%w: cannot pass while a ring can move", ErrIllegal)
		}
		return fmt.Errorf("%w: cannot pass in the %s phase", ErrIllegal, s.phase)
	}
	if in.kind != want {
		return fmt.Errorf("%w: %s is a %s action but %s must %s", ErrIllegal, a, kindNames[in.kind], me, phaseVerb[s.phase])
	}
	switch in.kind {
	case KindPlace:
		if s.cells[in.from] != empty {
			return fmt.Errorf("%w: %s is occupied", ErrIllegal, CellName(int(in.from)))
		}
	case KindMove:
		if s.cells[in.from] != ringOf(me) {
			return fmt.Errorf("%w: no %s ring on %s", ErrIllegal, me, CellName(int(in.from)))
		}
		c := int(in.from)
		jumped := false
		for k := 1; k < int(in.dist); k++ {
			c += cellStep[in.dir]
			v := s.cells[c]
			switch {
			case v == whiteRing || v == blackRing:
				return fmt.Errorf("%w: the ring would pass over the ring on %s", ErrIllegal, CellName(c))
			case v == empty && jumped:
				return fmt.Errorf("%w: the ring must stop on %s, the first empty point after the markers", ErrIllegal, CellName(c))
			case v != empty:
				jumped = true
			}
		}
		if s.cells[in.to] != empty {
			return fmt.Errorf("%w: %s is occupied", ErrIllegal, CellName(int(in.to)))
		}
	case KindRemoveRow:
		w := windows[int(a)-FirstRowAction]
		if s.markers[me].and(w) != w {
			return fmt.Errorf("%w: %s is not a row of five %s markers", ErrIllegal, a, me)
		}
	case KindRemoveRing:
		if s.cells[in.from] != ringOf(me) {
			return fmt.Errorf("%w: no %s ring on %s", ErrIllegal, me, CellName(int(in.from)))
		}
	}
	return nil
}

var phaseKind = [...]Kind{KindPlace, KindMove, KindRemoveRow, KindRemoveRing, KindPass}
var kindNames = [...]string{"placement", "ring move", "row removal", "ring removal", "pass"}
var phaseVerb = [...]string{"place a ring", "move a ring", "remove a row", "remove a ring", "stop"}

// Verb says what the side to act does in phase p ("place a ring", "move a ring", "remove a row",
// "remove a ring"; "stop" when the game is over), as errors and the board's status line say it.
func (p Phase) Verb() string { return phaseVerb[p] }

// hasAnyMove reports whether the side to act has a legal ring move.
func (s *State) hasAnyMove() bool {
	var buf [64]Action
	me := s.toAct
	for i := 0; i < int(s.ringN[me]); i++ {
		if len(s.appendRingMoves(buf[:0], int(s.rings[me][i]))) > 0 {
			return true
		}
	}
	return false
}

// ApplyAction plays a for the side to act. An illegal action returns an error wrapping ErrIllegal and
// leaves the state unchanged.
func (s *State) ApplyAction(a Action) error {
	if err := s.checkLegal(a); err != nil {
		return err
	}
	s.apply(a)
	return nil
}

// apply plays a legal action.
func (s *State) apply(a Action) {
	in := &actions[a]
	me := s.toAct
	s.ply++
	if s.passed && in.kind != KindPass {
		s.setPassed(false)
	}
	switch in.kind {
	case KindPlace:
		s.putRing(me, int(in.from))
		s.placed++
		if s.placed == 2*RingsPerPlayer {
			s.setPhase(PhaseMove)
		}
		s.setToAct(me.Other())
	case KindMove:
		from, to := int(in.from), int(in.to)
		s.takeRing(me, from)
		s.setCell(from, markerOf(me))
		s.markers[me] = s.markers[me].set(from)
		s.onBoard++
		step := cellStep[in.dir]
		for c := from + step; c != to; c += step {
			s.flip(c)
		}
		s.putRing(me, to)
		s.afterOwnMove(me)
	case KindRemoveRow:
		for _, c := range windowCells[int(a)-FirstRowAction] {
			s.setCell(int(c), empty)
		}
		s.markers[me] = s.markers[me].and(bits128{^windows[int(a)-FirstRowAction].lo, ^windows[int(a)-FirstRowAction].hi})
		s.onBoard -= 5
		s.setPhase(PhaseRemoveRing)
	case KindRemoveRing:
		s.takeRing(me, int(in.from))
		s.hash ^= zRemoved[me][s.removed[me]]
		s.removed[me]++
		s.hash ^= zRemoved[me][s.removed[me]]
		switch {
		case int(s.removed[me]) >= s.variant.RingsToWin():
			s.finish(winnerOutcome(me))
		case s.hasRow(me):
			s.setPhase(PhaseRemoveRow)
		case s.afterMove:
			s.afterOwnMove(me) // me has no rows left: the opponent resolves its rows or moves
		default:
			s.startMove(me)
		}
	case KindPass:
		if s.passed {
			s.finishByScore()
			return
		}
		s.setPassed(true)
		s.startMove(me.Other())
	}
}

// afterOwnMove hands the turn on after mover's move, or after mover resolved all its rows.
func (s *State) afterOwnMove(mover Color) {
	switch {
	case s.hasRow(mover):
		s.setToAct(mover)
		s.setAfterMove(true)
		s.setPhase(PhaseRemoveRow)
	case s.hasRow(mover.Other()):
		s.setToAct(mover.Other())
		s.setAfterMove(false)
		s.setPhase(PhaseRemoveRow)
	default:
		s.startMove(mover.Other())
	}
}

// startMove gives colour c its move, ending the game if the marker pool is empty.
func (s *State) startMove(c Color) {
	s.setToAct(c)
	s.setAfterMove(false)
	if s.onBoard >= TotalMarkers {
		s.finishByScore()
		return
	}
	s.setPhase(PhaseMove)
}

func winnerOutcome(c Color) Outcome {
	if c == White {
		return WhiteWins
	}
	return BlackWins
}

// finishByScore ends the game on marker exhaustion or a double pass: more rings removed wins.
func (s *State) finishByScore() {
	switch {
	case s.removed[White] > s.removed[Black]:
		s.finish(WhiteWins)
	case s.removed[Black] > s.removed[White]:
		s.finish(BlackWins)
	default:
		s.finish(Draw)
	}
}

func (s *State) finish(o Outcome) {
	s.outcome = o
	s.setAfterMove(false)
	s.setPassed(false)
	s.setPhase(PhaseOver)
}

// flip turns the marker on cell c to the other colour.
func (s *State) flip(c int) {
	v := s.cells[c]
	if v < whiteMarker {
		return
	}
	col := Color(v - whiteMarker)
	s.markers[col] = s.markers[col].clear(c)
	s.markers[col^1] = s.markers[col^1].set(c)
	s.setCell(c, markerOf(col^1))
}

// putRing puts a ring of colour c on cell; the ring list stays sorted so equal positions are equal
// values.
func (s *State) putRing(c Color, cell int) {
	s.setCell(cell, ringOf(c))
	i := int(s.ringN[c])
	for ; i > 0 && int(s.rings[c][i-1]) > cell; i-- {
		s.rings[c][i] = s.rings[c][i-1]
	}
	s.rings[c][i] = uint8(cell)
	s.ringN[c]++
}

func (s *State) takeRing(c Color, cell int) {
	s.setCell(cell, empty)
	n := int(s.ringN[c])
	i := 0
	for i < n && int(s.rings[c][i]) != cell {
		i++
	}
	for ; i < n-1; i++ {
		s.rings[c][i] = s.rings[c][i+1]
	}
	s.rings[c][n-1] = 0
	s.ringN[c]--
}

func (s *State) setCell(c int, v uint8) {
	s.hash ^= zCell[c][s.cells[c]] ^ zCell[c][v]
	s.cells[c] = v
}

func (s *State) setToAct(c Color) {
	if s.toAct != c {
		s.hash ^= zBlack
		s.toAct = c
	}
}

func (s *State) setPhase(p Phase) {
	s.hash ^= zPhase[s.phase] ^ zPhase[p]
	s.phase = p
}

func (s *State) setAfterMove(b bool) {
	if s.afterMove != b {
		s.hash ^= zAfterMove
		s.afterMove = b
	}
}

func (s *State) setPassed(b bool) {
	if s.passed != b {
		s.hash ^= zPassed
		s.passed = b
	}
}
