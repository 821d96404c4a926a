package env

import (
	"fmt"
	"strconv"
	"strings"
)

// Position text is one line:
//
//	<85 points> <side> <W-B> [flags]
//
// The points come in column order a2..a5, b1..b7, …, k7..k10, each '.' empty, 'W'/'B' ring, 'w'/'b'
// marker; side is 'w' or 'b' (the side to act); W-B are the rings removed by white and black. Pending
// row removals are derived from the board: a row of the side to act must be removed first. The optional
// flags field holds what the board cannot show, for states inside a turn; it is omitted when empty:
//
//	m  the side to act is resolving rows made by its own move (the opponent acts next)
//	r  the side to act must remove one of its rings (it has just removed a row)
//	p  the previous action was a pass (a second pass ends the game)
//	e  the game has ended (needed only for a game ended by two passes; other ends are derived)
//
// The marker pool holds 51 minus the markers on the board.

// MarshalText implements encoding.TextMarshaler with the position text.
func (s *State) MarshalText() ([]byte, error) { return []byte(s.Text()), nil }

// Text returns the position text of the state.
func (s *State) Text() string {
	var b strings.Builder
	b.Grow(NumPoints + 12)
	for p := 0; p < NumPoints; p++ {
		b.WriteByte(s.Cell(int(pointCell[p])))
	}
	b.WriteByte(' ')
	b.WriteByte("wb"[s.toAct])
	fmt.Fprintf(&b, " %d-%d", s.removed[White], s.removed[Black])
	flags := ""
	if s.afterMove {
		flags += "m"
	}
	if s.phase == PhaseRemoveRing {
		flags += "r"
	}
	if s.passed {
		flags += "p"
	}
	if s.phase == PhaseOver && s.derivedEnd() == Ongoing {
		flags += "e"
	}
	if flags != "" {
		b.WriteByte(' ')
		b.WriteString(flags)
	}
	return b.String()
}

// derivedEnd returns the outcome implied by the board and scores alone (Ongoing if none is).
func (s *State) derivedEnd() Outcome {
	t := uint8(s.variant.RingsToWin())
	switch {
	case s.removed[White] >= t:
		return WhiteWins
	case s.removed[Black] >= t:
		return BlackWins
	}
	return Ongoing
}

// ParsePosition parses position text for the given variant. Errors name the field and the reason.
func ParsePosition(text string, v Variant) (*State, error) {
	f := strings.Fields(text)
	if len(f) < 3 || len(f) > 4 {
		return nil, fmt.Errorf("env: position: want 3 or 4 space-separated fields (points, side, W-B[, flags]), got %d", len(f))
	}
	if len(f[0]) != NumPoints {
		return nil, fmt.Errorf("env: position: points field has %d characters, want %d", len(f[0]), NumPoints)
	}
	s := &State{variant: v}
	var ringCount [2]int
	for p := 0; p < NumPoints; p++ {
		c := int(pointCell[p])
		switch f[0][p] {
		case '.':
		case 'W', 'B':
			col := White
			if f[0][p] == 'B' {
				col = Black
			}
			if ringCount[col] == RingsPerPlayer {
				return nil, fmt.Errorf("env: position: more than %d %s rings", RingsPerPlayer, col)
			}
			s.putRing(col, c)
			ringCount[col]++
		case 'w', 'b':
			col := Color(0)
			if f[0][p] == 'b' {
				col = Black
			}
			s.cells[c] = markerOf(col)
			s.markers[col] = s.markers[col].set(c)
			s.onBoard++
		default:
			return nil, fmt.Errorf("env: position: point %d (%s) has %q, want one of . W B w b", p+1, CellName(c), f[0][p])
		}
	}
	switch f[1] {
	case "w", "W":
		s.toAct = White
	case "b", "B":
		s.toAct = Black
	default:
		return nil, fmt.Errorf("env: position: side field is %q, want w or b", f[1])
	}
	ws, bs, ok := strings.Cut(f[2], "-")
	wr, err1 := strconv.Atoi(ws)
	br, err2 := strconv.Atoi(bs)
	t := v.RingsToWin()
	if !ok || err1 != nil || err2 != nil || wr < 0 || br < 0 || wr > t || br > t {
		return nil, fmt.Errorf("env: position: rings-removed field is %q, want W-B with each 0..%d (%s)", f[2], t, v)
	}
	if wr == t && br == t {
		return nil, fmt.Errorf("env: position: both sides have removed %d rings", t)
	}
	s.removed = [2]uint8{uint8(wr), uint8(br)}
	var afterMove, ringPending, passed, ended bool
	if len(f) == 4 {
		for _, ch := range f[3] {
			switch ch {
			case 'm':
				afterMove = true
			case 'r':
				ringPending = true
			case 'p':
				passed = true
			case 'e':
				ended = true
			default:
				return nil, fmt.Errorf("env: position: unknown flag %q in %q (flags are m, r, p, e)", ch, f[3])
			}
		}
	}
	placedW := ringCount[White] + wr
	placedB := ringCount[Black] + br
	s.placed = uint8(placedW + placedB)
	hasRow := [2]bool{s.hasRow(White), s.hasRow(Black)}
	me := s.toAct
	switch {
	case s.placed < 2*RingsPerPlayer:
		if s.onBoard > 0 || wr+br > 0 || len(f) == 4 {
			return nil, fmt.Errorf("env: position: %d rings placed (placement phase) but markers, removed rings or flags are present", s.placed)
		}
		if (me == White && placedW != placedB) || (me == Black && placedW != placedB+1) {
			return nil, fmt.Errorf("env: position: %d white and %d black rings placed, so %s cannot be to place", placedW, placedB, me)
		}
		s.phase = PhasePlace
	case placedW != RingsPerPlayer || placedB != RingsPerPlayer:
		return nil, fmt.Errorf("env: position: white has %d rings on the board and %d removed, black %d and %d; each must total %d", ringCount[White], wr, ringCount[Black], br, RingsPerPlayer)
	case ended || s.derivedEnd() != Ongoing:
		if afterMove || ringPending || passed {
			return nil, fmt.Errorf("env: position: flags %q given for a finished game", f[3])
		}
		s.phase = PhaseOver
	case ringPending:
		s.phase = PhaseRemoveRing
	case hasRow[me]:
		s.phase = PhaseRemoveRow
	case afterMove:
		return nil, fmt.Errorf("env: position: flag m given but %s has no row to remove", me)
	default:
		s.phase = PhaseMove
	}
	if s.onBoard > TotalMarkers {
		return nil, fmt.Errorf("env: position: %d markers on the board, only %d exist", s.onBoard, TotalMarkers)
	}
	if s.phase != PhaseOver && s.phase != PhasePlace {
		if hasRow[me.Other()] && !afterMove {
			return nil, fmt.Errorf("env: position: %s has a row of five that must be removed before %s acts", me.Other(), me)
		}
		if passed && s.phase != PhaseMove {
			return nil, fmt.Errorf("env: position: flag p given in the %s phase", s.phase)
		}
	}
	s.afterMove = afterMove
	s.passed = passed
	switch {
	case s.phase == PhaseOver:
		if o := s.derivedEnd(); o != Ongoing {
			s.outcome = o
		} else {
			s.finishByScore()
		}
	case s.phase == PhaseMove && s.onBoard >= TotalMarkers:
		s.finishByScore() // the side to move would have to take a marker from an empty pool
	}
	s.hash = s.computeHash()
	return s, nil
}

// UnmarshalText implements encoding.TextUnmarshaler (standard variant; use ParsePosition for blitz).
func (s *State) UnmarshalText(b []byte) error {
	x, err := ParsePosition(string(b), s.variant)
	if err != nil {
		return err
	}
	*s = *x
	return nil
}
