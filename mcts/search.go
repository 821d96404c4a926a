package mcts

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// Tree is a search tree with its root state, configuration, evaluator and reusable buffers. It is not
// safe for concurrent use: run one Tree per goroutine (per game) and share the evaluator, typically a
// Batcher, between them.
type Tree struct {
	cfg   Config
	eval  Evaluator
	a     arena
	spare arena // the other half of the copying collection that Advance does
	root  env.State
	set   bool

	// per-search state and buffers
	leaves     []leaf
	reqs       []Request
	outs       []Evaluation
	cleanPrior []prior16  // root priors without noise
	started    int        // simulations started in the current search
	rng        *rand.Rand // the current search's, for ShuffleChildren
	gumbel     gumbelRoot
	scratch    []float32
	scratch2   []float32

	now func() time.Time // the clock of timed searches (nil: time.Now); tests set a fake one
}

// leaf is a simulation waiting for its evaluation.
type leaf struct {
	id     int32
	state  env.State
	legal  []env.Action
	priors []float32
}

// NewTree returns an empty tree; set its root with Reset.
func NewTree(cfg Config, ev Evaluator) (*Tree, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ev == nil {
		return nil, errors.New("mcts: nil evaluator")
	}
	t := &Tree{cfg: cfg, eval: ev}
	t.leaves = make([]leaf, cfg.LeavesInFlight)
	for i := range t.leaves {
		t.leaves[i].legal = make([]env.Action, 0, 128)
		t.leaves[i].priors = make([]float32, 0, 128)
	}
	t.reqs = make([]Request, 0, cfg.LeavesInFlight)
	t.outs = make([]Evaluation, 0, cfg.LeavesInFlight)
	return t, nil
}

// clock returns the current time from the tree's clock.
func (t *Tree) clock() time.Time {
	if t.now != nil {
		return t.now()
	}
	return time.Now()
}

// Config returns the tree's configuration.
func (t *Tree) Config() Config { return t.cfg }

// SetConfig changes the configuration for later searches (for example the temperature, or the
// simulation budget); the tree is kept.
func (t *Tree) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.LeavesInFlight > len(t.leaves) {
		for range cfg.LeavesInFlight - len(t.leaves) {
			t.leaves = append(t.leaves, leaf{legal: make([]env.Action, 0, 128), priors: make([]float32, 0, 128)})
		}
	}
	t.cfg = cfg
	return nil
}

// SetEvaluator changes the evaluator for later searches (for example a rollout evaluator seeded per
// game); call Reset before the next search unless ev gives the same values as the old one.
func (t *Tree) SetEvaluator(ev Evaluator) error {
	if ev == nil {
		return errors.New("mcts: nil evaluator")
	}
	t.eval = ev
	return nil
}

// Reset discards the tree and makes s (copied) the root.
func (t *Tree) Reset(s *env.State) {
	t.root = *s
	t.set = true
	t.a.reset()
}

// Root returns a copy of the root state.
func (t *Tree) Root() *env.State { return t.root.Clone() }

// Nodes returns the number of nodes in the tree.
func (t *Tree) Nodes() int { return len(t.a.nodes) }

// Bytes returns the memory the tree's nodes and edges occupy.
func (t *Tree) Bytes() int { return t.a.bytes() }

// Advance plays a at the root, keeping the subtree below it (tree reuse): call it for every action of
// the game, the search's own and the opponent's. An illegal action returns an error and changes
// nothing. Advance takes time proportional to the size of the kept subtree.
func (t *Tree) Advance(a env.Action) error {
	if !t.set {
		return errors.New("mcts: advance: no root state (call Reset)")
	}
	next := t.root
	if err := next.ApplyAction(a); err != nil {
		return fmt.Errorf("mcts: advance: %s: %w", a, err)
	}
	t.root = next
	if len(t.a.nodes) == 0 {
		return nil
	}
	child, _ := t.a.childOf(rootIndex, a)
	if child == unvisited {
		t.a.reset()
		return nil
	}
	t.a.compactInto(child, &t.spare)
	t.a, t.spare = t.spare, t.a
	return nil
}

// Search runs one search from the root and returns its result. Its randomness (noise, Gumbel
// sampling, the playout cap and the temperature) comes from rng alone, so a fixed seed and a
// deterministic evaluator reproduce it exactly.
func (t *Tree) Search(rng *rand.Rand) (*Result, error) {
	if !t.set {
		return nil, errors.New("mcts: search: no root state (call Reset)")
	}
	if t.root.IsTerminal() {
		return nil, errors.New("mcts: search: the root state is terminal")
	}
	cfg := &t.cfg
	var start, deadline time.Time
	if cfg.MoveTime > 0 {
		start = t.clock()
		deadline = start.Add(cfg.MoveTime)
	}
	t.rng = rng
	defer func() { t.rng = nil }()
	budget, full := cfg.Simulations, true
	if cfg.playoutCap() {
		full = rng.Float64() < cfg.FullFraction
		if !full {
			budget = cfg.FastSimulations
		}
	}
	if len(t.a.nodes) == 0 {
		t.a.newNode(-1, &t.root)
	}
	if t.a.nodes[rootIndex].flags&flagExpanded == 0 {
		if err := t.evaluateRoot(); err != nil {
			return nil, err
		}
	}
	noise := full && !cfg.Gumbel && cfg.DirichletFraction > 0
	if noise {
		t.addNoise(rng)
	}
	if cfg.Gumbel {
		t.startGumbel(rng, budget, start, deadline)
	}
	res := &Result{Full: full}
	err := t.run(budget, deadline, res)
	if noise {
		t.removeNoise()
	}
	if err != nil {
		return nil, err
	}
	t.fillResult(res, rng)
	return res, nil
}

// evaluateRoot expands the root (its evaluation is not counted as a simulation).
func (t *Tree) evaluateRoot() error {
	l := &t.leaves[0]
	l.id, l.state = rootIndex, t.root
	t.a.nodes[rootIndex].inflight++
	return t.evaluate(t.leaves[:1])
}

// run performs budget simulations, LeavesInFlight at a time, stopping early (after at least one
// batch) once the deadline, if not zero, has passed.
func (t *Tree) run(budget int, deadline time.Time, res *Result) error {
	sims := 0
	t.started = 0
	for sims < budget {
		if sims > 0 && !deadline.IsZero() && !t.clock().Before(deadline) {
			res.TimeUp = true
			break
		}
		n, before := 0, sims
		for n < len(t.leaves) && n < t.cfg.LeavesInFlight && sims+n < budget {
			l := &t.leaves[n]
			id, ok := t.selectLeaf(&l.state)
			if !ok {
				res.Collisions++
				break
			}
			t.started++
			if nd := &t.a.nodes[id]; nd.flags&flagTerminal != 0 {
				// a terminal visit is a simulation with the exact value; it needs no evaluation
				v, d := nd.raw, float32(0)
				if v == 0 {
					d = 1
				}
				t.a.backup(id, v, d)
				sims++
				if !deadline.IsZero() && sims-before >= t.cfg.LeavesInFlight {
					// a timed search reads the clock after every LeavesInFlight selections, terminal
					// ones included: a proven line can absorb millions of them
					break
				}
				continue
			}
			l.id = id
			n++
		}
		if n == 0 {
			if sims == before {
				// Only an unevaluated node left by an earlier failure can collide with nothing in flight.
				return errors.New("mcts: search: no leaf can be selected (tree left inconsistent)")
			}
			continue
		}
		if err := t.evaluate(t.leaves[:n]); err != nil {
			return err
		}
		sims += n
	}
	res.Simulations = sims
	return nil
}

// evaluate runs the evaluator on the leaves, then expands them and backs up their values.
func (t *Tree) evaluate(ls []leaf) error {
	t.reqs, t.outs = t.reqs[:0], t.outs[:0]
	for i := range ls {
		l := &ls[i]
		l.legal = l.state.LegalActions(l.legal)
		if cap(l.priors) < len(l.legal) {
			l.priors = make([]float32, len(l.legal), cap(l.legal))
		}
		l.priors = l.priors[:len(l.legal)]
		t.reqs = append(t.reqs, Request{State: &l.state, Legal: l.legal})
		t.outs = append(t.outs, Evaluation{Priors: l.priors})
	}
	if err := t.eval.Evaluate(t.reqs, t.outs); err != nil {
		t.a.reset() // the leaves stay unevaluated: discard the tree, the next search starts afresh
		return fmt.Errorf("mcts: evaluate: %w", err)
	}
	for i := range ls {
		l := &ls[i]
		w := t.outs[i].WDL
		if !(w[0] >= 0 && w[1] >= 0 && w[2] >= 0) || !(w[0]+w[1]+w[2] > 0.99 && w[0]+w[1]+w[2] < 1.01) {
			t.a.reset()
			return fmt.Errorf("mcts: evaluate: WDL %v for %s is not a probability distribution", w, l.state.Text())
		}
		v := w[0] - w[2]
		if t.cfg.ShuffleChildren && t.rng != nil {
			t.rng.Shuffle(len(l.legal), func(i, j int) {
				l.legal[i], l.legal[j] = l.legal[j], l.legal[i]
				l.priors[i], l.priors[j] = l.priors[j], l.priors[i]
			})
		}
		t.a.expand(l.id, l.legal, l.priors, v)
		t.a.backup(l.id, v, w[1])
	}
	return nil
}

// selectLeaf descends from the root to a node that is new, unevaluated or terminal, applying the
// actions to st (set to the root state first) and adding a virtual loss along the path. It returns
// false, with the virtual loss taken back, when it reaches a node already waiting for its evaluation.
func (t *Tree) selectLeaf(st *env.State) (int32, bool) {
	*st = t.root
	id := int32(rootIndex)
	for {
		nd := &t.a.nodes[id]
		if nd.flags&flagTerminal != 0 {
			t.a.addInflight(id, 1)
			return id, true
		}
		if nd.flags&flagExpanded == 0 {
			return id, false // in flight already: a collision
		}
		var e int32
		if t.cfg.Gumbel {
			if id == rootIndex {
				e = t.gumbelRootChild()
			} else {
				e = t.gumbelInteriorChild(id)
			}
		} else {
			e = t.puctChild(id)
		}
		ed := &t.a.edges[e]
		if err := st.ApplyAction(env.Action(ed.action)); err != nil {
			panic(fmt.Sprintf("mcts: tree action %s refused in %s: %v", env.Action(ed.action), st.Text(), err))
		}
		if ed.child == unvisited {
			c := t.a.newNode(id, st)
			t.a.edges[e].child = c
			t.a.addInflight(c, 1)
			return c, true
		}
		id = ed.child
	}
}
