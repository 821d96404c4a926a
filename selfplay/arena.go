package selfplay

import (
	"context"
	"fmt"
	"sync"

	"github.com/yinsh-zero/yinsh/env"
)

// MaxGameActions bounds a game's length; YINSH games end long before (markers run out), so reaching it
// means a player or rules bug.
const MaxGameActions = 2000

// PlayGame plays one game from start (copied) between two players and returns the final state and the
// actions played.
func PlayGame(ctx context.Context, white, black Player, start *env.State) (*env.State, []env.Action, error) {
	s := start.Clone()
	white.NewGame()
	black.NewGame()
	var actions []env.Action
	for !s.IsTerminal() {
		if err := ctx.Err(); err != nil {
			return s, actions, err
		}
		if len(actions) >= MaxGameActions {
			return s, actions, fmt.Errorf("selfplay: game exceeded %d actions", MaxGameActions)
		}
		p := white
		if s.CurrentPlayer() == env.Black {
			p = black
		}
		d, err := p.Decide(s)
		if err != nil {
			return s, actions, fmt.Errorf("selfplay: %s: %w", p.Name(), err)
		}
		if err := s.ApplyAction(d.Action); err != nil {
			return s, actions, fmt.Errorf("selfplay: %s played %s: %w", p.Name(), d.Action, err)
		}
		actions = append(actions, d.Action)
	}
	return s, actions, nil
}

// MatchResult counts a match from player A's view.
type MatchResult struct {
	A, B                      string
	Wins, Draws, Losses       int
	WinsAsWhite, GamesAsWhite int
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
	Seed     uint64 // game i uses seeds derived from Seed and i
	Variant  env.Variant
	// OnGame, if set, is called after each game (from the match's goroutines, serialised).
	OnGame func(done int, r MatchResult)
}

// Match plays opts.Games games between A and B, alternating colours (A is white in even games).
func Match(ctx context.Context, a, b PlayerFactory, opts MatchOptions) (MatchResult, error) {
	var res MatchResult
	if opts.Games < 1 {
		return res, fmt.Errorf("selfplay: match needs at least one game")
	}
	par := max(opts.Parallel, 1)
	var mu sync.Mutex
	var firstErr error
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= opts.Games || firstErr != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				out, err := playMatchGame(ctx, a, b, opts, i)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = fmt.Errorf("game %d: %w", i+1, err)
					}
					mu.Unlock()
					return
				}
				aWhite := i%2 == 0
				if aWhite {
					res.GamesAsWhite++
				}
				switch {
				case out == env.Draw:
					res.Draws++
				case (out == env.WhiteWins) == aWhite:
					res.Wins++
					if aWhite {
						res.WinsAsWhite++
					}
				default:
					res.Losses++
				}
				if opts.OnGame != nil {
					opts.OnGame(res.Games(), res)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return res, firstErr
}

func playMatchGame(ctx context.Context, a, b PlayerFactory, opts MatchOptions, i int) (env.Outcome, error) {
	seed := opts.Seed*1_000_003 + uint64(i)*2
	pa, err := a(seed)
	if err != nil {
		return 0, err
	}
	pb, err := b(seed + 1)
	if err != nil {
		return 0, err
	}
	white, black := pa, pb
	if i%2 == 1 {
		white, black = pb, pa
	}
	s, _, err := PlayGame(ctx, white, black, env.NewState(opts.Variant))
	if err != nil {
		return 0, err
	}
	return s.Outcome(), nil
}
