package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// SelfPlaySettings turns the config's self-play section into the selfplay package's configuration.
// The search settings that are not keys keep mcts.DefaultConfig's values (SelfPlayConfig lists
// them: root FPU reduction, virtual loss, Gumbel noise scale and c_visit).
func (c *Config) SelfPlaySettings(generator string) selfplay.Config {
	sp := &c.SelfPlay
	sc := mcts.DefaultConfig()
	sc.Simulations = sp.Simulations
	sc.CPUCT = sp.CPUCT
	sc.FPUReduction = sp.FPUReduction
	sc.DirichletAlpha = sp.DirichletAlpha
	sc.DirichletFraction = sp.DirichletFraction
	sc.Gumbel = sp.Gumbel
	sc.GumbelConsidered = sp.GumbelConsidered
	sc.GumbelCScale = sp.GumbelCScale
	sc.GumbelSigmaNewVisits = sp.GumbelSigmaNewVisits
	if sp.Gumbel {
		sc.DirichletFraction = 0 // Gumbel explores by its own noise
	}
	sc.FullFraction = sp.FullFraction
	sc.FastSimulations = sp.FastSimulations
	sc.LeavesInFlight = sp.LeavesInFlight
	return selfplay.Config{
		Variant: c.VariantValue(), Search: sc,
		TemperatureActions: sp.TemperatureActions, Temperature: sp.Temperature, TreeReuse: sp.TreeReuse,
		ResignThreshold: sp.ResignThreshold, ResignConsecutive: sp.ResignConsecutive,
		ResignCheckFraction: sp.ResignCheckFraction, Generator: generator,
		ImprovedValue: sp.Gumbel && sp.RootValue == "improved",
	}
}

// RecordOf converts a self-play game into a dataset record.
func RecordOf(g selfplay.Game) *datasets.Record {
	r := &datasets.Record{ID: g.Seed, Variant: g.Variant, Generator: g.Generator, Outcome: g.Outcome, Actions: g.Actions}
	r.Targets = make([]datasets.Target, len(g.Positions))
	for i, p := range g.Positions {
		t := &r.Targets[i]
		t.RootWDL = p.WDL
		if p.Full && len(p.Policy) > 0 {
			t.Policy = make([]datasets.PolicyEntry, len(p.Policy))
			for k, e := range p.Policy {
				t.Policy[k] = datasets.PolicyEntry{Action: uint16(e.Action), Prob: e.Prob}
			}
		}
	}
	return r
}

// SelfPlayOptions configures PlaySelfPlay.
type SelfPlayOptions struct {
	Config    *Config
	Net       model.Net
	Generator string // recorded in every game (checkpoint id)
	Games     int
	FirstGame int // number of the first game (games are seeded by number)
	// Indices, if set, are the numbers of the games to play instead (Games and FirstGame ignored).
	Indices  []int
	Seed     uint64 // run seed
	Writer   *datasets.Writer
	Window   *datasets.Window // optional: games are also added here
	Progress io.Writer        // progress bar / lines (nil: none)
	// OnRecord, if set, receives each finished game instead of Writer and Window (a cluster
	// worker publishes it).
	OnRecord func(*datasets.Record) error
	// Stop, if set, ends the self-play early: asked before each game starts (selfplay.RunOptions.Stop).
	Stop func() bool
}

// SelfPlayStats reports a self-play phase.
type SelfPlayStats struct {
	Games, Positions, Targets int
	Results                   [4]int // per env.Outcome
	Elapsed                   time.Duration
	Searches, Simulations     int
	Evaluations               int64   // network positions evaluated
	MeanBatch                 float64 // mean batch size of network calls
	FalseResigns, Checked     int
	// OpponentGames were played against selfplay.opponents; OpponentScore is the network's points
	// in them (win 1, draw ½).
	OpponentGames int
	OpponentScore float64
	// Recovered of the Games were recorded before a restart (counted in Games, Positions, Targets
	// and Results, not in the rates).
	Recovered int
	// Sources counts the games by cluster worker (nil: played in this process); Stale and
	// Duplicates are the games the cluster ingest dropped (too old a network, already recorded).
	Sources           map[string]int
	Stale, Duplicates int
}

// GamesPerHour returns the self-play rate of the games played (not the recovered ones).
func (s SelfPlayStats) GamesPerHour() float64 {
	return float64(s.Games-s.Recovered) / s.Elapsed.Hours()
}

// add counts r's games, positions, targets, results and recovered games in s.
func (s *SelfPlayStats) add(r SelfPlayStats) {
	s.Games += r.Games
	s.Recovered += r.Recovered
	s.Positions += r.Positions
	s.Targets += r.Targets
	for i := range s.Results {
		s.Results[i] += r.Results[i]
	}
}

// PlaySelfPlay plays games with the network, leaves of all parallel games batched into one network
// call, and appends each finished game to the writer (and window).
func PlaySelfPlay(ctx context.Context, o SelfPlayOptions) (SelfPlayStats, error) {
	c := o.Config
	if o.Indices != nil {
		o.Games = len(o.Indices)
	}
	b, perGame, err := c.selfPlayEvaluator(o.Net)
	if err != nil {
		return SelfPlayStats{}, err
	}
	defer b.Close()
	var st SelfPlayStats
	var mu sync.Mutex
	bar := (*progress.Bar)(nil)
	if o.Progress != nil {
		bar = progress.New(o.Progress, o.Games, "self-play", 15*time.Second)
	}
	opponent, oppClose, err := c.opponents(o.Seed)
	if err != nil {
		return SelfPlayStats{}, err
	}
	defer oppClose.Close()
	// record hands a finished game to the writer and the window
	record := func(rec *datasets.Record) error {
		if err := o.Writer.Append(rec); err != nil {
			return err
		}
		fault("selfplay.game")
		if o.Window != nil {
			return o.Window.Add(rec)
		}
		return nil
	}
	inOrder := newGameOrder(o.Indices, o.FirstGame, o.Games, record)
	start := time.Now()
	rs, err := selfplay.Run(ctx, c.SelfPlaySettings(o.Generator), b, selfplay.RunOptions{
		Games: o.Games, Parallel: c.SelfPlay.Parallel, Seed: o.Seed, FirstIndex: o.FirstGame, Indices: o.Indices,
		Opponent: opponent, Evaluator: perGame, Stop: o.Stop,
		OnGame: func(g selfplay.Game) error {
			rec := RecordOf(g)
			if o.OnRecord != nil { // a cluster worker publishes each game at once
				if err := o.OnRecord(rec); err != nil {
					return err
				}
				fault("selfplay.game")
			} else if err := inOrder.done(g.Index, rec); err != nil {
				return err
			}
			mu.Lock()
			st.Games++
			st.Positions += len(g.Actions)
			st.Targets += rec.TrainingTargets()
			st.Results[g.Outcome]++
			if g.Opponent != "" {
				st.OpponentGames++
				v := datasets.ValueFor(g.Outcome, g.OpponentColor.Other()) // the network's win/draw/loss
				st.OpponentScore += float64(v[0]) + 0.5*float64(v[1])
			}
			bs := b.Stats()
			el := time.Since(start).Seconds()
			mu.Unlock()
			bar.Add(1, fmt.Sprintf("%.0f positions/s, batch %.1f", float64(bs.Leaves)/el, bs.Mean()))
			return nil
		},
	})
	// the games finished after a game that never started (Stop, an error, an interrupt) are
	// still recorded, in number order
	if ferr := inOrder.flush(); err == nil {
		err = ferr
	}
	bar.Finish()
	st.Elapsed = time.Since(start)
	st.Searches, st.Simulations = rs.Searches, rs.Simulations
	st.FalseResigns, st.Checked = rs.FalseResigns, rs.Checked
	bs := b.Stats()
	st.Evaluations, st.MeanBatch = bs.Leaves, bs.Mean()
	return st, err
}

// selfPlayEvaluator returns the self-play evaluator of net: a batcher that gathers the leaves of
// all parallel games into network calls of selfplay.batch_size, and, with a rollout mix, the
// evaluator of each game mixing those calls with random rollouts seeded by the game's seed
// (numbered over the whole run, so differing per generation: a position recurring across games,
// such as an opening, gets fresh random rollouts instead of the same noise every time). perGame is
// nil without a mix. The caller closes the batcher.
func (c *Config) selfPlayEvaluator(net model.Net) (*mcts.Batcher, func(uint64) mcts.Evaluator, error) {
	ev := &mcts.NetEvaluator{Net: net.Predict, PolicyLogits: true, WDLLogits: true}
	b, err := mcts.NewBatcher(ev, mcts.BatcherOptions{MaxBatch: c.SelfPlay.BatchSize, Wait: time.Millisecond})
	if err != nil {
		return nil, nil, err
	}
	var perGame func(uint64) mcts.Evaluator
	if c.SelfPlay.RolloutMix > 0 {
		perGame = func(seed uint64) mcts.Evaluator {
			return &mcts.Mix{Net: b, Rollout: mcts.Rollout{Playouts: c.SelfPlay.RolloutPlayouts, Seed: seed}, Lambda: float32(c.SelfPlay.RolloutMix)}
		}
	}
	return b, perGame, nil
}

// gameOrder hands finished games on in the order of their numbers, not the order in which the
// parallel games finish (which depends on scheduling): the shards, the replay window (its sampling
// and eviction) and so the training batches of a seeded run do not depend on which game of a
// generation happened to end first. A game waits while an earlier-numbered one is still playing
// (at most selfplay.parallel games are held). A cluster worker's games (OnRecord) are published as
// they finish: the ingest records them as they arrive anyway.
type gameOrder struct {
	order   []int // the games' numbers, in the order they are handed on (nil: first, first+1, …)
	first   int
	games   int // how many
	next    int // the next game to hand on is the next-th
	pending map[int]*datasets.Record
	out     func(*datasets.Record) error
	err     error // out's first error: nothing is handed on after it
}

func newGameOrder(indices []int, first, games int, out func(*datasets.Record) error) *gameOrder {
	q := &gameOrder{first: first, games: games, pending: map[int]*datasets.Record{}, out: out}
	if indices != nil {
		q.order = slices.Sorted(slices.Values(indices))
		q.games = len(indices)
	}
	return q
}

// nth is the number of the k-th game handed on.
func (q *gameOrder) nth(k int) int {
	if q.order != nil {
		return q.order[k]
	}
	return q.first + k
}

// done records that game i finished (selfplay.Run's OnGame, serialised) and hands on every game
// that is now next in order.
func (q *gameOrder) done(i int, rec *datasets.Record) error {
	if q.err != nil {
		return q.err
	}
	q.pending[i] = rec
	for q.next < q.games {
		r, ok := q.pending[q.nth(q.next)]
		if !ok {
			break
		}
		delete(q.pending, q.nth(q.next))
		q.next++
		if q.err = q.out(r); q.err != nil {
			return q.err
		}
	}
	return nil
}

// flush hands on the games still held (those after a game that did not finish), in number order.
func (q *gameOrder) flush() error {
	held := slices.Sorted(maps.Keys(q.pending))
	for _, i := range held {
		if q.err != nil {
			break
		}
		q.err = q.out(q.pending[i])
		delete(q.pending, i)
	}
	return q.err
}

// opponents returns the RunOptions.Opponent of the config: game i (numbered over the whole run) is
// played against an opponent when a hash of (seed, i) falls below selfplay.opponent_fraction; other
// bits of the same hash pick the opponent and its colour. Nil when there are none.
//
// The closer releases the opponents' resources (external engines' processes) after self-play.
func (c *Config) opponents(seed uint64) (func(int) (selfplay.Player, env.Color, error), io.Closer, error) {
	sp := &c.SelfPlay
	if sp.OpponentFraction <= 0 || len(sp.Opponents) == 0 {
		return nil, closers(nil), nil
	}
	fs := make([]selfplay.PlayerFactory, len(sp.Opponents))
	var cs closers
	for k, spec := range sp.Opponents {
		f, cl, err := selfplay.OpenPlayer(spec, selfplay.PlayerOptions{Variant: c.VariantValue()})
		if err != nil {
			cs.Close()
			return nil, nil, fmt.Errorf("selfplay.opponents[%d]: %w", k, err)
		}
		fs[k] = f
		cs = append(cs, cl)
	}
	return func(i int) (selfplay.Player, env.Color, error) {
		h := mix64(selfplay.GameSeed(seed^0x6f70706f6e656e74, i)) // "opponent": independent of the game's seed
		if float64(h>>11)/(1<<53) >= sp.OpponentFraction {
			return nil, 0, nil
		}
		k := int(h % uint64(len(fs)))
		p, err := fs[k](selfplay.GameSeed(seed, i))
		c := env.White
		if (h>>8)&1 == 1 {
			c = env.Black
		}
		return p, c, err
	}, cs, nil
}

// closers closes several closers, returning their errors joined.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// mix64 is splitmix64's finaliser: every output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// outcomeShares returns white, black and draw shares.
func outcomeShares(r [4]int) (w, b, d float64) {
	n := float64(r[env.WhiteWins] + r[env.BlackWins] + r[env.Draw])
	if n == 0 {
		return 0, 0, 0
	}
	return float64(r[env.WhiteWins]) / n, float64(r[env.BlackWins]) / n, float64(r[env.Draw]) / n
}
