package datasets

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

// WindowOptions configures a replay window.
type WindowOptions struct {
	// MaxPositions is the number of training positions kept: when a new game takes the window over it,
	// the oldest games are dropped (whole games; the newest game always stays). 0 means no limit.
	MaxPositions int
	// MaxGames caps the number of games kept the same way. 0 means no limit.
	MaxGames int
	// MaxReuse is how many times one position may be sampled (KataGo's max train reuse); a position
	// that reached it is no longer drawn. 0 means no limit; at most 255.
	MaxReuse int
	// SnapshotEvery is the number of actions between stored game states (default 16). Sampling a
	// position replays at most SnapshotEvery-1 actions from the state before it; each snapshot costs
	// about 200 bytes, so larger values trade sampling speed for memory.
	SnapshotEvery int
	// Logger receives load progress (default slog.Default()).
	Logger *slog.Logger
	// ValueQMix is the share of the search's root value q (Target.RootWDL) in the value target:
	// (1-m)·z + m·q, z the game outcome's WDL (m = 0.5 is "Lessons from AlphaZero"'s (z+q)/2). q
	// bootstraps the value from the search and is far less noisy than z early in training. 0 (the
	// default) trains on z alone; positions without a root value (RootWDL zero, e.g. imports) use z.
	ValueQMix float64
}

// ErrExhausted is returned by Sample when the window has too few samples left: it is empty, or every
// position was drawn MaxReuse times.
var ErrExhausted = errors.New("datasets: replay window exhausted (empty, or every position used MaxReuse times)")

// Window is a replay window: the most recent games' training positions, stored compactly (actions,
// a game state every SnapshotEvery actions, and each target's policy as 16-bit quantised
// probabilities), from which uniformly drawn positions are turned into tensors under a random board
// symmetry. Planes, masks and dense policies exist only in the sampled Batch. Safe for concurrent use;
// the tensors of a batch are built outside the lock, so several goroutines can sample at once.
type Window struct {
	opts WindowOptions
	log  *slog.Logger

	mu sync.Mutex
	// Games, actions, snapshots, targets and policy entries of the live games are the suffixes of
	// these slices from g0, a0, s0, t0 and e0; the dead prefixes are dropped by compact.
	games    []wgame
	actions  []uint16
	snaps    []env.State
	targets  []wtarget
	entries  []uint32 // action<<16 | quantised probability
	eligible []uint32 // indices into targets of the positions that may still be drawn
	g0       int
	a0       int
	s0       int
	t0       int
	e0       int
	budget   int64 // draws left over the eligible positions (MaxReuse > 0 only)
}

type wgame struct {
	id      uint64 // Record.ID
	action  uint32 // index of the first action in actions
	snap    uint32 // index of the first snapshot in snaps
	target  uint32 // index of the first target in targets
	n       uint16 // actions
	targets uint16 // training positions
	outcome env.Outcome
	final   [2]uint8 // rings removed by White and Black at the end (when ended)
	ended   bool     // the game ended on the board (not by a resignation): a score target exists
}

type wtarget struct {
	game  uint32 // index in games
	entry uint32 // first policy entry; the entries end where the next target's begin
	where uint32 // index in eligible, or noSlot
	ply   uint16
	uses  uint8
	root  [2]uint16 // root win and loss probabilities quantised by probScale (draw: the rest); 0,0 unknown
	hasQ  bool
}

const (
	noSlot          = ^uint32(0)
	defaultSnapshot = 16
	probScale       = 65535
)

// NewWindow returns an empty window.
func NewWindow(opts WindowOptions) (*Window, error) {
	if opts.MaxPositions < 0 || opts.MaxGames < 0 {
		return nil, fmt.Errorf("datasets: window limits must not be negative")
	}
	if opts.MaxReuse < 0 || opts.MaxReuse > 255 {
		return nil, fmt.Errorf("datasets: MaxReuse must be 0..255, got %d", opts.MaxReuse)
	}
	if !(opts.ValueQMix >= 0 && opts.ValueQMix <= 1) {
		return nil, fmt.Errorf("datasets: ValueQMix must be 0..1, got %v", opts.ValueQMix)
	}
	if opts.SnapshotEvery == 0 {
		opts.SnapshotEvery = defaultSnapshot
	}
	if opts.SnapshotEvery < 1 || opts.SnapshotEvery > MaxActions {
		return nil, fmt.Errorf("datasets: SnapshotEvery must be 1..%d, got %d", MaxActions, opts.SnapshotEvery)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Window{opts: opts, log: log}, nil
}

// Len returns the number of training positions held.
func (w *Window) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.targets) - w.t0
}

// Games returns the number of games held.
func (w *Window) Games() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.games) - w.g0
}

// Eligible returns the number of positions that can still be drawn.
func (w *Window) Eligible() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.eligible)
}

// Bytes returns the memory held by the window's slices (capacity, including not yet compacted
// prefixes), for the bytes-per-position figure.
func (w *Window) Bytes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return cap(w.games)*int(unsafe.Sizeof(wgame{})) + cap(w.actions)*2 + cap(w.snaps)*int(unsafe.Sizeof(env.State{})) +
		cap(w.targets)*int(unsafe.Sizeof(wtarget{})) + cap(w.entries)*4 + cap(w.eligible)*4
}

// Add puts a finished game into the window, dropping the oldest games beyond the limits. It replays
// the game, so an illegal action or policy entry is an error (and nothing is added). A game without
// training positions is accepted and not stored; an unfinished one (Outcome Ongoing) is an error.
func (w *Window) Add(r *Record) error {
	if r.Outcome == env.Ongoing {
		return fmt.Errorf("datasets: game %d is unfinished (no value target)", r.ID)
	}
	if err := r.checkStructure(); err != nil {
		return err
	}
	if r.TrainingTargets() == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	g := wgame{
		action: uint32(len(w.actions)), snap: uint32(len(w.snaps)), target: uint32(len(w.targets)),
		n: uint16(len(r.Actions)), outcome: r.Outcome, id: r.ID,
	}
	gi := uint32(len(w.games))
	entry0 := len(w.entries)
	rollback := func() {
		w.actions, w.snaps = w.actions[:g.action], w.snaps[:g.snap]
		w.targets, w.entries = w.targets[:g.target], w.entries[:entry0]
	}
	s := env.NewState(r.Variant)
	for i, a := range r.Actions {
		if i%w.opts.SnapshotEvery == 0 {
			w.snaps = append(w.snaps, *s)
		}
		w.actions = append(w.actions, uint16(a))
		if t := &r.Targets[i]; t.IsTarget() {
			tg := wtarget{game: gi, entry: uint32(len(w.entries)), where: noSlot, ply: uint16(i)}
			if q := t.RootWDL; q[0]+q[1]+q[2] > 0.5 {
				tg.hasQ = true
				tg.root = [2]uint16{quantProb(q[0]), quantProb(q[2])}
			}
			for _, e := range t.Policy {
				if !s.IsLegal(env.Action(e.Action)) {
					rollback()
					return fmt.Errorf("datasets: game %d ply %d: policy target action %s is not legal", r.ID, i+1, env.Action(e.Action))
				}
				if q := uint32(e.Prob*probScale + 0.5); q > 0 {
					w.entries = append(w.entries, uint32(e.Action)<<16|q)
				}
			}
			w.targets = append(w.targets, tg)
			g.targets++
		}
		if err := s.ApplyAction(a); err != nil {
			rollback()
			return fmt.Errorf("datasets: game %d ply %d %q: %w", r.ID, i+1, a, err)
		}
	}
	if s.IsTerminal() && s.Outcome() != r.Outcome {
		rollback()
		return fmt.Errorf("datasets: game %d: outcome %s but the final position says %s", r.ID, r.Outcome, s.Outcome())
	}
	g.ended = s.IsTerminal()
	g.final = [2]uint8{uint8(s.RingsRemoved(env.White)), uint8(s.RingsRemoved(env.Black))}
	w.games = append(w.games, g)
	for ti := g.target; ti < uint32(len(w.targets)); ti++ {
		w.addEligible(ti)
	}
	for w.overLimit() {
		w.evictOldest()
	}
	w.maybeCompact()
	return nil
}

func (w *Window) overLimit() bool {
	games := len(w.games) - w.g0
	if games <= 1 {
		return false
	}
	return (w.opts.MaxGames > 0 && games > w.opts.MaxGames) ||
		(w.opts.MaxPositions > 0 && len(w.targets)-w.t0 > w.opts.MaxPositions)
}

func (w *Window) addEligible(ti uint32) {
	w.targets[ti].where = uint32(len(w.eligible))
	w.eligible = append(w.eligible, ti)
	if w.opts.MaxReuse > 0 {
		w.budget += int64(w.opts.MaxReuse) - int64(w.targets[ti].uses)
	}
}

func (w *Window) removeEligible(ti uint32) {
	t := &w.targets[ti]
	j := t.where
	last := w.eligible[len(w.eligible)-1]
	w.eligible[j] = last
	w.targets[last].where = j
	w.eligible = w.eligible[:len(w.eligible)-1]
	t.where = noSlot
	if w.opts.MaxReuse > 0 {
		w.budget -= int64(w.opts.MaxReuse) - int64(t.uses)
	}
}

func (w *Window) evictOldest() {
	g := w.games[w.g0]
	end := g.target + uint32(g.targets)
	for ti := g.target; ti < end; ti++ {
		if w.targets[ti].where != noSlot {
			w.removeEligible(ti)
		}
	}
	w.g0++
	w.t0 = int(end)
	if w.g0 < len(w.games) {
		next := w.games[w.g0]
		w.a0, w.s0 = int(next.action), int(next.snap)
		w.e0 = int(w.targets[next.target].entry)
	} else {
		w.a0, w.s0, w.e0 = len(w.actions), len(w.snaps), len(w.entries)
	}
}

// maybeCompact drops the dead prefixes once they are a quarter of the live data, so memory stays
// within about 1.25× the live data (plus slice growth) and each element is moved O(1) times on
// average.
func (w *Window) maybeCompact() {
	live := len(w.games) - w.g0
	if w.g0 < 16 || 4*w.g0 < live {
		return
	}
	dg, da, ds, dt, de := uint32(w.g0), uint32(w.a0), uint32(w.s0), uint32(w.t0), uint32(w.e0)
	w.games = w.games[:copy(w.games, w.games[w.g0:])]
	for i := range w.games {
		g := &w.games[i]
		g.action -= da
		g.snap -= ds
		g.target -= dt
	}
	w.actions = w.actions[:copy(w.actions, w.actions[w.a0:])]
	w.snaps = w.snaps[:copy(w.snaps, w.snaps[w.s0:])]
	w.entries = w.entries[:copy(w.entries, w.entries[w.e0:])]
	w.targets = w.targets[:copy(w.targets, w.targets[w.t0:])]
	for i := range w.targets {
		t := &w.targets[i]
		t.game -= dg
		t.entry -= de
	}
	for i := range w.eligible {
		w.eligible[i] -= dt
	}
	w.g0, w.a0, w.s0, w.t0, w.e0 = 0, 0, 0, 0, 0
}

func quantProb(p float32) uint16 {
	return uint16(min(max(p, 0), 1)*probScale + 0.5)
}

// pick is one drawn example, copied out of the window so that tensors are built without the lock.
type pick struct {
	state   env.State // snapshot at or before the position
	replay  []uint16  // actions from the snapshot to the position
	policy  []PolicyEntry
	outcome env.Outcome
	final   [2]uint8 // rings removed at the end (score target), when ended
	ended   bool
	sym     int
	qmix    float32    // share of root in the value target (0: the outcome alone)
	root    [3]float32 // the search's root WDL
	// game (index among the games held at the draw, 0 = oldest) and ply locate the position (tests).
	game, ply int
}

// Sample draws n positions uniformly (with replacement, each at most MaxReuse times) with a uniformly
// random symmetry each, and fills b (resized to n). The draw depends only on rng and the window's
// contents and history, so a seeded rng reproduces it. When fewer draws are left than n it returns
// ErrExhausted and draws nothing.
func (w *Window) Sample(rng *rand.Rand, n int, b *Batch) error {
	picks, err := w.draw(rng, n)
	if err != nil {
		return err
	}
	return build(picks, b)
}

// draw chooses n examples and copies what building them needs.
func (w *Window) draw(rng *rand.Rand, n int) ([]pick, error) {
	if n <= 0 {
		return nil, fmt.Errorf("datasets: sample size must be positive, got %d", n)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.eligible) == 0 || (w.opts.MaxReuse > 0 && w.budget < int64(n)) {
		return nil, ErrExhausted
	}
	picks := make([]pick, n)
	var pool []PolicyEntry
	// The replay actions are copied: w.actions may move (compaction) once the lock is released.
	replays := make([]uint16, 0, n*(w.opts.SnapshotEvery-1))
	for k := range picks {
		ti := w.eligible[rng.IntN(len(w.eligible))]
		t := &w.targets[ti]
		g := &w.games[t.game]
		p := &picks[k]
		p.sym = rng.IntN(env.NumSymmetries)
		se := w.opts.SnapshotEvery
		p.state = w.snaps[int(g.snap)+int(t.ply)/se]
		from := int(g.action) + int(t.ply)/se*se
		r0 := len(replays)
		replays = append(replays, w.actions[from:int(g.action)+int(t.ply)]...)
		p.replay = replays[r0:len(replays):len(replays)]
		end := len(w.entries)
		if int(ti)+1 < len(w.targets) {
			end = int(w.targets[ti+1].entry)
		}
		start := len(pool)
		for _, e := range w.entries[t.entry:end] {
			pool = append(pool, PolicyEntry{Action: uint16(e >> 16), Prob: float32(e&0xffff) / probScale})
		}
		p.policy = pool[start:len(pool):len(pool)]
		p.outcome, p.final, p.ended = g.outcome, g.final, g.ended
		if w.opts.ValueQMix > 0 && t.hasQ {
			win, loss := float32(t.root[0])/probScale, float32(t.root[1])/probScale
			p.qmix, p.root = float32(w.opts.ValueQMix), [3]float32{win, max(1-win-loss, 0), loss}
		}
		p.game, p.ply = int(t.game)-w.g0, int(t.ply)
		if w.opts.MaxReuse > 0 {
			t.uses++
			w.budget--
			if int(t.uses) >= w.opts.MaxReuse {
				w.removeEligible(ti) // no draws left on it: the budget is unchanged
			}
		}
	}
	return picks, nil
}

// build turns picks into tensors.
func build(picks []pick, b *Batch) error {
	b.Resize(len(picks))
	var g Augmenter
	for k := range picks {
		p := &picks[k]
		s := &p.state
		for _, a := range p.replay {
			if err := s.ApplyAction(env.Action(a)); err != nil { // Add replayed it: a bug if it happens
				return fmt.Errorf("datasets: window replay of game %d ply %d: %w", p.game, p.ply, err)
			}
		}
		v := ValueFor(p.outcome, s.CurrentPlayer())
		if p.qmix > 0 {
			for i := range v {
				v[i] = (1-p.qmix)*v[i] + p.qmix*p.root[i]
			}
		}
		g.Write(b, k, s, p.sym, p.policy, v)
		ScoreTarget(b.Score[k*model.NumScore:(k+1)*model.NumScore], p.final, s.CurrentPlayer(), p.ended)
	}
	return nil
}

// GameUses is how many times each training position of one game was drawn (Window.Uses): the
// replay window's state beyond its games, which a resumed run restores (Window.SetUses) so that
// MaxReuse counts the draws made before the restart.
type GameUses struct {
	ID uint64 `json:"id"` // Record.ID
	// Uses has one count per training position of the game, in the order of its actions.
	Uses []byte `json:"uses"`
}

// Uses returns the draw counts of the games held, oldest first, leaving out games none of whose
// positions was drawn.
func (w *Window) Uses() []GameUses {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []GameUses
	for _, g := range w.games[w.g0:] {
		ts := w.targets[g.target : g.target+uint32(g.targets)]
		var u []byte
		for i, t := range ts {
			if t.uses > 0 && u == nil {
				u = make([]byte, len(ts))
			}
			if u != nil {
				u[i] = t.uses
			}
		}
		if u != nil {
			out = append(out, GameUses{ID: g.id, Uses: u})
		}
	}
	return out
}

// SetUses restores draw counts saved by Uses: every game held whose ID is listed gets its counts
// (positions drawn MaxReuse times become ineligible). It returns how many listed games were found;
// counts of games no longer held are ignored. A listed game whose number of positions differs from
// the one held is an error (the counts belong to another game).
func (w *Window) SetUses(uses []GameUses) (int, error) {
	byID := make(map[uint64][]byte, len(uses))
	for _, u := range uses {
		byID[u.ID] = u.Uses
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	found := 0
	for gi := w.g0; gi < len(w.games); gi++ {
		g := w.games[gi]
		u, ok := byID[g.id]
		if !ok {
			continue
		}
		if len(u) != int(g.targets) {
			return found, fmt.Errorf("datasets: game %d has %d training positions, the saved draw counts %d", g.id, g.targets, len(u))
		}
		found++
		for i, n := range u {
			ti := g.target + uint32(i)
			t := &w.targets[ti]
			if t.where != noSlot {
				w.removeEligible(ti)
			}
			t.uses = n
			if w.opts.MaxReuse == 0 || int(n) < w.opts.MaxReuse {
				w.addEligible(ti)
			}
		}
	}
	return found, nil
}

// AddShard adds the games of one shard (unfinished games are skipped) and returns how many were read.
func (w *Window) AddShard(path string) (int, error) {
	recs, err := ReadShard(path)
	if err != nil {
		return 0, err
	}
	return len(recs), w.addRecords(path, recs)
}

func (w *Window) addRecords(path string, recs []*Record) error {
	skipped := 0
	for i, r := range recs {
		if r.Outcome == env.Ongoing {
			skipped++
			continue
		}
		if err := w.Add(r); err != nil {
			return fmt.Errorf("datasets: %s: record %d: %w", path, i+1, err)
		}
	}
	if skipped > 0 {
		w.log.Info("datasets: skipped unfinished games", "file", path, "games", skipped)
	}
	return nil
}

// LoadDir fills the window from the newest finished shards of dir: it reads shards from the highest
// number down until the limits are reached (or all are read), then adds their games oldest first. It
// returns the number of shards read. A damaged shard is an error.
func (w *Window) LoadDir(dir string) (int, error) {
	shards, err := ListShards(dir)
	if err != nil {
		return 0, err
	}
	type loaded struct {
		path string
		recs []*Record
	}
	var got []loaded
	positions, games := 0, 0
	for i := len(shards) - 1; i >= 0; i-- {
		if (w.opts.MaxPositions > 0 && positions >= w.opts.MaxPositions) || (w.opts.MaxGames > 0 && games >= w.opts.MaxGames) {
			break
		}
		recs, err := ReadShard(shards[i])
		if err != nil {
			return 0, err
		}
		for _, r := range recs {
			if r.Outcome != env.Ongoing && r.TrainingTargets() > 0 {
				positions += r.TrainingTargets()
				games++
			}
		}
		got = append(got, loaded{shards[i], recs})
	}
	for i := len(got) - 1; i >= 0; i-- {
		if err := w.addRecords(got[i].path, got[i].recs); err != nil {
			return 0, err
		}
	}
	w.log.Info("datasets: replay window loaded", "dir", dir, "shards", len(got), "positions", w.Len(), "games", w.Games())
	return len(got), nil
}
