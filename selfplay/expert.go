package selfplay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// Expert games (expert iteration, Anthony, Tian & Barber 2017): games between strong search players
// recorded as training data, each searched position's policy target being the search's root
// distribution (Decision.Policy) and its root value the searching side's WDL, as self-play records
// them.
//
// Game i of a run (numbered from 0) has the record ID ExpertGameID(seed, i); its players are made
// from seeds derived from that ID, and games 2p and 2p+1 start from pair p's opening
// (RandomOpening(seed, p, OpeningPlies)) with player A white in the even game and black in the odd
// one, as in a Match. So a game depends on (seed, i) alone, not on scheduling, and a resumed run
// plays exactly the games it has not recorded.

// ExpertGameID returns the record ID of game i of an expert run seeded with seed.
func ExpertGameID(seed uint64, i int) uint64 { return GameSeed(seed, i) }

// ExpertOptions configures PlayExpert.
type ExpertOptions struct {
	// Games is the run's number of games, numbered 0..Games-1.
	Games int
	// Parallel is the number of games played at once (at least 1).
	Parallel int
	Seed     uint64
	Variant  env.Variant
	// OpeningPlies random ring placements open each pair of games (0..MaxOpeningPlies); they are
	// recorded without a target.
	OpeningPlies int
	// Generator is recorded in every record (e.g. "expert:rollout:200-vs-rollout:200").
	Generator string
	// Recorded, if set, reports whether the game with this record ID is already recorded: such
	// games are not played again.
	Recorded func(id uint64) bool
	// OnGame receives each finished game (serialised; an error stops the run).
	OnGame func(ExpertGame) error
}

// ExpertGame is one finished expert game.
type ExpertGame struct {
	Index  int // game number in the run
	Record *datasets.Record
	// White and Black are the players' names; AWhite says player A had white.
	White, Black string
	AWhite       bool
	// Forfeit is the colour that lost by forfeit (-1 if none; see ErrForfeit) and Reason says why.
	Forfeit int
	Reason  string
	// Opening is the number of leading actions that are the pair's opening.
	Opening int
	Times   [2]MoveTimes
}

// ExpertStats summarises the games PlayExpert played.
type ExpertStats struct {
	// Games were played now; Skipped were already recorded (Recorded) and not played.
	Games, Skipped int
	// Positions counts the played games' actions, Targets those that are policy targets.
	Positions, Targets int
	Results            [4]int // games per env.Outcome
	// ByColor[c] is player A's wins, draws and losses when A had colour c.
	ByColor  [2][3]int
	Forfeits int
	Elapsed  time.Duration
}

// PlayExpert plays the games of an expert run between the players of factories a and b (which may be
// the same factory) and hands each one to opts.OnGame as a record. Games run opts.Parallel at a time.
func PlayExpert(ctx context.Context, a, b PlayerFactory, opts ExpertOptions) (ExpertStats, error) {
	var st ExpertStats
	switch {
	case opts.Games < 1:
		return st, fmt.Errorf("selfplay: expert games: need at least one game, got %d", opts.Games)
	case opts.Parallel < 1:
		return st, fmt.Errorf("selfplay: expert games: parallel %d, want at least 1", opts.Parallel)
	case opts.OpeningPlies < 0 || opts.OpeningPlies > MaxOpeningPlies:
		return st, fmt.Errorf("selfplay: opening plies %d, want 0..%d", opts.OpeningPlies, MaxOpeningPlies)
	case len(opts.Generator) > datasets.MaxGeneratorLen:
		return st, fmt.Errorf("selfplay: generator name longer than %d bytes", datasets.MaxGeneratorLen)
	}
	var todo []int
	for i := 0; i < opts.Games; i++ {
		if opts.Recorded != nil && opts.Recorded(ExpertGameID(opts.Seed, i)) {
			st.Skipped++
			continue
		}
		todo = append(todo, i)
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		next     int
		wg       sync.WaitGroup
	)
	for w := 0; w < min(opts.Parallel, len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(todo) || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := todo[next]
				next++
				mu.Unlock()
				g, err := playExpertGame(ctx, a, b, &opts, i)
				mu.Lock()
				if err == nil && opts.OnGame != nil {
					err = opts.OnGame(g)
				}
				if err != nil {
					if firstErr == nil && !errors.Is(err, context.Canceled) {
						firstErr = fmt.Errorf("game %d: %w", i+1, err)
					}
					mu.Unlock()
					cancel()
					return
				}
				st.add(g)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st.Elapsed = time.Since(start)
	if firstErr == nil && ctx.Err() != nil && st.Games < len(todo) {
		firstErr = context.Cause(ctx)
	}
	return st, firstErr
}

func (st *ExpertStats) add(g ExpertGame) {
	r := g.Record
	st.Games++
	st.Positions += len(r.Actions)
	st.Targets += r.TrainingTargets()
	st.Results[r.Outcome]++
	if g.Forfeit >= 0 {
		st.Forfeits++
	}
	ca := env.White
	if !g.AWhite {
		ca = env.Black
	}
	v := datasets.ValueFor(r.Outcome, ca)
	for k := range v {
		if v[k] == 1 {
			st.ByColor[ca][k]++
		}
	}
}

// GamesPerHour returns the rate of the games played.
func (st ExpertStats) GamesPerHour() float64 {
	if st.Elapsed <= 0 {
		return 0
	}
	return float64(st.Games) / st.Elapsed.Hours()
}

// decisionLog is a player that records the decisions of the player it wraps, in the order they are
// made, into a log shared by both players of a game.
type decisionLog struct {
	Player
	log *[]Decision
}

func (p decisionLog) Decide(s *env.State) (Decision, error) {
	d, err := p.Player.Decide(s)
	if err == nil {
		*p.log = append(*p.log, d)
	}
	return d, err
}

// Observe passes the game's actions on to a wrapped player that follows them (external engines).
func (p decisionLog) Observe(a env.Action) {
	if ob, ok := p.Player.(Observer); ok {
		ob.Observe(a)
	}
}

// playExpertGame plays game i of an expert run and turns it into a record.
func playExpertGame(ctx context.Context, a, b PlayerFactory, opts *ExpertOptions, i int) (g ExpertGame, err error) {
	id := ExpertGameID(opts.Seed, i)
	pa, pb, done, err := makePair(a, b, GameSeed(id, 1), GameSeed(id, 2))
	if err != nil {
		return g, err
	}
	defer func() {
		if cerr := done(); err == nil {
			err = cerr
		}
	}()
	var log []Decision
	white, black := Player(decisionLog{pa, &log}), Player(decisionLog{pb, &log})
	aWhite := i%2 == 0
	if !aWhite {
		white, black = black, white
	}
	o := RandomOpening(opts.Seed, i/2, opts.OpeningPlies, opts.Variant)
	start, err := o.Start(opts.Variant)
	if err != nil {
		return g, err
	}
	gr, _, err := playGame(ctx, white, black, o, start)
	if err != nil {
		return g, err
	}
	rec, err := expertRecord(id, opts.Variant, opts.Generator, gr.Outcome, gr.Actions, len(o.Actions), log)
	if err != nil {
		return g, err
	}
	return ExpertGame{Index: i, Record: rec, White: gr.White, Black: gr.Black, AWhite: aWhite,
		Forfeit: gr.Forfeit, Reason: gr.Reason, Opening: len(o.Actions), Times: gr.Times}, nil
}

// expertRecord builds the record of a game: actions from the initial state, the first opening of
// them the opening's, then one decision per action. A decision with a search distribution
// (Decision.Policy) at a position with more than one legal action is a policy target, with the
// searching side's root WDL; other positions (the opening, forced actions, players that do not
// search) are recorded without a target.
func expertRecord(id uint64, v env.Variant, generator string, outcome env.Outcome, actions []env.Action, opening int, log []Decision) (*datasets.Record, error) {
	if opening+len(log) != len(actions) {
		return nil, fmt.Errorf("selfplay: expert record: %d actions, %d of the opening and %d decisions", len(actions), opening, len(log))
	}
	r := &datasets.Record{ID: id, Variant: v, Generator: generator, Outcome: outcome, Actions: actions,
		Targets: make([]datasets.Target, len(actions))}
	s := env.NewState(v)
	var legal []env.Action
	for k, a := range actions {
		if k >= opening {
			d := &log[k-opening]
			if d.Action != a {
				return nil, fmt.Errorf("selfplay: expert record: ply %d: decision %s, played %s", k+1, d.Action, a)
			}
			legal = s.LegalActions(legal)
			if len(legal) > 1 && len(d.Policy) > 0 {
				t := &r.Targets[k]
				t.Policy = policyTarget(d.Policy)
				if d.HasValue {
					t.RootWDL = d.WDL
				}
			}
		}
		if err := s.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("selfplay: expert record: ply %d %s: %w", k+1, a, err)
		}
	}
	return r, nil
}

// policyTarget converts a search distribution into a sparse policy target normalised to sum 1.
func policyTarget(p []PolicyEntry) []datasets.PolicyEntry {
	sum := 0.0
	for _, e := range p {
		sum += float64(e.Prob)
	}
	out := make([]datasets.PolicyEntry, 0, len(p))
	for _, e := range p {
		if e.Prob > 0 {
			out = append(out, datasets.PolicyEntry{Action: uint16(e.Action), Prob: float32(math.Min(1, float64(e.Prob)/sum))})
		}
	}
	return out
}
