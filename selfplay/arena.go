package selfplay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// MaxGameActions bounds a game's length; YINSH games end long before (markers run out), so reaching it
// means a player or rules bug.
const MaxGameActions = 2000

// ErrForfeit marks a player error that loses the game instead of stopping the match: an external
// engine's timeout, crash or illegal action (as a tournament manager scores them). Players wrap it
// (fmt.Errorf("...: %w", ErrForfeit)); any other error from Decide stops the match.
var ErrForfeit = errors.New("forfeit")

// Observer is implemented by players that follow the game action by action (external engines, which
// are sent each action played). PlayGame calls Observe with every action of the game, the opening's
// included, whoever played it.
type Observer interface {
	Observe(a env.Action)
}

// MoveTimes sums a player's decision times in a match.
type MoveTimes struct {
	Moves      int
	Total, Max time.Duration
}

// Mean returns the mean decision time (0 without moves).
func (m MoveTimes) Mean() time.Duration {
	if m.Moves == 0 {
		return 0
	}
	return m.Total / time.Duration(m.Moves)
}

func (m *MoveTimes) add(d time.Duration) {
	m.Moves++
	m.Total += d
	m.Max = max(m.Max, d)
}

func (m *MoveTimes) merge(o MoveTimes) {
	m.Moves += o.Moves
	m.Total += o.Total
	m.Max = max(m.Max, o.Max)
}

// GameRecord is one finished game of a match.
type GameRecord struct {
	Game, Pair   int // game number in the match and its pair (both from 0; games 2p and 2p+1 form pair p)
	Opening      Opening
	White, Black string // player names
	AWhite       bool   // player A had white
	// Actions are the whole game's actions from the opening's start: the opening's own actions first
	// (when it has any), then the players'.
	Actions []env.Action
	Outcome env.Outcome
	// Forfeit names the colour that lost by forfeit (-1 if none) and Reason says why.
	Forfeit int
	Reason  string
	// Times are white's and black's decision times.
	Times [2]MoveTimes
}

// ScoreA returns player A's points in the game (1 win, ½ draw, 0 loss).
func (g GameRecord) ScoreA() float64 {
	switch {
	case g.Outcome == env.Draw:
		return 0.5
	case (g.Outcome == env.WhiteWins) == g.AWhite:
		return 1
	}
	return 0
}

// PlayGame plays one game from start (copied) between two players and returns the final state and the
// actions played.
func PlayGame(ctx context.Context, white, black Player, start *env.State) (*env.State, []env.Action, error) {
	g, s, err := playGame(ctx, white, black, Opening{}, start)
	return s, g.Actions, err
}

// playGame plays one game from start, which is the opening's start state (copied); the players are
// told the opening's actions as observers. A forfeit ends the game as a loss of the forfeiting side.
// It returns the game and its last state.
func playGame(ctx context.Context, white, black Player, o Opening, start *env.State) (GameRecord, *env.State, error) {
	g := GameRecord{Opening: o, White: white.Name(), Black: black.Name(), Forfeit: -1}
	s := start.Clone()
	white.NewGame()
	black.NewGame()
	players := [2]Player{white, black}
	observe := func(a env.Action) {
		for _, p := range players {
			if ob, ok := p.(Observer); ok {
				ob.Observe(a)
			}
		}
	}
	for _, a := range o.Actions {
		observe(a)
		g.Actions = append(g.Actions, a)
	}
	for !s.IsTerminal() {
		if err := ctx.Err(); err != nil {
			return g, s, err
		}
		if len(g.Actions) >= MaxGameActions {
			return g, s, fmt.Errorf("selfplay: game exceeded %d actions", MaxGameActions)
		}
		c := s.CurrentPlayer()
		p := players[c]
		t0 := time.Now()
		d, err := p.Decide(s)
		g.Times[c].add(time.Since(t0))
		if errors.Is(err, ErrForfeit) {
			g.Forfeit, g.Reason = int(c), fmt.Sprintf("%s: %v", p.Name(), err)
			g.Outcome = winnerOf(c.Other())
			return g, s, nil
		}
		if err != nil {
			return g, s, fmt.Errorf("selfplay: %s: %w", p.Name(), err)
		}
		if err := s.ApplyAction(d.Action); err != nil {
			return g, s, fmt.Errorf("selfplay: %s played %s: %w", p.Name(), d.Action, err)
		}
		observe(d.Action)
		g.Actions = append(g.Actions, d.Action)
	}
	g.Outcome = s.Outcome()
	return g, s, nil
}

// MatchResult counts a match from player A's view.
type MatchResult struct {
	A, B                      string
	Wins, Draws, Losses       int
	WinsAsWhite, GamesAsWhite int
	// Pairs is the pentanomial count of finished game pairs by A's points over the pair's two games:
	// Pairs[k] holds the pairs in which A scored k/2 points (0, ½, 1, 1½, 2).
	Pairs [5]int
	// Forfeits counts the games A and B lost by forfeit.
	Forfeits [2]int
	// Times are A's and B's decision times over the match.
	Times [2]MoveTimes
}

// Games returns the number of games.
func (r MatchResult) Games() int { return r.Wins + r.Draws + r.Losses }

// Score returns A's score fraction (wins + draws/2) / games.
func (r MatchResult) Score() float64 {
	if r.Games() == 0 {
		return 0
	}
	return (float64(r.Wins) + 0.5*float64(r.Draws)) / float64(r.Games())
}

// PlayerFactory makes a fresh player for one game from a seed (players are not shared across
// goroutines).
type PlayerFactory func(seed uint64) (Player, error)

// MatchOptions configures Match.
type MatchOptions struct {
	Games    int
	Parallel int    // games played at once (at least 1)
	Seed     uint64 // game i's players are seeded from Seed and i; random openings from Seed and the pair
	Variant  env.Variant
	// Openings, if not empty, are the pairs' openings in order (pair p starts from
	// Openings[p mod len]); else each pair starts from RandomOpening(Seed, p, OpeningPlies) (the
	// initial state when OpeningPlies is 0).
	Openings     []Opening
	OpeningPlies int
	// OnGame, if set, is called after each game with the totals so far and the game (from the
	// match's goroutines, serialised); an error stops the match.
	OnGame func(done int, r MatchResult, g GameRecord) error
	// Stop, if set, is asked after each game that completes a pair, with the totals so far (from the
	// match's goroutines, serialised); once it answers true no further pair starts: the games in
	// flight and the partner of a pair already started are still played, so that every pair is
	// complete, and the match ends with fewer than Games games (a sequential test's early stop, as
	// Fishtest stops a test once its SPRT decides).
	Stop func(r MatchResult) bool
}

// opening returns pair p's opening.
func (o *MatchOptions) opening(p int) Opening {
	if len(o.Openings) > 0 {
		return o.Openings[p%len(o.Openings)]
	}
	if o.OpeningPlies > 0 {
		return RandomOpening(o.Seed, p, o.OpeningPlies, o.Variant)
	}
	return Opening{}
}

// Match plays opts.Games games between A and B as a sequence of game pairs (as Fishtest and
// cutechess-cli do): games 2p and 2p+1 start from pair p's opening, A white in the first and black in
// the second. An odd last game has no partner: it counts in the wins, draws and losses but not in
// Pairs.
func Match(ctx context.Context, a, b PlayerFactory, opts MatchOptions) (MatchResult, error) {
	var res MatchResult
	if opts.Games < 1 {
		return res, fmt.Errorf("selfplay: match needs at least one game")
	}
	if opts.OpeningPlies < 0 || opts.OpeningPlies > MaxOpeningPlies {
		return res, fmt.Errorf("selfplay: opening plies %d, want 0..%d", opts.OpeningPlies, MaxOpeningPlies)
	}
	par := max(opts.Parallel, 1)
	var mu sync.Mutex
	var firstErr error
	next := 0
	end := opts.Games         // lowered by Stop to the end of the last pair started
	half := map[int]float64{} // pair → A's points in its first finished game
	var wg sync.WaitGroup
	for w := 0; w < min(par, opts.Games); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= end || firstErr != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				g, err := playMatchGame(ctx, a, b, &opts, i)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("game %d: %w", i+1, err)
					}
					mu.Unlock()
					return
				}
				res.add(g)
				if s, ok := half[g.Pair]; ok {
					res.Pairs[int(2*(s+g.ScoreA()))]++
					delete(half, g.Pair)
					if opts.Stop != nil && end == opts.Games && opts.Stop(res) {
						end = min(opts.Games, next+next%2)
					}
				} else {
					half[g.Pair] = g.ScoreA()
				}
				if opts.OnGame != nil {
					if err := opts.OnGame(res.Games(), res, g); err != nil && firstErr == nil {
						firstErr = err
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res, firstErr
}

// add counts a finished game.
func (r *MatchResult) add(g GameRecord) {
	a, b := 0, 1 // colour indices of A and B
	if !g.AWhite {
		a, b = 1, 0
	}
	r.Times[0].merge(g.Times[a])
	r.Times[1].merge(g.Times[b])
	if g.AWhite {
		r.GamesAsWhite++
	}
	switch g.ScoreA() {
	case 1:
		r.Wins++
		if g.AWhite {
			r.WinsAsWhite++
		}
	case 0.5:
		r.Draws++
	default:
		r.Losses++
	}
	switch g.Forfeit {
	case a:
		r.Forfeits[0]++
	case b:
		r.Forfeits[1]++
	}
}

// makePair makes one player of each factory for a game. done closes those that hold resources (an
// external engine's process) and returns the first error; if the second cannot be made, the first
// is closed at once.
func makePair(a, b PlayerFactory, seedA, seedB uint64) (pa, pb Player, done func() error, err error) {
	var made []Player
	done = func() error {
		var err error
		for _, p := range made {
			if c, ok := p.(interface{ Close() error }); ok {
				if cerr := c.Close(); err == nil {
					err = cerr
				}
			}
		}
		return err
	}
	if pa, err = a(seedA); err != nil {
		return nil, nil, nil, err
	}
	made = append(made, pa)
	if pb, err = b(seedB); err != nil {
		done()
		return nil, nil, nil, err
	}
	made = append(made, pb)
	return pa, pb, done, nil
}

// playMatchGame plays game i of a match. Players that hold resources (an external engine's process)
// are closed after the game, or as soon as the game cannot be played.
func playMatchGame(ctx context.Context, a, b PlayerFactory, opts *MatchOptions, i int) (g GameRecord, err error) {
	seed := opts.Seed*1_000_003 + uint64(i)*2
	pa, pb, done, err := makePair(a, b, seed, seed+1)
	if err != nil {
		return GameRecord{}, err
	}
	defer func() {
		if cerr := done(); err == nil {
			err = cerr
		}
	}()
	white, black := pa, pb
	if i%2 == 1 {
		white, black = pb, pa
	}
	o := opts.opening(i / 2)
	start, err := o.Start(opts.Variant)
	if err != nil {
		return GameRecord{}, err
	}
	g, _, err = playGame(ctx, white, black, o, start)
	g.Game, g.Pair, g.AWhite = i, i/2, i%2 == 0
	return g, err
}
