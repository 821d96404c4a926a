package selfplay

import (
	"math/rand/v2"

	"github.com/yinsh-zero/yinsh/env"
)

// Random plays uniformly random legal actions.
type Random struct {
	rng *rand.Rand
	buf []env.Action
}

// NewRandom returns a random player seeded with seed.
func NewRandom(seed uint64) *Random {
	return &Random{rng: rand.New(rand.NewPCG(seed, 0x52414e44))}
}

func (p *Random) Name() string { return "random" }
func (p *Random) NewGame()     {}

// Decide implements Player.
func (p *Random) Decide(s *env.State) (Decision, error) {
	p.buf = s.LegalActions(p.buf)
	return Decision{Action: p.buf[p.rng.IntN(len(p.buf))]}, nil
}

// Heuristic is a greedy rule-based player. It plays each legal action (completing its own turn's row and
// ring choices greedily), scores the result — rings removed, then rows the opponent could complete on its
// next move, then row potential (own markers in open 5-windows minus the opponent's) — and takes the best,
// breaking ties at random. So it completes its rows, blocks the opponent's, and builds towards rows.
type Heuristic struct {
	rng *rand.Rand
	buf [4][]env.Action
}

// NewHeuristic returns a heuristic player seeded with seed.
func NewHeuristic(seed uint64) *Heuristic {
	return &Heuristic{rng: rand.New(rand.NewPCG(seed, 0x48455552))}
}

func (p *Heuristic) Name() string { return "heuristic" }
func (p *Heuristic) NewGame()     {}

const (
	scoreRing   = 10000 // per ring removed (difference)
	scoreThreat = 3000  // an opponent move that completes an opponent row
	scoreWin    = 1 << 30
)

// Decide implements Player.
func (p *Heuristic) Decide(s *env.State) (Decision, error) {
	me := s.CurrentPlayer()
	legal := s.LegalActions(p.buf[0])
	p.buf[0] = legal
	if s.Phase() == env.PhasePlace {
		return Decision{Action: p.placement(s, legal)}, nil
	}
	pick := randomArgmax{rng: p.rng}
	for _, a := range legal {
		c := *s
		if err := c.ApplyAction(a); err != nil {
			return Decision{}, err
		}
		p.finishTurn(&c, me)
		pick.offer(a, p.score(&c, me))
	}
	return Decision{Action: pick.best}, nil
}

// randomArgmax keeps the best-scored action offered, breaking ties uniformly at random (reservoir
// sampling over the tied actions).
type randomArgmax struct {
	rng   *rand.Rand
	best  env.Action
	score int
	ties  int
}

func (m *randomArgmax) offer(a env.Action, score int) {
	switch {
	case m.ties == 0 || score > m.score:
		m.best, m.score, m.ties = a, score, 1
	case score == m.score:
		m.ties++
		if m.rng.IntN(m.ties) == 0 {
			m.best = a
		}
	}
}

// placement prefers central empty points (rings in the middle reach more of the board).
func (p *Heuristic) placement(s *env.State, legal []env.Action) env.Action {
	pick := randomArgmax{rng: p.rng}
	for _, a := range legal {
		c, _ := a.Cells()
		col, row := env.CellColRow(c)
		x, y := col-5, row-6
		d := max(abs(x), abs(y), abs(x-y)) // hex distance from f6
		pick.offer(a, -d*4+p.rng.IntN(3))
	}
	return pick.best
}

// finishTurn plays the rest of me's turn (row and ring removals) greedily by the static score.
func (p *Heuristic) finishTurn(s *env.State, me env.Color) {
	for !s.IsTerminal() && s.CurrentPlayer() == me && s.Phase() != env.PhaseMove && s.Phase() != env.PhasePlace {
		legal := s.LegalActions(p.buf[1])
		p.buf[1] = legal
		best, bestScore := legal[0], -scoreWin*2
		for _, a := range legal {
			c := *s
			_ = c.ApplyAction(a)
			if sc := staticScore(&c, me); sc > bestScore {
				best, bestScore = a, sc
			}
		}
		_ = s.ApplyAction(best)
	}
}

// score evaluates s after me's action: static score minus the opponent's immediate row threats.
func (p *Heuristic) score(s *env.State, me env.Color) int {
	sc := staticScore(s, me)
	if s.IsTerminal() || s.CurrentPlayer() == me || s.Phase() != env.PhaseMove {
		return sc
	}
	opp := me.Other()
	legal := s.LegalActions(p.buf[2])
	p.buf[2] = legal
	threats := 0
	for _, a := range legal {
		c := *s
		_ = c.ApplyAction(a)
		if c.Phase() == env.PhaseRemoveRow && c.CurrentPlayer() == opp {
			threats++
		}
	}
	if threats > 3 {
		threats = 3
	}
	return sc - threats*scoreThreat
}

// staticScore scores s for colour me: terminal outcome, ring difference, and row potential.
func staticScore(s *env.State, me env.Color) int {
	if s.IsTerminal() {
		switch o := s.Outcome(); {
		case o == env.Draw:
			return 0
		case (o == env.WhiteWins) == (me == env.White):
			return scoreWin
		default:
			return -scoreWin
		}
	}
	sc := scoreRing * (s.RingsRemoved(me) - s.RingsRemoved(me.Other()))
	// a pending row removal of mine is nearly a ring
	if s.CurrentPlayer() == me && (s.Phase() == env.PhaseRemoveRow || s.Phase() == env.PhaseRemoveRing) {
		sc += scoreRing / 2
	}
	return sc + rowPotential(s, me) - rowPotential(s, me.Other())
}

// rowPotential sums k² over the 5-windows holding k markers of colour c and no other pieces.
func rowPotential(s *env.State, c env.Color) int {
	own := byte('w')
	if c == env.Black {
		own = 'b'
	}
	total := 0
	for i := 0; i < env.NumRowActions; i++ {
		k := 0
		for _, cell := range env.RowCells(env.Action(env.FirstRowAction + i)) {
			switch s.Cell(cell) {
			case own:
				k++
			case '.':
			default:
				k = -100
			}
		}
		if k > 0 {
			total += k * k
		}
	}
	return total
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
