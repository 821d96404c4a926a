package engine

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The analyze command searches the current position in the background and streams info lines, as
// KataGo's kata-analyze does. Its answer is "=[id] " and a line break at once, then one info line
// every interval, then, when the analysis stops, the empty line that ends every answer:
//
//	=7␣
//	info side w visits 412 wdl 0.480 0.070 0.450 time_ms 100 top e5-j5 prior 0.0238 visits 51 q 0.216 ... pv e5-j5 f6-f4
//	info ...
//	(empty line)
//
// The analysis stops at the next line that holds a command (blank and comment lines do not count;
// the command is then run as usual), at its budget (sims N, movetime MS) if it has one, at the end of
// the input if it has none, or when its tree reaches AnalysisMaxBytes. A last info line with the
// final numbers is written before the empty line. Info line fields, in this order:
//
//	info                           the line's key
//	side w|b                       the side to act at the root
//	visits N                       the root's visits (those of an earlier analysis of the same
//	                               position included: the tree is kept while the position is the same)
//	wdl W D L                      the search's win/draw/loss estimate for side
//	time_ms T                      milliseconds since this analysis started
//	top TOKEN prior P visits V q Q zero or more, most visited first (q "-" when V is 0)
//	pv TOKEN...                    the principal variation, to the end of the line
//
// A search error ends the analysis with a line "error MESSAGE" instead of the last info line.

// AnalysisMaxBytes bounds the tree of one analysis: past it the analysis stops by itself.
const AnalysisMaxBytes = 1 << 30

// Analysis settings: the default interval between info lines and the default number of top
// candidates per line (analyze takes an interval of 10 ms to 1 hour and up to 200 candidates).
const (
	DefaultAnalysisInterval = 100 * time.Millisecond
	DefaultAnalysisTop      = 10
	maxAnalysisTop          = 200
)

// analysis is one run of the analyze command. The engine's goroutine prepares it; run searches
// and writes on a goroutine of its own until stop is called or the budget is spent.
type analysis struct {
	interval time.Duration
	b        budget
	top      int

	tree *mcts.Tree
	rng  *rand.Rand
	cfg  mcts.Config
	side env.Color

	stopped atomic.Bool
	failed  bool // the search failed (read after run returns)
}

// stop asks run to end after the chunk it is searching.
func (a *analysis) stop() { a.stopped.Store(true) }

// run searches and writes info lines to w, flushing each, then the empty line that ends the answer.
// It returns only write errors.
func (a *analysis) run(w *bufio.Writer) error {
	lastInfo := time.Now()
	printed := -1
	var lastElapsed time.Duration
	emit := func(res *mcts.Result, elapsed time.Duration) error {
		w.WriteString(formatInfo(res, a.side, elapsed, a.top))
		w.WriteByte('\n')
		printed = res.Visits
		return w.Flush()
	}
	res, _, err := searchMore(a.tree, a.rng, a.cfg, a.b, AnalysisMaxBytes, a.stopped.Load,
		func(res *mcts.Result, _ int, elapsed time.Duration) error {
			lastElapsed = elapsed
			if time.Since(lastInfo) < a.interval {
				return nil
			}
			lastInfo = time.Now()
			return emit(res, elapsed)
		})
	var re reportError
	switch {
	case errors.As(err, &re):
		return re.err
	case err != nil:
		a.failed = true
		fmt.Fprintf(w, "error %s\n", strings.Join(strings.Fields(err.Error()), " "))
	case res != nil && res.Visits != printed:
		if err := emit(res, lastElapsed); err != nil {
			return err
		}
	}
	w.WriteByte('\n')
	return w.Flush()
}

// formatInfo returns one info line (without its line break).
func formatInfo(res *mcts.Result, side env.Color, elapsed time.Duration, top int) string {
	d := selfplay.DecisionFromResult(res, top)
	var b strings.Builder
	fmt.Fprintf(&b, "info side %s visits %d wdl %.3f %.3f %.3f time_ms %d", sideName(side), res.Visits,
		d.WDL[0], d.WDL[1], d.WDL[2], elapsed.Milliseconds())
	for _, st := range d.Top {
		fmt.Fprintf(&b, " top %s prior %.4f visits %d q %s", st.Action, st.Prior, st.Visits, formatQ(st))
	}
	if len(d.PV) > 0 {
		b.WriteString(" pv ")
		b.WriteString(joinActions(d.PV))
	}
	return b.String()
}

// parseAnalyze parses analyze's arguments: [interval_ms] [sims N] [movetime MS] [top K].
func parseAnalyze(args []string) (interval time.Duration, b budget, top int, err error) {
	interval, top = DefaultAnalysisInterval, DefaultAnalysisTop
	if len(args) > 0 {
		if n, perr := strconv.Atoi(args[0]); perr == nil {
			if n < 10 || n > 3_600_000 {
				return 0, b, 0, fmt.Errorf("analyze: interval %q, want milliseconds in [10, 3600000]", args[0])
			}
			interval = time.Duration(n) * time.Millisecond
			args = args[1:]
		}
	}
	seen := map[string]bool{}
	for len(args) > 0 {
		key := strings.ToLower(args[0])
		if len(args) < 2 || seen[key] {
			return 0, b, 0, errors.New("usage: analyze " + analyzeArgs)
		}
		seen[key] = true
		n, perr := strconv.Atoi(args[1])
		switch key {
		case "sims":
			if perr != nil || n < 1 || n > selfplay.MaxSims {
				return 0, b, 0, fmt.Errorf("analyze: sims %q, want an integer in [1, %d]", args[1], selfplay.MaxSims)
			}
			b.Sims = n
		case "movetime":
			if perr != nil || n < 1 || n > 3_600_000 {
				return 0, b, 0, fmt.Errorf("analyze: movetime %q, want milliseconds in [1, 3600000]", args[1])
			}
			b.MoveTime = time.Duration(n) * time.Millisecond
		case "top":
			if perr != nil || n < 0 || n > maxAnalysisTop {
				return 0, b, 0, fmt.Errorf("analyze: top %q, want a count in [0, %d]", args[1], maxAnalysisTop)
			}
			top = n
		default:
			return 0, b, 0, fmt.Errorf("analyze: unknown argument %q (usage: analyze %s)", args[0], analyzeArgs)
		}
		args = args[2:]
	}
	return interval, b, top, nil
}

const analyzeArgs = "[INTERVAL_MS] [sims N] [movetime MS] [top K]"

// searcherFor returns the engine's searcher, building it on first use for the current player spec
// (errNotSearching for players that do not search).
func (e *Engine) searcherFor() (*searcher, error) {
	if e.search == nil {
		load := func(path string) (model.Net, error) { return e.nets.load(path, e.variant) }
		s, err := openSearcher(e.spec, e.set, 0, load, false)
		if err != nil {
			return nil, err
		}
		e.search = s
	}
	return e.search, nil
}

// dropSearcher releases the searcher and the analysis tree (the player changed).
func (e *Engine) dropSearcher() {
	e.search.Close()
	e.search, e.atree, e.arng, e.akey = nil, nil, nil, ""
}

// cmdAnalyze prepares an analysis of the current position; Run (or Exec) runs it.
func (e *Engine) cmdAnalyze(args []string) (string, error) {
	interval, b, top, err := parseAnalyze(args)
	if err != nil {
		return "", err
	}
	if e.state.IsTerminal() {
		return "", fmt.Errorf("the game is over (result %s)", e.state.Outcome())
	}
	s, err := e.searcherFor()
	if errors.Is(err, errNotSearching) {
		return "", fmt.Errorf("analyze: player %s does not search (analyze needs rollout:N or a checkpoint)", e.spec)
	}
	if err != nil {
		return "", err
	}
	// The same position goes on with the same tree (its visits); a new one gets a new tree, so that
	// the memory of a large analysis is not kept, and the same search for the same position.
	if key := e.state.Variant().String() + " " + e.state.Text(); key != e.akey || e.atree == nil {
		e.atree, e.akey = nil, ""
		if e.atree, e.arng, err = s.newTree(e.seed); err != nil {
			return "", err
		}
		e.atree.Reset(&e.state)
		e.akey = key
	}
	e.pending = &analysis{interval: interval, b: b, top: top, tree: e.atree, rng: e.arng, cfg: s.cfg, side: e.state.CurrentPlayer()}
	return "", nil
}

// runAnalysisSync runs an analysis to its budget and returns its info lines as one result (each
// line preceded by a line break), for Exec, which cannot stream. An analysis without a budget is an
// error there.
func runAnalysisSync(a *analysis) (string, error) {
	if !a.b.bounded() {
		return "", errors.New("analyze: without sims or movetime the analysis runs only under Run (it stops at the next command)")
	}
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	w.WriteString("\n")
	if err := a.run(w); err != nil {
		return "", err
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

// cmdPolicy answers the network's prior over the legal actions, most probable first.
func (e *Engine) cmdPolicy([]string) (string, error) {
	if e.state.IsTerminal() {
		return "", fmt.Errorf("the game is over (result %s)", e.state.Outcome())
	}
	legal := e.state.LegalActions(nil)
	priors := make([]float32, len(legal))
	s, err := e.searcherFor()
	if err != nil && !errors.Is(err, errNotSearching) {
		return "", err
	}
	var b strings.Builder
	if s != nil && s.net != nil {
		c := e.state
		out := []mcts.Evaluation{{Priors: priors}}
		if err := s.net.Evaluate([]mcts.Request{{State: &c, Legal: legal}}, out); err != nil {
			return "", fmt.Errorf("policy: %v", err)
		}
		w := out[0].WDL
		fmt.Fprintf(&b, "source network\nwdl %.3f %.3f %.3f", w[0], w[1], w[2])
	} else {
		for i := range priors {
			priors[i] = 1 / float32(len(priors))
		}
		fmt.Fprintf(&b, "source uniform")
	}
	order := make([]int, len(legal))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return priors[order[i]] > priors[order[j]] })
	for _, i := range order {
		fmt.Fprintf(&b, "\n%s %.6f", legal[i], priors[i])
	}
	return b.String(), nil
}
