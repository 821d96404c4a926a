package mcts

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// Config is the search configuration. DefaultConfig gives usable values; the zero value is invalid.
type Config struct {
	// Simulations is the number of new simulations per search (the full budget). The root's own
	// evaluation and visits kept from tree reuse do not count.
	Simulations int
	// MoveTime, when positive, also bounds a search by wall-clock time: it stops at the first
	// simulation batch that starts after MoveTime has passed since Search began (so it overruns by at
	// most one batch of LeavesInFlight simulations), or at Simulations, whichever comes first. At
	// least one batch runs. A timed search is not reproducible; self-play and training stay bounded
	// by simulations (leave MoveTime 0), time controls are for play and evaluation. A Gumbel search
	// plans its sequential halving for Simulations and, stopped early, chooses among the actions it
	// still considers.
	MoveTime time.Duration
	// CPUCT is the PUCT exploration constant: score = Q + CPUCT·P·sqrt(ΣN)/(1+N), Q in [-1, 1].
	CPUCT float64
	// FPUReduction and RootFPUReduction: an unvisited child's Q is its parent's Q less the reduction
	// times sqrt(the prior mass of the visited children) (lc0 / KataGo first-play urgency).
	FPUReduction     float64
	RootFPUReduction float64
	// DirichletAlpha and DirichletFraction mix Dirichlet noise into the root priors of full PUCT
	// searches: P' = (1-fraction)·P + fraction·Dir(alpha). Fraction 0 disables the noise.
	DirichletAlpha    float64
	DirichletFraction float64
	// LeavesInFlight is the number of leaves gathered per evaluator call by one tree, kept apart by
	// virtual loss (1: plain sequential search).
	LeavesInFlight int
	// VirtualLoss is the value, as a loss, that each in-flight simulation counts for in PUCT selection.
	VirtualLoss float64
	// Temperature is for choosing the action: 0 takes the most visited (Gumbel: the sequential-
	// halving winner), T > 0 samples proportionally to visits^(1/T) (Gumbel: to the improved
	// policy^(1/T), the training target).
	Temperature float64

	// Gumbel selects Gumbel AlphaZero (Danihelka et al. 2022, mctx gumbel_muzero_policy): Gumbel-top-k
	// with sequential halving at the root, the deterministic improved-policy selection below it, and
	// the improved policy softmax(logits + σ(completed Q)) as the training target.
	Gumbel bool
	// GumbelConsidered is the number of root actions sampled by Gumbel-top-k (mctx
	// max_num_considered_actions).
	GumbelConsidered int
	// GumbelScale scales the Gumbel noise (0: deterministic, for evaluation games).
	GumbelScale float64
	// GumbelCVisit and GumbelCScale define σ(q) = (CVisit + max N)·CScale·q for q rescaled to [0, 1]
	// (mctx maxvisit_init and value_scale).
	GumbelCVisit float64
	GumbelCScale float64

	// Playout-cap randomisation (KataGo): with 0 < FullFraction < 1 and FastSimulations > 0, a search
	// is full with probability FullFraction (budget Simulations, root noise, Result.Full set: record
	// it as a training target) and fast otherwise (budget FastSimulations, no noise).
	FullFraction    float64
	FastSimulations int

	// ShuffleChildren orders a node's children at random (from the search's rng) when it is
	// expanded, instead of by action id. Selection and the final choice break ties by child order, so
	// with equal priors (pure MCTS) the action numbering would otherwise decide which unvisited child
	// goes first and which equally visited one is played: a move-generation-order bias. OpenSpiel's
	// MCTSBot shuffles for the same reason.
	ShuffleChildren bool
}

// DefaultConfig returns a configuration for analysis: 800 simulations, no noise, greedy choice.
func DefaultConfig() Config {
	return Config{
		Simulations:      800,
		CPUCT:            1.25,
		FPUReduction:     0.25,
		RootFPUReduction: 0.1,
		DirichletAlpha:   0.2,
		LeavesInFlight:   8,
		VirtualLoss:      1,
		GumbelConsidered: 16,
		GumbelScale:      1,
		GumbelCVisit:     50,
		GumbelCScale:     0.1,
		FullFraction:     1,
	}
}

// Validate reports the first field out of range, by name.
func (c *Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("mcts: config: %s is %v, want %s", field, v, want)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Simulations < 1:
		return bad("Simulations", c.Simulations, "at least 1")
	case c.MoveTime < 0:
		return bad("MoveTime", c.MoveTime, "0 (no time limit) or positive")
	case !(c.CPUCT >= 0) || !finite(c.CPUCT):
		return bad("CPUCT", c.CPUCT, "a finite number >= 0")
	case !(c.FPUReduction >= 0) || !finite(c.FPUReduction):
		return bad("FPUReduction", c.FPUReduction, "a finite number >= 0")
	case !(c.RootFPUReduction >= 0) || !finite(c.RootFPUReduction):
		return bad("RootFPUReduction", c.RootFPUReduction, "a finite number >= 0")
	case !(c.DirichletFraction >= 0 && c.DirichletFraction <= 1):
		return bad("DirichletFraction", c.DirichletFraction, "0..1")
	case c.DirichletFraction > 0 && !(c.DirichletAlpha > 0 && finite(c.DirichletAlpha)):
		return bad("DirichletAlpha", c.DirichletAlpha, "> 0 when DirichletFraction > 0")
	case c.LeavesInFlight < 1 || c.LeavesInFlight > 4096:
		return bad("LeavesInFlight", c.LeavesInFlight, "1..4096")
	case !(c.VirtualLoss >= 0) || !finite(c.VirtualLoss):
		return bad("VirtualLoss", c.VirtualLoss, "a finite number >= 0")
	case !(c.Temperature >= 0) || !finite(c.Temperature):
		return bad("Temperature", c.Temperature, "a finite number >= 0")
	case c.Gumbel && c.GumbelConsidered < 1:
		return bad("GumbelConsidered", c.GumbelConsidered, "at least 1")
	case !(c.GumbelScale >= 0) || !finite(c.GumbelScale):
		return bad("GumbelScale", c.GumbelScale, "a finite number >= 0")
	case !(c.GumbelCVisit >= 0) || !finite(c.GumbelCVisit):
		return bad("GumbelCVisit", c.GumbelCVisit, "a finite number >= 0")
	case !(c.GumbelCScale >= 0) || !finite(c.GumbelCScale):
		return bad("GumbelCScale", c.GumbelCScale, "a finite number >= 0")
	case !(c.FullFraction >= 0 && c.FullFraction <= 1):
		return bad("FullFraction", c.FullFraction, "0..1")
	case c.FastSimulations < 0:
		return bad("FastSimulations", c.FastSimulations, ">= 0")
	}
	return nil
}

// playoutCap reports whether playout-cap randomisation is on.
func (c *Config) playoutCap() bool {
	return c.FullFraction < 1 && c.FastSimulations > 0
}

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

// ChildStats is the search's view of one root action.
type ChildStats struct {
	Action env.Action
	Visits int
	Prior  float32 // the evaluator's prior (before noise)
	Q      float32 // mean value for the player to act at the root (0 when unvisited)
	Policy float32 // the training target's probability for this action
}

// Result is the outcome of one search.
type Result struct {
	// Action is the chosen action: by visits and Temperature (PUCT), or the sequential-halving winner
	// (Gumbel).
	Action env.Action
	// Policy is the training target over the flat action space ([env.NumActions], zero on illegal
	// actions): the root visit distribution (PUCT) or the improved policy (Gumbel).
	Policy []float32
	// Children holds every legal root action, in action-id order.
	Children []ChildStats
	// Value is the root's mean value for the player to act (win - loss); WDL its win, draw and loss.
	Value float32
	WDL   [3]float32
	// PV is the principal variation: Action, then the most visited child at each node below it.
	PV []env.Action
	// Simulations counts the simulations of this search; Visits the root's visits including those kept
	// from earlier searches by tree reuse.
	Simulations int
	Visits      int
	// Full is false for a fast search of playout-cap randomisation (do not record it as a target).
	Full bool
	// Collisions counts leaf selections abandoned because another in-flight simulation had reached
	// the same unevaluated node.
	Collisions int
	// TimeUp is set when Config.MoveTime stopped the search before its simulation budget.
	TimeUp bool
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
	var deadline time.Time
	if cfg.MoveTime > 0 {
		deadline = time.Now().Add(cfg.MoveTime)
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
		t.startGumbel(rng, budget)
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
		if sims > 0 && !deadline.IsZero() && !time.Now().Before(deadline) {
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

// puctChild returns the edge of node id with the highest PUCT score. Unvisited children score
// FPU + c·P·sqrt(ΣN), so only the unvisited one of highest prior needs a score.
func (t *Tree) puctChild(id int32) int32 {
	nodes, nd := t.a.nodes, &t.a.nodes[id]
	sumN := float32(nd.visits-1) + float32(nd.inflight)
	cs := float32(t.cfg.CPUCT) * float32(math.Sqrt(float64(max(sumN, 1))))
	vl := float32(t.cfg.VirtualLoss)
	me := nd.toAct
	best, bestScore := int32(-1), float32(math.Inf(-1))
	bestUnv, maxUnvP := int32(-1), float32(-1)
	var visitedMass float32
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	for i := range edges {
		e := &edges[i]
		p := e.prior.float()
		if e.child == unvisited {
			if p > maxUnvP {
				maxUnvP, bestUnv = p, int32(i)
			}
			continue
		}
		c := &nodes[e.child]
		visitedMass += p
		inf := float32(c.inflight)
		n := float32(c.visits) + inf
		w := c.valueSum
		if c.toAct != me {
			w = -w
		}
		score := (w-vl*inf)/n + cs*p/(1+n)
		if score > bestScore {
			best, bestScore = int32(i), score
		}
	}
	if bestUnv >= 0 {
		red := t.cfg.FPUReduction
		if id == rootIndex {
			red = t.cfg.RootFPUReduction
		}
		parentQ := nd.valueSum / float32(nd.visits)
		fpu := parentQ - float32(red)*float32(math.Sqrt(float64(visitedMass)))
		if fpu+cs*maxUnvP > bestScore {
			best = bestUnv
		}
	}
	return nd.edges + best
}

// addNoise mixes Dirichlet noise into the root priors, keeping the clean ones for removeNoise.
func (t *Tree) addNoise(rng *rand.Rand) {
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	t.cleanPrior = t.cleanPrior[:0]
	t.scratch = grow(t.scratch, len(edges))
	var sum float64
	for i := range edges {
		t.cleanPrior = append(t.cleanPrior, edges[i].prior)
		g := gammaSample(rng, t.cfg.DirichletAlpha)
		t.scratch[i] = float32(g)
		sum += g
	}
	if !(sum > 0) {
		return // every sample underflowed: no noise this time
	}
	f := float32(t.cfg.DirichletFraction)
	for i := range edges {
		p := (1-f)*edges[i].prior.float() + f*t.scratch[i]/float32(sum)
		edges[i].prior = encodePrior(p)
	}
}

func (t *Tree) removeNoise() {
	if len(t.a.nodes) == 0 {
		return // discarded after an evaluator error
	}
	nd := t.a.nodes[rootIndex]
	edges := t.a.edges[nd.edges : nd.edges+int32(nd.numEdges)]
	for i := range edges {
		edges[i].prior = t.cleanPrior[i]
	}
}

// gammaSample draws from Gamma(alpha, 1) (Marsaglia–Tsang; alpha < 1 by the boost U^(1/alpha)).
func gammaSample(rng *rand.Rand, alpha float64) float64 {
	boost := 1.0
	if alpha < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		boost = math.Pow(u, 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}

// fillResult summarises the root.
func (t *Tree) fillResult(res *Result, rng *rand.Rand) {
	a := &t.a
	root := a.nodes[rootIndex]
	me := root.toAct
	edges := a.edges[root.edges : root.edges+int32(root.numEdges)]
	res.Visits = int(root.visits)
	res.Value = root.valueSum / float32(root.visits)
	d := root.drawSum / float32(root.visits)
	res.WDL = [3]float32{max(0, (1-d+res.Value)/2), d, max(0, (1-d-res.Value)/2)}
	res.Children = make([]ChildStats, len(edges))
	var total float32
	for i, e := range edges {
		cs := ChildStats{Action: env.Action(e.action), Prior: e.prior.float()}
		if e.child != unvisited {
			cs.Visits = int(a.nodes[e.child].visits)
			cs.Q = a.q(e.child, me)
		}
		total += float32(cs.Visits)
		res.Children[i] = cs
	}
	res.Policy = make([]float32, env.NumActions)
	if t.cfg.Gumbel {
		improved, act := t.gumbelFinal()
		for i := range res.Children {
			res.Children[i].Policy = improved[i]
		}
		if t.cfg.Temperature > 0 {
			best := 0
			for i := range improved {
				if improved[i] > improved[best] {
					best = i
				}
			}
			act = samplePower(len(improved), func(i int) float64 { return float64(improved[i]) }, best, t.cfg.Temperature, rng)
		}
		res.Action = res.Children[act].Action
	} else {
		for i := range res.Children {
			c := &res.Children[i]
			if total > 0 {
				c.Policy = float32(c.Visits) / total
			} else {
				c.Policy = c.Prior
			}
		}
		res.Action = res.Children[chooseByVisits(res.Children, t.cfg.Temperature, rng)].Action
	}
	for _, c := range res.Children {
		res.Policy[c.Action] = c.Policy
	}
	res.PV = t.pv(res.Action)
}

// chooseByVisits picks a child: the most visited one (ties: higher Q, then higher prior, then lower
// action id) for temperature 0, else one sampled proportionally to visits^(1/T).
func chooseByVisits(cs []ChildStats, temp float64, rng *rand.Rand) int {
	best := 0
	for i := 1; i < len(cs); i++ {
		if better(&cs[i], &cs[best]) {
			best = i
		}
	}
	if temp == 0 {
		return best
	}
	return samplePower(len(cs), func(i int) float64 { return float64(cs[i].Visits) }, best, temp, rng)
}

// samplePower samples an index in [0, n) with probability ∝ x(i)^(1/temp), drawing one number from
// rng; best is an index of the largest x, returned when every x is 0 (no draw then). Weights are
// taken relative to x(best), to stay finite for small temperatures; an index with x(i) = 0 is
// never drawn.
func samplePower(n int, x func(i int) float64, best int, temp float64, rng *rand.Rand) int {
	xmax := x(best)
	if xmax <= 0 {
		return best
	}
	var sum float64
	for i := range n {
		sum += math.Pow(x(i)/xmax, 1/temp)
	}
	r := rng.Float64() * sum
	for i := range n {
		r -= math.Pow(x(i)/xmax, 1/temp)
		if r < 0 && x(i) > 0 {
			return i
		}
	}
	return best
}

func better(a, b *ChildStats) bool {
	if a.Visits != b.Visits {
		return a.Visits > b.Visits
	}
	if a.Visits > 0 && a.Q != b.Q {
		return a.Q > b.Q
	}
	return a.Prior > b.Prior
}

// pv returns first, then follows the most visited child (ties: higher Q) while there is a visited one.
func (t *Tree) pv(first env.Action) []env.Action {
	a := &t.a
	pv := []env.Action{first}
	id, _ := a.childOf(rootIndex, first)
	for id != unvisited {
		nd := &a.nodes[id]
		if nd.flags&flagExpanded == 0 {
			return pv
		}
		best, bestN, bestQ := int32(unvisited), int32(0), float32(0)
		var bestAct uint16
		for _, e := range a.edges[nd.edges : nd.edges+int32(nd.numEdges)] {
			if e.child == unvisited {
				continue
			}
			n := a.nodes[e.child].visits
			q := a.q(e.child, nd.toAct)
			if n > bestN || (n == bestN && n > 0 && q > bestQ) {
				best, bestN, bestQ, bestAct = e.child, n, q, e.action
			}
		}
		if best == unvisited {
			return pv
		}
		pv = append(pv, env.Action(bestAct))
		id = best
	}
	return pv
}
