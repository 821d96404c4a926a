package selfplay

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// SearchPlayer decides by Monte Carlo tree search with an evaluator (a network adapter, or
// mcts.Rollout for the pure-MCTS baseline). It keeps its tree between its own consecutive decisions
// within a turn (move, then row and ring removals) and drops it otherwise.
type SearchPlayer struct {
	name  string
	tree  *mcts.Tree
	rng   *rand.Rand
	last  uint64 // hash of the state the tree's root stands on after our last action
	have  bool
	legal []env.Action
}

// NewSearchPlayer returns a search player. cfg is used as given (set Temperature 0 and no noise for
// evaluation games).
func NewSearchPlayer(name string, cfg mcts.Config, ev mcts.Evaluator, seed uint64) (*SearchPlayer, error) {
	t, err := mcts.NewTree(cfg, ev)
	if err != nil {
		return nil, err
	}
	return &SearchPlayer{name: name, tree: t, rng: rand.New(rand.NewPCG(seed, 0x53524348))}, nil
}

func (p *SearchPlayer) Name() string { return p.name }

// SetMoveTime changes the time bound of later searches (mcts.Config.MoveTime; 0: none), keeping the
// tree.
func (p *SearchPlayer) SetMoveTime(d time.Duration) error {
	cfg := p.tree.Config()
	cfg.MoveTime = d
	return p.tree.SetConfig(cfg)
}
func (p *SearchPlayer) NewGame() { p.have = false }

// Decide implements Player. A forced action (the only legal one) is played without search: the
// decision then has no value and no candidates.
func (p *SearchPlayer) Decide(s *env.State) (Decision, error) {
	if p.legal = s.LegalActions(p.legal); len(p.legal) == 1 {
		p.have = false
		return Decision{Action: p.legal[0], Top: []ActionStat{{Action: p.legal[0], Prior: 1}}}, nil
	}
	if !p.have || p.last != s.Hash() {
		p.tree.Reset(s)
	}
	res, err := p.tree.Search(p.rng)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", p.name, err)
	}
	d := DecisionFromResult(res, 8)
	if err := p.tree.Advance(res.Action); err != nil {
		return Decision{}, err
	}
	next := *s
	if err := next.ApplyAction(res.Action); err != nil {
		return Decision{}, err
	}
	p.last, p.have = next.Hash(), true
	return d, nil
}

// DecisionFromResult turns a search result into a Decision listing the top k children by visits,
// with the search's full root distribution as its Policy.
func DecisionFromResult(res *mcts.Result, k int) Decision {
	d := Decision{Action: res.Action, WDL: res.WDL, HasValue: true, PV: res.PV}
	for _, c := range res.Children {
		if c.Policy > 0 {
			d.Policy = append(d.Policy, PolicyEntry{Action: uint16(c.Action), Prob: c.Policy})
		}
	}
	// children may be in shuffled order (mcts.Config.ShuffleChildren)
	sort.Slice(d.Policy, func(i, j int) bool { return d.Policy[i].Action < d.Policy[j].Action })
	cs := append([]mcts.ChildStats(nil), res.Children...)
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Visits != cs[j].Visits {
			return cs[i].Visits > cs[j].Visits
		}
		return cs[i].Prior > cs[j].Prior
	})
	for i := 0; i < len(cs) && i < k; i++ {
		d.Top = append(d.Top, ActionStat{Action: cs[i].Action, Prior: cs[i].Prior, Visits: cs[i].Visits, Q: cs[i].Q})
	}
	return d
}
