package selfplay

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/nets"
)

// Strength levels: the player specs level:1 … level:10, each a fixed recipe over the reference
// network of the game's variant (nets.Reference, PlayerOptions.Variant) for game clients that offer
// an opponent a beginner can beat.
//
// A level below the top searches the reference network with Sims simulations (PUCT, no noise; a
// command's move time bounds the search as well, its --sims and --gumbel do not apply), then
// chooses its action in three steps, each drawn from the player's seeded random stream, so that the
// same seed and the same game give the same actions:
//
//  1. With probability RandomRate (level 1 only) a uniformly chosen legal action, and nothing else.
//  2. Otherwise the base action: the search's choice at Temperature 0; above 0 an action drawn with
//     probability ∝ w^(1/Temperature), w the root's visit counts, or the network's prior at a
//     policy-only level (Sims 1, whose search visits nothing but the root).
//  3. With probability BlunderRate the base action is replaced by one drawn uniformly among the
//     BlunderTopK actions of highest prior other than it (a plausible move, not the best; no level
//     above 1 ever plays a uniformly random legal action).
//
// The top level, MaxLevel, is the full agent: the reference network searched exactly as the player
// spec "reference" with the same settings (--sims, --movetime, --gumbel and the rest), only named
// level:10.
//
// Variants: each variant has its own reference network (nets.Path), and a level plays the one of
// PlayerOptions.Variant: the same recipes over the standard network in standard games and over the
// blitz network in blitz games. A variant without a network (nets.Has false) has no levels: opening
// one fails, and the commands refuse it before (yinsh play, arena, engine, analyze and serve).

// MaxLevel is the top level: the full agent.
const MaxLevel = 10

// LevelPrefix starts the player spec of a level.
const LevelPrefix = "level:"

// Level is one strength level's recipe, with its calibrated rating in each variant
// (scripts/calibrate-levels.sh, BENCHMARKS.md "Strength levels").
type Level struct {
	N    int
	Sims int // simulations per decision (1: the network's policy alone); 0 at the top level: the command's
	// Temperature samples the base action from the visits (or the prior, at Sims 1); 0: the best.
	Temperature float64
	// BlunderRate is the probability of playing one of the BlunderTopK next-best actions by prior
	// instead of the base action.
	BlunderRate float64
	BlunderTopK int
	// RandomRate is the probability of a uniformly random legal action (level 1 only).
	RandomRate float64
	// Standard and Blitz are the level's ratings in each variant over that variant's reference
	// network; the zero Rating: not calibrated.
	Standard, Blitz Rating
}

// Rating is a level's calibrated Elo with its 95% interval, on the scale of `yinsh ratings`
// (BayesElo's, whose differences are smaller than a single match's Elo) anchored at random = 0,
// every player searching at most 500 ms a decision.
type Rating struct {
	Elo, Low, High float64
}

// Known reports whether the rating was calibrated (random, the anchor, is the only player at 0).
func (r Rating) Known() bool { return r != Rating{} }

// Rating returns the level's rating in games of variant v.
func (l Level) Rating(v env.Variant) Rating {
	if v == env.Blitz {
		return l.Blitz
	}
	return l.Standard
}

// Levels lists the recipes, Levels[i] is level i+1, with the ratings of the calibrations of
// 2026-12-07 (standard: the reference network of 2026-12-07, configs/standard.yaml's generation
// 600; 2,200 games) and 2026-12-05 (blitz: nets/blitz.ckpt; 2,160 games). The simulations grow
// about 2.5× a level from level 4, which the calibrations found to be 134-353 Elo a level in
// standard games and 118-226 in blitz; the smallest steps are level 3's (108 [62, 155] over level 2
// in standard games, 61 [17, 105] in blitz); levels 1-3 play the network's policy with sampling and
// blunders.
var Levels = [MaxLevel]Level{
	{N: 1, Sims: 1, Temperature: 0.6, BlunderRate: 0.2, BlunderTopK: 4, RandomRate: 0.05,
		Standard: Rating{617, 445, 790}, Blitz: Rating{460, 348, 572}},
	{N: 2, Sims: 1, Temperature: 0.25, BlunderRate: 0.1, BlunderTopK: 3,
		Standard: Rating{851, 671, 1030}, Blitz: Rating{636, 518, 754}},
	{N: 3, Sims: 2, BlunderRate: 0.05, BlunderTopK: 3,
		Standard: Rating{959, 777, 1141}, Blitz: Rating{697, 576, 818}},
	{N: 4, Sims: 12, Standard: Rating{1093, 908, 1278}, Blitz: Rating{815, 690, 940}},
	{N: 5, Sims: 48, Standard: Rating{1306, 1114, 1498}, Blitz: Rating{995, 862, 1128}},
	{N: 6, Sims: 140, Standard: Rating{1659, 1455, 1863}, Blitz: Rating{1201, 1060, 1342}},
	{N: 7, Sims: 330, Standard: Rating{1849, 1640, 2059}, Blitz: Rating{1426, 1276, 1576}},
	{N: 8, Sims: 800, Standard: Rating{2049, 1835, 2263}, Blitz: Rating{1653, 1495, 1810}},
	{N: 9, Sims: 1900, Standard: Rating{2250, 2030, 2469}, Blitz: Rating{1813, 1649, 1977}},
	{N: 10, Standard: Rating{2411, 2182, 2641}, Blitz: Rating{1971, 1793, 2148}}, // the full agent: the reference at the command's settings
}

// Recipe describes the level in one line.
func (l Level) Recipe() string {
	if l.N == MaxLevel {
		return "the full agent: the reference network at the command's settings (as the player reference)"
	}
	var b strings.Builder
	if l.RandomRate > 0 {
		fmt.Fprintf(&b, "%.4g%% a random legal move, else ", 100*l.RandomRate)
	}
	if l.Sims <= 1 {
		b.WriteString("network policy, no search")
	} else {
		fmt.Fprintf(&b, "%d simulations", l.Sims)
	}
	if l.Temperature > 0 {
		fmt.Fprintf(&b, ", sampled at temperature %g", l.Temperature)
	} else {
		b.WriteString(", best action")
	}
	if l.BlunderRate > 0 {
		fmt.Fprintf(&b, ", %.4g%% one of the %d next moves by prior instead", 100*l.BlunderRate, l.BlunderTopK)
	}
	return b.String()
}

// IsLevel reports whether spec is a level spec (level:…), valid or not.
func IsLevel(spec string) bool { return strings.HasPrefix(spec, LevelPrefix) }

// FollowsVariant reports whether a player spec plays the reference network of the game's variant
// (nets.Reference and the levels), rather than a network of its own or none.
func FollowsVariant(spec string) bool { return spec == nets.Reference || IsLevel(spec) }

// ParseLevel returns the level of a level:N spec, N in [1, MaxLevel].
func ParseLevel(spec string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(spec, LevelPrefix))
	if err != nil || !IsLevel(spec) || n < 1 || n > MaxLevel {
		return 0, fmt.Errorf("selfplay: player %q: level: want level:N with N in [1, %d]", spec, MaxLevel)
	}
	return n, nil
}

// levelSimsCap, when positive, caps every level's simulations (tests only: quick games).
var levelSimsCap int

// levelFactory makes the players of level n over opts.Variant's reference network, loaded with
// opts.Load.
func levelFactory(spec string, n int, opts PlayerOptions) (PlayerFactory, io.Closer, error) {
	if opts.Load == nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: no backend to load the reference network with (PlayerOptions.Load is nil)", spec)
	}
	lv := Levels[n-1]
	set := opts.Search
	if n < MaxLevel {
		set = Search{Sims: lv.Sims, SimsSet: true, MoveTime: opts.MoveTime, LeavesInFlight: min(opts.LeavesInFlight, lv.Sims)}
		if set.LeavesInFlight == 0 {
			set.LeavesInFlight = min(mcts.DefaultConfig().LeavesInFlight, lv.Sims)
		}
	}
	if levelSimsCap > 0 && set.Simulations() > levelSimsCap {
		set.Sims, set.SimsSet = levelSimsCap, true
		set.LeavesInFlight = min(max(set.LeavesInFlight, 1), levelSimsCap)
	}
	if set.Simulations() < 1 {
		return nil, nil, fmt.Errorf("selfplay: player %s: simulations must be at least 1", spec)
	}
	if err := set.Validate(); err != nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: %w", spec, err)
	}
	path, err := nets.Path(opts.Variant)
	if err != nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: %w", spec, err)
	}
	net, err := opts.Load(path)
	if err != nil {
		return nil, nil, fmt.Errorf("selfplay: player %s: the reference network: %w", spec, err)
	}
	name := LevelPrefix + strconv.Itoa(n)
	cfg := set.Config()
	mix := float32(0)
	if n == MaxLevel {
		mix = set.RolloutMix
	}
	np, err := NewNetPlayers(name, net.Predict, cfg, opts.maxBatch(cfg), mix)
	if err != nil {
		net.Close()
		return nil, nil, err
	}
	closer := netCloser{np, net}
	if n == MaxLevel { // exactly the reference's players
		return np.Factory(), closer, nil
	}
	f := func(seed uint64) (Player, error) {
		t, err := mcts.NewTree(cfg, np.batcher)
		if err != nil {
			return nil, err
		}
		return &levelPlayer{name: name, lv: lv, tree: t, rng: rand.New(rand.NewPCG(seed, 0x4c45564c))}, nil
	}
	return f, closer, nil
}

// levelPlayer plays a level below the top (see Level).
type levelPlayer struct {
	name  string
	lv    Level
	tree  *mcts.Tree
	rng   *rand.Rand
	legal []env.Action
}

func (p *levelPlayer) Name() string { return p.name }
func (p *levelPlayer) NewGame()     {}

// SetMoveTime changes the time bound of later searches (0: none).
func (p *levelPlayer) SetMoveTime(d time.Duration) error {
	cfg := p.tree.Config()
	cfg.MoveTime = d
	return p.tree.SetConfig(cfg)
}

// Decide implements Player: a fresh search of s, then the level's choice (see Level).
func (p *levelPlayer) Decide(s *env.State) (Decision, error) {
	if p.legal = s.LegalActions(p.legal); len(p.legal) == 1 {
		return Decision{Action: p.legal[0], Top: []ActionStat{{Action: p.legal[0], Prior: 1}}}, nil
	}
	p.tree.Reset(s)
	res, err := p.tree.Search(p.rng)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", p.name, err)
	}
	d := DecisionFromResult(res, 8)
	a := p.choose(res)
	if a != d.Action {
		d.Action, d.PV = a, []env.Action{a}
	}
	return d, nil
}

// choose returns the level's action given the search's result.
func (p *levelPlayer) choose(res *mcts.Result) env.Action {
	lv := p.lv
	if lv.RandomRate > 0 && p.rng.Float64() < lv.RandomRate {
		return p.legal[p.rng.IntN(len(p.legal))]
	}
	cs := res.SortedChildren() // action-id order: the draws do not depend on the children's order
	base := res.Action
	policyOnly := lv.Sims <= 1 || res.Children == nil
	if policyOnly && lv.Temperature == 0 {
		best := 0
		for i := range cs {
			if cs[i].Prior > cs[best].Prior {
				best = i
			}
		}
		base = cs[best].Action
	}
	if lv.Temperature > 0 {
		w := make([]float64, len(cs))
		top, sum := 0.0, 0.0
		for i, c := range cs {
			x := float64(c.Visits)
			if policyOnly {
				x = float64(c.Prior)
			}
			if x > top {
				top = x
			}
			w[i] = x
		}
		if top > 0 {
			for i := range w {
				w[i] = math.Pow(w[i]/top, 1/lv.Temperature)
				sum += w[i]
			}
			r := p.rng.Float64() * sum
			for i := range w {
				if r -= w[i]; r < 0 || i == len(w)-1 {
					base = cs[i].Action
					break
				}
			}
		}
	}
	if lv.BlunderRate > 0 && p.rng.Float64() < lv.BlunderRate {
		others := make([]mcts.ChildStats, 0, len(cs))
		for _, c := range cs {
			if c.Action != base {
				others = append(others, c)
			}
		}
		sort.SliceStable(others, func(i, j int) bool { return others[i].Prior > others[j].Prior })
		if k := min(lv.BlunderTopK, len(others)); k > 0 {
			return others[p.rng.IntN(k)].Action
		}
	}
	return base
}
