package train

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// ReanalyseMetrics summarises a generation's Reanalyse phase (config reanalyse).
type ReanalyseMetrics struct {
	Games int `json:"games"` // games reanalysed for this generation, including Recovered
	// Recovered were recorded before the run was killed and resumed (not searched again).
	Recovered int `json:"recovered,omitempty"`
	// Candidates is the number of self-play games they were drawn from.
	Candidates int `json:"candidates"`
	Searches   int `json:"searches"` // positions searched again
	// PolicyChange is the mean total-variation distance (½ Σ|p − p′|, 0..1) between a position's
	// recorded and new policy target; ValueChange the mean |Δ(win − loss)| of its root value (0..2).
	PolicyChange float64 `json:"policy_change"`
	ValueChange  float64 `json:"value_change"`
	GamesPerHour float64 `json:"games_per_hour"`
	Seconds      float64 `json:"seconds"`
}

// ReanalysePrefix starts the generator of a reanalysed game: "reanalyse:gen-NNNN", the generation
// whose Reanalyse phase made it.
const ReanalysePrefix = "reanalyse:"

// reanalysedID is the record ID of the copy of game id that generation g's Reanalyse makes.
func reanalysedID(id uint64, g int) uint64 { return mix64(id ^ mix64(uint64(g)+0x7265616e616c7973)) }

// generationOf returns the generation of a game's generator: NNNN of gen-NNNN (self-play) or of
// reanalyse:gen-NNNN (reanalysed), with whether it is reanalysed; ok is false for any other
// generator (pretrain expert games, imports).
func generationOf(generator string) (g int, reanalysed, ok bool) {
	name, reanalysed := strings.CutPrefix(generator, ReanalysePrefix)
	digits, found := strings.CutPrefix(name, "gen-")
	if !found {
		return 0, false, false
	}
	g, err := strconv.Atoi(digits)
	if err != nil || g < 0 {
		return 0, false, false
	}
	return g, reanalysed, true
}

// reanalyseCandidates reads the run's newest shards back to the generation reanalyse.generations
// before g: it returns the self-play games of generations g-K .. g-1 in (generation, ID) order and
// the IDs of the reanalysed games of g already recorded (a resumed run).
func reanalyseCandidates(gdir string, g, k int) ([]*datasets.Record, map[uint64]bool, error) {
	shards, err := datasets.ListShards(gdir)
	if err != nil {
		return nil, nil, err
	}
	var cands []*datasets.Record
	done := map[uint64]bool{}
	for i := len(shards) - 1; i >= 0; i-- {
		recs, err := datasets.ReadShard(shards[i])
		if err != nil {
			return nil, nil, err
		}
		newest := -1
		for _, r := range recs {
			rg, re, ok := generationOf(r.Generator)
			if !ok {
				continue
			}
			newest = max(newest, rg)
			switch {
			case re && rg == g:
				done[r.ID] = true
			case !re && rg >= g-k && rg < g:
				cands = append(cands, r)
			}
		}
		if newest >= 0 && newest < g-k {
			break // every game before this shard is older still
		}
	}
	slices.SortFunc(cands, func(a, b *datasets.Record) int {
		ga, _, _ := generationOf(a.Generator)
		gb, _, _ := generationOf(b.Generator)
		return cmp.Or(cmp.Compare(ga, gb), cmp.Compare(a.ID, b.ID))
	})
	return cands, done, nil
}

// reanalysePhase is generation g's Reanalyse: reanalyse.games self-play games, drawn uniformly
// (seeded by the run seed and g) from the generations before g, are searched again by net (the best
// network, which played g's self-play) with the self-play search, and the copies with the new
// targets are written to the run's games (generator reanalyse:gen-g, IDs reanalysedID) and added to
// the window, in draw order, so a seeded run is reproducible and a killed one resumes where it
// stopped. Nil metrics: nothing to reanalyse yet (the first generation). The caller prefixes
// errors with the phase.
func reanalysePhase(ctx context.Context, o Options, net model.Net, gdir string, w *datasets.Window, g int) (*ReanalyseMetrics, error) {
	cfg := &o.Config
	rc := cfg.Reanalyse
	cands, done, err := reanalyseCandidates(gdir, g, rc.Generations)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(g)^0x7265616e616c7365))
	pick := rng.Perm(len(cands))[:min(rc.Games, len(cands))]
	slices.Sort(pick)
	m := &ReanalyseMetrics{Candidates: len(cands)}
	var todo []*datasets.Record
	for _, i := range pick {
		if done[reanalysedID(cands[i].ID, g)] {
			m.Recovered++
			continue
		}
		todo = append(todo, cands[i])
	}
	m.Games = m.Recovered
	if m.Recovered > 0 {
		o.Log.Info("reanalyse: games of this generation already recorded", "generation", g, "recorded", m.Recovered, "to_search", len(todo))
	}
	if len(todo) == 0 {
		return m, nil
	}
	b, perGame, err := cfg.selfPlayEvaluator(net)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	writer, err := datasets.NewWriter(gdir, datasets.WriterOptions{GamesPerShard: max(len(todo)/4, 1), Logger: o.Log})
	if err != nil {
		return nil, err
	}
	gen := ReanalysePrefix + GenName(g)
	inOrder := newGameOrder(nil, 0, len(todo), func(r *datasets.Record) error {
		if err := writer.Append(r); err != nil {
			return err
		}
		fault("reanalyse.game")
		return w.Add(r)
	})
	var bar *progress.Bar
	if o.Progress != nil {
		bar = progress.New(o.Progress, len(todo), "reanalyse", 15*time.Second)
	}
	start := time.Now()
	st, err := selfplay.Reanalyse(ctx, cfg.SelfPlaySettings(gen), b, todo, selfplay.ReanalyseOptions{
		Parallel: cfg.SelfPlay.Parallel, Seed: cfg.Seed ^ uint64(g), Evaluator: perGame,
		OnGame: func(k int, r *datasets.Record) error {
			r.ID, r.Generator = reanalysedID(todo[k].ID, g), gen
			bar.Add(1, "")
			return inOrder.done(k, r)
		},
	})
	if ferr := inOrder.flush(); err == nil {
		err = ferr
	}
	if cerr := writer.Close(); err == nil {
		err = cerr
	}
	bar.Finish()
	if err != nil {
		return nil, err
	}
	el := time.Since(start)
	m.Games += st.Games
	m.Searches = st.Searches
	if st.Searches > 0 {
		m.PolicyChange = st.PolicyChange / float64(st.Searches)
		m.ValueChange = st.ValueChange / float64(st.Searches)
	}
	m.Seconds = el.Seconds()
	m.GamesPerHour = float64(st.Games) / el.Hours()
	return m, nil
}
