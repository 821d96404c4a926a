package mcts

import (
	"sync"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// benchPositions are mid-game standard positions: random placement and 14..28 random actions.
func benchPositions(b *testing.B, k int) []*env.State {
	ps := make([]*env.State, k)
	for i := range ps {
		ps[i] = midgame(b, uint64(1000+i), 14+2*(i%8))
	}
	return ps
}

// benchSearch runs searches of sims simulations from fresh trees over the positions, one goroutine,
// and reports simulations per second and bytes per node.
func benchSearch(b *testing.B, cfg Config, ev Evaluator) {
	ps := benchPositions(b, 8)
	tr := newTree(b, cfg, ev)
	rng := seeded(1)
	var sims, nodes, bytes, pv int
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		tr.Reset(ps[i%len(ps)])
		i++
		res, err := tr.Search(rng)
		if err != nil {
			b.Fatal(err)
		}
		sims += res.Simulations
		nodes += tr.Nodes()
		bytes += tr.Bytes()
		pv += len(res.PV)
	}
	b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
	b.ReportMetric(float64(pv)/float64(i), "pv-len")
	b.ReportMetric(float64(bytes)/float64(nodes), "bytes/node")
}

func BenchmarkSearchUniform(b *testing.B) {
	for _, lif := range []int{1, 8} {
		b.Run(map[int]string{1: "inflight1", 8: "inflight8"}[lif], func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.LeavesInFlight = 800, lif
			benchSearch(b, cfg, Uniform{})
		})
	}
}

func BenchmarkSearchUniformGumbel(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Gumbel = 200, true
	benchSearch(b, cfg, Uniform{})
}

// hashValue is a cheap evaluator with informative-looking values: uniform priors and a value in
// [-0.9, 0.9] derived from the position hash, so that trees grow deeper than with Uniform's constant 0.
var hashValue = EvaluatorFunc(func(reqs []Request, out []Evaluation) error {
	for i, r := range reqs {
		fillUniform(out[i].Priors)
		w := float32(r.State.Hash()%1000) / 1000 * 0.9
		out[i].WDL = [3]float32{w, 0.1, 0.9 - w}
	}
	return nil
})

func BenchmarkSearchHashValue(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations = 800
	benchSearch(b, cfg, hashValue)
}

func BenchmarkSearchUniform10k(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations = 10000
	benchSearch(b, cfg, Uniform{})
}

// BenchmarkBatcher64x32 runs 64 concurrent self-play workers (one leaf in flight each) through a
// Batcher of 32 with the default 1 ms wait, and reports the fraction of full batches. Each worker
// plays moves (search of 200 simulations, then Advance) as self-play does, so that searches do not all
// end together except at the very end.
func BenchmarkBatcher64x32(b *testing.B) {
	const workers, moves = 64, 6
	ps := benchPositions(b, workers)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.LeavesInFlight = 200, 1
	var full, mean float64
	var sims int
	for b.Loop() {
		bt, err := NewBatcher(Uniform{}, BatcherOptions{MaxBatch: 32, Wait: time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i, s := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tr := newTree(b, cfg, bt)
				tr.Reset(s)
				rng := seeded(uint64(i))
				n := 0
				for range moves {
					if tr.Root().IsTerminal() {
						tr.Reset(s)
					}
					res, err := tr.Search(rng)
					if err != nil {
						b.Error(err)
						return
					}
					n += res.Simulations
					if err := tr.Advance(res.Action); err != nil {
						b.Error(err)
						return
					}
				}
				mu.Lock()
				sims += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		bt.Close()
		st := bt.Stats()
		full, mean = st.FullFraction(), st.Mean()
	}
	b.ReportMetric(full, "full-batches")
	b.ReportMetric(mean, "mean-batch")
	b.ReportMetric(float64(sims)/b.Elapsed().Seconds(), "sims/s")
}

// BenchmarkSearchTimedGumbel is a purely timed Gumbel search (a 10,000,000-simulation cap, 20 ms on
// the wall clock), as an engine with --gumbel and a move time runs it: its memory (-benchmem) is
// that of the simulations run, not of the cap.
func BenchmarkSearchTimedGumbel(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Simulations, cfg.Gumbel, cfg.MoveTime = 10_000_000, true, 20*time.Millisecond
	benchSearch(b, cfg, hashValue)
}
