package mcts

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// midgame returns a standard-variant state after random placement and about plies random actions,
// with the side to act in the move phase.
func midgame(tb testing.TB, seed uint64, plies int) *env.State {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var buf []env.Action
	for {
		s := env.NewState(env.Standard)
		for i := 0; i < 10+plies && !s.IsTerminal(); i++ {
			buf = s.LegalActions(buf[:0])
			if err := s.ApplyAction(buf[rng.IntN(len(buf))]); err != nil {
				tb.Fatal(err)
			}
		}
		if !s.IsTerminal() && s.Phase() == env.PhaseMove {
			return s
		}
	}
}

// position builds a state from a list of "point:piece" entries (piece one of W B w b), the side to act
// and the rings removed ("0-0"), checking it parses.
func position(tb testing.TB, v env.Variant, pieces string, side, removed string) *env.State {
	tb.Helper()
	s, err := env.ParsePosition(boardText(tb, pieces)+" "+side+" "+removed, v)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// boardText returns the points field of position text for a list of "point:piece" entries.
func boardText(tb testing.TB, pieces string) string {
	tb.Helper()
	board := []byte(strings.Repeat(".", env.NumPoints))
	for _, f := range strings.Fields(pieces) {
		name, piece, ok := strings.Cut(f, ":")
		if !ok || len(piece) != 1 {
			tb.Fatalf("bad piece %q", f)
		}
		c, err := env.ParseCell(name)
		if err != nil {
			tb.Fatal(err)
		}
		board[env.CellPoint(c)] = piece[0]
	}
	return string(board)
}

func mustAction(tb testing.TB, tok string) env.Action {
	tb.Helper()
	a, err := env.ParseAction(tok)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

func newTree(tb testing.TB, cfg Config, ev Evaluator) *Tree {
	tb.Helper()
	t, err := NewTree(cfg, ev)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6d637473)) }
