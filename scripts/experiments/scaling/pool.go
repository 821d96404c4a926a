package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train"
)

// resultsName is the file pool appends to in its directory; `yinsh ratings DIR` reads it (with every
// other results*.jsonl there, as pool and plot do).
const resultsName = "results-pool.jsonl"

// poolOptions configures a pool run.
type poolOptions struct {
	Pool, Dir    string
	MoveTime     time.Duration
	Games        int // games per pair of the round robin (even)
	Adaptive     bool
	Target       float64 // adaptive: stop when every pool player's 95% interval is within ±Target
	MaxGames     int     // adaptive: stop when the pool's pairs hold this many games in all
	Anchor       string  // label of the player fixed at 0 in the adaptive fit ("": the default)
	Parallel     int     // game pairs played at once (one core each)
	Seed         uint64
	Variant      env.Variant
	OpeningPlies int
	// Search: the checkpoint players' search (PUCT, 8 leaves in flight, no rollout mix: what
	// `yinsh arena` plays by default)
	Gumbel         bool
	RolloutMix     float64
	LeavesInFlight int
	Err            io.Writer
}

// pairKey names an unordered pair of players (a < b).
type pairKey struct{ a, b string }

func keyOf(a, b string) pairKey {
	if b < a {
		a, b = b, a
	}
	return pairKey{a, b}
}

// job is one game pair between entries I and J (pool order, I < J), the K-th pair of games of
// that pair of players (0 for the first): its seed.
type job struct{ I, J, K int }

// pooled is an opened pool: its players, the results so far and where they go.
type pooled struct {
	opts    *poolOptions
	p       *pool
	names   []string
	players []selfplay.PlayerFactory
	closers []io.Closer

	mu      sync.Mutex
	results []train.Result
	games   map[pairKey]int // games per pair in results, and pairs in flight counted as played
	played  int             // games played by this run
	start   time.Time
}

func poolRun(ctx context.Context, opts *poolOptions) error {
	switch {
	case opts.Games < 0 || opts.Games%2 != 0:
		return fmt.Errorf("-games %d: games per pair of players, in game pairs (even, at least 0)", opts.Games)
	case opts.MoveTime <= 0:
		return fmt.Errorf("-movetime must be positive (the pool is played at equal time per move)")
	case opts.Parallel < 1:
		return fmt.Errorf("-parallel must be at least 1, got %d", opts.Parallel)
	case opts.OpeningPlies < 0 || opts.OpeningPlies > selfplay.MaxOpeningPlies:
		return fmt.Errorf("-opening-plies must be in [0, %d], got %d", selfplay.MaxOpeningPlies, opts.OpeningPlies)
	case opts.Adaptive && !(opts.Target > 0):
		return fmt.Errorf("-target must be positive, got %g", opts.Target)
	}
	p, anchor, err := readPoolAnchor(opts.Pool, opts.Anchor)
	if err != nil {
		return err
	}
	pl := &pooled{opts: opts, p: p, games: map[pairKey]int{}, start: time.Now()}
	defer pl.close()
	if err := pl.open(); err != nil {
		return err
	}
	if err := pl.readResults(); err != nil {
		return err
	}
	// the round robin: every pair up to opts.Games games, the pairs' first game pairs first
	var jobs []job
	for round := 0; 2*round < opts.Games; round++ {
		for i := range p.Entries {
			for j := i + 1; j < len(p.Entries); j++ {
				if pl.games[keyOf(pl.names[i], pl.names[j])] < 2*(round+1) {
					jobs = append(jobs, job{i, j, round})
				}
			}
		}
	}
	if len(jobs) == 0 {
		fmt.Fprintf(opts.Err, "pool: round robin: every pair has its %d games already\n", opts.Games)
	} else {
		fmt.Fprintf(opts.Err, "pool: round robin: %d game pairs to play (%d players, %d games a pair, %d ms a move, %d at once)\n",
			len(jobs), len(p.Entries), opts.Games, opts.MoveTime.Milliseconds(), opts.Parallel)
	}
	if err := pl.play(ctx, jobs, len(jobs)); err != nil {
		return err
	}
	if !opts.Adaptive {
		fmt.Fprintf(opts.Err, "pool: round robin complete: %d games played now, %s\n", pl.played, time.Since(pl.start).Round(time.Second))
		return nil
	}
	aname := ratedName(anchor, opts.MoveTime)
	for {
		rs, err := train.FitRatings(pl.results, aname)
		if err != nil {
			return fmt.Errorf("adaptive: %w (play a round robin first: -games 2 or more)", err)
		}
		widest, width := pl.widest(rs, aname)
		total := pl.poolGames()
		if width <= opts.Target {
			fmt.Fprintf(opts.Err, "pool: done: every player within ±%.0f Elo (widest %s ±%.1f), %d games in the pool\n", opts.Target, widest, width, total)
			return nil
		}
		if opts.MaxGames > 0 && total >= opts.MaxGames {
			fmt.Fprintf(opts.Err, "pool: games budget spent: %d games in the pool, widest interval %s ±%.1f (target ±%.0f)\n", total, widest, width, opts.Target)
			return nil
		}
		next := pl.schedule(rs, aname, opts.Target, opts.Parallel)
		if len(next) == 0 {
			return fmt.Errorf("adaptive: no pair to schedule")
		}
		if opts.MaxGames > 0 {
			next = next[:min(len(next), max(1, (opts.MaxGames-total+1)/2))]
		}
		fmt.Fprintf(opts.Err, "pool: widest interval %s ±%.1f (target ±%.0f), %d games in the pool; next %d pairs\n", widest, width, opts.Target, total, len(next))
		if err := pl.play(ctx, next, 0); err != nil {
			return err
		}
	}
}

// open opens every pool player (checkpoints on the pure-Go backend), searching at the move time.
func (pl *pooled) open() error {
	o := pl.opts
	popts := selfplay.PlayerOptions{
		Search: selfplay.Search{MoveTime: o.MoveTime, Gumbel: o.Gumbel, RolloutMix: float32(o.RolloutMix),
			LeavesInFlight: o.LeavesInFlight},
		Variant: o.Variant, Parallel: o.Parallel,
		Load: func(path string) (model.Net, error) { return gonum.Load(path) },
	}
	for _, e := range pl.p.Entries {
		if err := checkVariant(e, o.Variant); err != nil {
			return err
		}
		f, c, err := selfplay.OpenPlayer(e.Player, popts)
		if err != nil {
			return fmt.Errorf("%s: line %d: %s: %w", pl.p.File, e.Line, e.Label, err)
		}
		pl.players, pl.closers = append(pl.players, f), append(pl.closers, c)
		pl.names = append(pl.names, ratedName(e, o.MoveTime))
	}
	return nil
}

// checkVariant refuses a checkpoint trained for another variant than the pool's (as yinsh arena
// does); reference is the pool variant's own network.
func checkVariant(e entry, v env.Variant) error {
	if trained, ok := selfplay.TrainedVariant(e.Player, v); ok && trained != v {
		return fmt.Errorf("%s: %s was trained for %s, the pool plays %s (-variant)", e.Label, e.Spec, trained, v)
	}
	return nil
}

func (pl *pooled) close() {
	for _, c := range pl.closers {
		c.Close()
	}
}

// readResults reads the results already in the directory (every results*.jsonl, as yinsh ratings
// does) and counts the games of each pair.
func (pl *pooled) readResults() error {
	files, _ := filepath.Glob(filepath.Join(pl.opts.Dir, "results*.jsonl"))
	if len(files) == 0 {
		return nil
	}
	rs, err := train.ReadResults(pl.opts.Dir)
	if err != nil {
		return err
	}
	pl.results = rs
	for _, r := range rs {
		pl.games[keyOf(r.A, r.B)] += r.Wins + r.Draws + r.Losses
	}
	return nil
}

// poolGames counts the games between pool players in the results.
func (pl *pooled) poolGames() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	n := 0
	for i := range pl.names {
		for j := i + 1; j < len(pl.names); j++ {
			n += pl.games[keyOf(pl.names[i], pl.names[j])]
		}
	}
	return n
}

// pairSeed is the match seed of the k-th game pair between a and b: the same pair of players
// never replays an opening, and a resumed pool plays what an unbroken one would have.
func pairSeed(base uint64, a, b string, k int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%s\x00%d", base, a, b, k)
	return h.Sum64() >> 1
}

// play plays the jobs, opts.Parallel at a time, appending each game pair's result as it ends.
// total > 0 numbers the progress lines "[done/total]".
func (pl *pooled) play(ctx context.Context, jobs []job, total int) error {
	if len(jobs) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan job)
	var wg sync.WaitGroup
	var firstErr error
	done := 0
	for range min(pl.opts.Parallel, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range ch {
				if err := pl.playPair(ctx, jb, &done, total); err != nil {
					pl.mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					pl.mu.Unlock()
					cancel()
				}
			}
		}()
	}
	pl.mu.Lock()
	for _, jb := range jobs { // counted as played when scheduled: concurrent jobs get their own seeds
		pl.games[keyOf(pl.names[jb.I], pl.names[jb.J])] += 2
	}
	pl.mu.Unlock()
feed:
	for _, jb := range jobs {
		select {
		case ch <- jb:
		case <-ctx.Done():
			break feed
		}
	}
	close(ch)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if errors.Is(firstErr, context.Canceled) {
		return fmt.Errorf("interrupted: the game pairs in flight are lost, the rest are in %s (run again to continue)", filepath.Join(pl.opts.Dir, resultsName))
	}
	return firstErr
}

// playPair plays one game pair and appends its result.
func (pl *pooled) playPair(ctx context.Context, jb job, done *int, total int) error {
	a, b := pl.names[jb.I], pl.names[jb.J]
	t0 := time.Now()
	res, err := selfplay.Match(ctx, pl.players[jb.I], pl.players[jb.J], selfplay.MatchOptions{
		Games: 2, Parallel: 1, Seed: pairSeed(pl.opts.Seed, a, b, jb.K), Variant: pl.opts.Variant,
		OpeningPlies: pl.opts.OpeningPlies,
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s vs %s: %w", a, b, err)
	}
	r := train.ResultOf(res, a, b)
	r.MoveTimeMS = int(pl.opts.MoveTime.Milliseconds()) // Sims 0: bounded by time alone, as arena writes it
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if err := train.AppendResult(filepath.Join(pl.opts.Dir, resultsName), r); err != nil {
		return err
	}
	pl.results = append(pl.results, r)
	pl.played += 2
	*done++
	count := ""
	if total > 0 {
		count = fmt.Sprintf("[%d/%d] ", *done, total)
	}
	el := time.Since(pl.start)
	eta := ""
	if total > 0 && *done < total {
		eta = fmt.Sprintf(", about %s left", (el / time.Duration(*done) * time.Duration(total-*done)).Round(time.Second))
	}
	forfeits := ""
	if res.Forfeits != [2]int{} {
		forfeits = fmt.Sprintf(" (forfeits %d–%d)", res.Forfeits[0], res.Forfeits[1])
	}
	fmt.Fprintf(pl.opts.Err, "%s%s vs %s: %g–%g%s in %s; %s elapsed%s\n", count, a, b, float64(res.Wins)+float64(res.Draws)/2,
		float64(res.Losses)+float64(res.Draws)/2, forfeits, time.Since(t0).Round(time.Millisecond), el.Round(time.Second), eta)
	return nil
}

// halfWidth is half a rating's 95% interval (+Inf when not finite).
func halfWidth(r train.Rating) float64 {
	w := (r.Elo.High - r.Elo.Low) / 2
	if math.IsNaN(w) {
		return math.Inf(1)
	}
	return w
}

// widest returns the pool player (the anchor aside) with the widest interval and its half-width; a
// pool player without a rating (no games) is infinitely wide.
func (pl *pooled) widest(rs []train.Rating, anchor string) (string, float64) {
	byName := map[string]train.Rating{}
	for _, r := range rs {
		byName[r.Player] = r
	}
	name, w := "", -1.0
	for _, n := range pl.names {
		r, ok := byName[n]
		hw := math.Inf(1)
		if ok {
			hw = halfWidth(r)
		}
		if n == anchor {
			continue
		}
		if hw > w {
			name, w = n, hw
		}
	}
	return name, w
}

// schedule picks up to n distinct pairs of pool players to play next (see schedule).
func (pl *pooled) schedule(rs []train.Rating, anchor string, target float64, n int) []job {
	return schedule(pl.names, rs, pl.gamesSnapshot(), anchor, target, n)
}

func (pl *pooled) gamesSnapshot() map[pairKey]int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	m := make(map[pairKey]int, len(pl.games))
	for k, v := range pl.games {
		m[k] = v
	}
	return m
}

// eloInfo is the Fisher information about an Elo difference of one game between players whose
// expected score is p (logistic model): (ln 10 / 400)² · p(1−p).
func eloInfo(p float64) float64 {
	c := math.Ln10 / 400
	return c * c * p * (1 - p)
}

// schedule picks up to n distinct pairs of players (names in pool order, rs the current fit, games
// the games per pair so far) for the next game pairs: those whose Elo difference interval is widest,
// counting how much a game between them can narrow the intervals that are still wider than ±target.
//
// It models the ratings' covariance C from the games played (the Fisher information of a logistic
// Elo model at the fitted ratings, the anchor fixed; a small ridge keeps players without games
// finite and very uncertain). One more game pair between i and j adds information w = 2·I(p_ij)
// along u = e_i − e_j, and (Sherman–Morrison) lowers player k's variance by
// w·(C u)_k² / (1 + w·uᵀC u): largest when the pair's difference variance uᵀC u is wide, their
// strengths are close (p near ½), and the difference is correlated with k's rating. A pair's score
// is that reduction weighted towards the widest intervals (scheduleWeighted, widestPower) over the
// players still wider than the target; the anchor's interval is 0.
func schedule(names []string, rs []train.Rating, games map[pairKey]int, anchor string, target float64, n int) []job {
	return scheduleWeighted(names, rs, games, anchor, target, n, widestPower)
}

// widestPower is the power q of scheduleWeighted's objective. 1 (the sum of the variances) spends
// games on the anchor's lopsided pairs, which narrow every interval a little; higher powers go for the
// widest. On a simulated ladder like the blitz study's (9 players, 0 to +670 Elo, true ratings drawn
// as its fit), after 1,400 games the widest interval was ±68 at q = 1, ±65 at 2, ±63 at 4, ±61 at 8,
// ±60.5 at 16 (mean of 4 seeds), and ±50 took 1,910–2,190 games at q = 8 against 1,960–2,290 at 1.
const widestPower = 8

// scheduleWeighted is schedule with the objective's power q: a pair's score is
// Σ_k (v_k^q − v′_k^q) over the players k still wider than the target, v_k their model variance
// now and v′_k after one more game pair between the two.
func scheduleWeighted(names []string, rs []train.Rating, games map[pairKey]int, anchor string, target float64, n int, q float64) []job {
	elo := map[string]float64{}
	hw := map[string]float64{}
	for _, r := range rs {
		elo[r.Player] = r.Elo.Value
		hw[r.Player] = halfWidth(r)
	}
	// index the players other than the anchor
	idx := make([]int, len(names))
	m := 0
	for i, nm := range names {
		if nm == anchor {
			idx[i] = -1
			continue
		}
		idx[i] = m
		m++
	}
	expected := func(i, j int) float64 {
		return 1 / (1 + math.Pow(10, (elo[names[j]]-elo[names[i]])/400))
	}
	fisher := mat.NewSymDense(max(m, 1), nil)
	ridge := 0.1 * eloInfo(0.5) // a tenth of a game against the anchor
	for k := 0; k < m; k++ {
		fisher.SetSym(k, k, ridge)
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			g := games[keyOf(names[i], names[j])]
			if g == 0 {
				continue
			}
			w := float64(g) * eloInfo(expected(i, j))
			a, b := idx[i], idx[j]
			if a >= 0 {
				fisher.SetSym(a, a, fisher.At(a, a)+w)
			}
			if b >= 0 {
				fisher.SetSym(b, b, fisher.At(b, b)+w)
			}
			if a >= 0 && b >= 0 {
				fisher.SetSym(a, b, fisher.At(a, b)-w)
			}
		}
	}
	var chol mat.Cholesky
	cov := mat.NewSymDense(max(m, 1), nil)
	if !chol.Factorize(fisher) || chol.InverseTo(cov) != nil {
		return nil // cannot happen with the ridge; the caller then stops
	}
	// the players whose interval is still wider than the target (unrated ones are)
	var wide []int
	for i, nm := range names {
		if idx[i] < 0 {
			continue
		}
		if w, ok := hw[nm]; !ok || w > target {
			wide = append(wide, idx[i])
		}
	}
	type cand struct {
		job
		score float64
	}
	var cs []cand
	u := mat.NewVecDense(max(m, 1), nil)
	var cu mat.VecDense
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			u.Zero()
			if a := idx[i]; a >= 0 {
				u.SetVec(a, 1)
			}
			if b := idx[j]; b >= 0 {
				u.SetVec(b, -1)
			}
			cu.MulVec(cov, u)
			s := mat.Dot(u, &cu)
			w := 2 * eloInfo(expected(i, j))
			score := 0.0
			for _, k := range wide {
				v := cov.At(k, k)
				r := w * cu.AtVec(k) * cu.AtVec(k) / (1 + w*s)
				score += math.Pow(v, q) - math.Pow(v-r, q)
			}
			cs = append(cs, cand{job{i, j, games[keyOf(names[i], names[j])] / 2}, score})
		}
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
	var out []job
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.job)
	}
	return out
}
