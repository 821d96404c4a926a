package stats

import "fmt"

// GameResult is the result of one game from A's view, in half points: Loss = 0, Draw = 1,
// Win = 2.
type GameResult int

// Game results from A's view.
const (
	Loss GameResult = 0
	Draw GameResult = 1
	Win  GameResult = 2
)

func (r GameResult) valid() bool { return r >= Loss && r <= Win }

// Results is a sample of results from A's view: a Trinomial (per game) or a Pentanomial (per
// game pair).
type Results interface {
	// Counts returns the bin counts, lowest score for A first: [losses, draws, wins] for a
	// Trinomial, the pairs in which A scored 0, ½, 1, 3/2, 2 points for a Pentanomial.
	Counts() []int
}

// Trinomial counts games by their result for A.
type Trinomial struct{ Losses, Draws, Wins int }

// Counts returns [losses, draws, wins].
func (t Trinomial) Counts() []int { return []int{t.Losses, t.Draws, t.Wins} }

// Games returns the number of games.
func (t Trinomial) Games() int { return t.Losses + t.Draws + t.Wins }

// Points returns A's points: wins plus half the draws.
func (t Trinomial) Points() float64 { return float64(t.Wins) + float64(t.Draws)/2 }

// Add counts one game.
func (t *Trinomial) Add(r GameResult) error {
	switch r {
	case Loss:
		t.Losses++
	case Draw:
		t.Draws++
	case Win:
		t.Wins++
	default:
		return fmt.Errorf("stats: game result %d is not Loss, Draw or Win", r)
	}
	return nil
}

// String writes the results as wins-draws-losses, e.g. "3-2-1".
func (t Trinomial) String() string { return fmt.Sprintf("%d-%d-%d", t.Wins, t.Draws, t.Losses) }

// Pentanomial counts game pairs (both games from the same opening, colours swapped) by A's
// points over the pair: index i holds the pairs in which A scored i/2 points (LL, LD+DL,
// LW+DD+WL, DW+WD, WW).
type Pentanomial [5]int

// Counts returns the five bin counts.
func (p Pentanomial) Counts() []int { return p[:] }

// Pairs returns the number of game pairs.
func (p Pentanomial) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// Games returns the number of games, twice the pairs.
func (p Pentanomial) Games() int { return 2 * p.Pairs() }

// Points returns A's points over all pairs.
func (p Pentanomial) Points() float64 {
	return (float64(p[1]) + 2*float64(p[2]) + 3*float64(p[3]) + 4*float64(p[4])) / 2
}

// AddPair counts one pair from the results of its two games.
func (p *Pentanomial) AddPair(first, second GameResult) error {
	bin, err := PairBin(first, second)
	if err != nil {
		return err
	}
	p[bin]++
	return nil
}

// String writes the counts as fastchess does, e.g. "[1, 10, 78, 48, 13]".
func (p Pentanomial) String() string {
	return fmt.Sprintf("[%d, %d, %d, %d, %d]", p[0], p[1], p[2], p[3], p[4])
}

// PairBin returns the Pentanomial bin of a pair whose games ended first and second (from A's
// view, in either order): A's points over the pair in half points, 0 (two losses) to 4 (two
// wins). A win and a loss and two draws share bin 2.
func PairBin(first, second GameResult) (int, error) {
	if !first.valid() || !second.valid() {
		return 0, fmt.Errorf("stats: pair (%d, %d) holds a game result that is not Loss, Draw or Win", first, second)
	}
	return int(first) + int(second), nil
}
