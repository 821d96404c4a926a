package mcts

import (
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Batcher is an Evaluator that gathers the requests of many concurrent callers (one search per
// goroutine) into batches for an inner evaluator, like OpenSpiel's vpevaluator, KataGo's nneval and
// lc0's backends: a collector takes up to MaxBatch leaves, or whatever has arrived Wait after the first
// leaf of a batch, runs one inner evaluation and answers every caller. A caller's request larger than
// the room left in a batch is split across batches. It keeps a histogram of batch sizes.
//
// Evaluate blocks until the caller's leaves are answered and is safe for concurrent use. The inner
// evaluator is called from the collector goroutines only (one per worker), never concurrently unless
// Workers > 1.
type Batcher struct {
	inner    Evaluator
	maxBatch int
	wait     time.Duration
	eager    bool

	queue chan *submission
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
	pool  sync.Pool

	mu   sync.Mutex
	hist []int64 // hist[k]: batches of k leaves
}

// BatcherOptions configures a Batcher.
type BatcherOptions struct {
	// MaxBatch is the most leaves per inner evaluation (at least 1).
	MaxBatch int
	// Wait is how long a collector waits for a batch to fill once its first leaf has arrived
	// (0: 1 ms).
	Wait time.Duration
	// Workers is the number of collectors, each running inner evaluations (0: 1).
	Workers int
	// Eager makes a collector take only the leaves already waiting when it starts a batch, never
	// waiting for more (Wait is ignored): no latency when few searches share the evaluator (an
	// arena's two or eight games, one engine), batches that grow by themselves under load.
	Eager bool
}

type submission struct {
	reqs    []Request
	out     []Evaluation
	taken   int // leaves handed to batches so far
	pending int // leaves not yet answered
	err     error
	reply   chan error
}

// NewBatcher starts a Batcher around inner. Call Close to stop its collectors.
func NewBatcher(inner Evaluator, opt BatcherOptions) (*Batcher, error) {
	if opt.MaxBatch < 1 {
		return nil, fmt.Errorf("mcts: batcher: max batch %d, want at least 1", opt.MaxBatch)
	}
	if opt.Wait < 0 || opt.Workers < 0 {
		return nil, fmt.Errorf("mcts: batcher: negative wait %v or workers %d", opt.Wait, opt.Workers)
	}
	if opt.Wait == 0 {
		opt.Wait = time.Millisecond
	}
	if opt.Workers == 0 {
		opt.Workers = 1
	}
	b := &Batcher{
		inner:    inner,
		maxBatch: opt.MaxBatch,
		wait:     opt.Wait,
		eager:    opt.Eager,
		queue:    make(chan *submission),
		done:     make(chan struct{}),
		hist:     make([]int64, opt.MaxBatch+1),
	}
	b.pool.New = func() any { return &submission{reply: make(chan error, 1)} }
	b.wg.Add(opt.Workers)
	for range opt.Workers {
		go b.collect()
	}
	return b, nil
}

// Evaluate implements Evaluator: it submits the leaves and waits for their answers.
func (b *Batcher) Evaluate(reqs []Request, out []Evaluation) error {
	if len(reqs) == 0 {
		return nil
	}
	s := b.pool.Get().(*submission)
	s.reqs, s.out, s.taken, s.pending, s.err = reqs, out, 0, len(reqs), nil
	select {
	case b.queue <- s:
	case <-b.done:
		b.pool.Put(s)
		return ErrClosed
	}
	err := <-s.reply
	s.reqs, s.out = nil, nil
	b.pool.Put(s)
	return err
}

// part is the slice [lo, hi) of a submission's leaves placed in a batch.
type part struct {
	s      *submission
	lo, hi int
}

func (b *Batcher) collect() {
	defer b.wg.Done()
	reqs := make([]Request, 0, b.maxBatch)
	outs := make([]Evaluation, 0, b.maxBatch)
	parts := make([]part, 0, b.maxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var carry *submission // a submission with leaves not yet placed in a batch
	take := func(s *submission) {
		n := min(len(s.reqs)-s.taken, b.maxBatch-len(reqs))
		lo := s.taken
		reqs = append(reqs, s.reqs[lo:lo+n]...)
		outs = append(outs, s.out[lo:lo+n]...) // Priors share the caller's backing arrays
		parts = append(parts, part{s, lo, lo + n})
		s.taken += n
		carry = nil
		if s.taken < len(s.reqs) {
			carry = s
		}
	}
	for {
		reqs, outs, parts = reqs[:0], outs[:0], parts[:0]
		if carry != nil {
			take(carry)
		} else {
			select {
			case s := <-b.queue:
				take(s)
			case <-b.done:
				return
			}
		}
		if b.eager {
		drain:
			for len(reqs) < b.maxBatch {
				select {
				case s := <-b.queue:
					take(s)
				default:
					break drain
				}
			}
		} else if len(reqs) < b.maxBatch {
			timer.Reset(b.wait)
		fill:
			for len(reqs) < b.maxBatch {
				select {
				case s := <-b.queue:
					take(s)
				case <-timer.C:
					break fill
				case <-b.done:
					break fill
				}
			}
			timer.Stop()
		}
		err := b.inner.Evaluate(reqs, outs)
		// recorded before any caller is answered, so Stats read after a call returns counts its batch
		b.mu.Lock()
		b.hist[len(reqs)]++
		b.mu.Unlock()
		k := 0
		for _, p := range parts {
			for i := p.lo; i < p.hi; i++ {
				p.s.out[i].WDL = outs[k].WDL
				k++
			}
			if err != nil {
				p.s.err = err
			}
			p.s.pending -= p.hi - p.lo
			if p.s.pending == 0 {
				p.s.reply <- p.s.err
			}
		}
		select {
		case <-b.done:
			if carry != nil {
				// Leaves of carry already evaluated were answered in place; the rest are not.
				carry.reply <- ErrClosed
				carry = nil
			}
			return
		default:
		}
	}
}

// Close stops the collectors after the batch in progress; pending and later calls get ErrClosed. It
// logs the batch statistics at debug level.
func (b *Batcher) Close() error {
	b.once.Do(func() {
		close(b.done)
		b.wg.Wait()
		st := b.Stats()
		slog.Debug("mcts: batcher closed", "batches", st.Batches, "leaves", st.Leaves, "mean", st.Mean(), "full", st.FullFraction())
	})
	return nil
}

// BatchStats is a batch-size histogram.
type BatchStats struct {
	// Hist[k] is the number of inner evaluations of k leaves; len(Hist) = MaxBatch+1.
	Hist    []int64
	Batches int64
	Leaves  int64
}

// Stats returns a copy of the batch-size histogram so far.
func (b *Batcher) Stats() BatchStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := BatchStats{Hist: append([]int64(nil), b.hist...)}
	for k, n := range b.hist {
		st.Batches += n
		st.Leaves += int64(k) * n
	}
	return st
}

// Mean returns the mean batch size (0 with no batches).
func (s BatchStats) Mean() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Leaves) / float64(s.Batches)
}

// FullFraction returns the fraction of batches that had MaxBatch leaves (0 with no batches).
func (s BatchStats) FullFraction() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Hist[len(s.Hist)-1]) / float64(s.Batches)
}
