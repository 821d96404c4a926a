package mcts

import (
	"fmt"
	"sync"
	"sync/atomic"
)

const cacheShards = 16

// Cache is an Evaluator that remembers the evaluations of an inner evaluator by position hash (the
// Zobrist hash of env.State), like lc0's memcache. It holds at most Size entries; when a shard is full
// the oldest entry is replaced (FIFO). Only misses reach the inner evaluator, in one call per Evaluate.
// It is safe for concurrent use. Put it in front of a Batcher, so that hits do not wait for a batch.
type Cache struct {
	inner  Evaluator
	shards [cacheShards]cacheShard
	hits   atomic.Int64
	misses atomic.Int64
}

type cacheShard struct {
	mu      sync.Mutex
	index   map[uint64]int32
	entries []cacheEntry
	next    int // the slot to fill next once the shard is full
	limit   int
}

type cacheEntry struct {
	hash   uint64
	wdl    [3]float32
	priors []float32
}

// NewCache returns a cache of at most size entries (at least 16) around inner.
func NewCache(inner Evaluator, size int) (*Cache, error) {
	if size < cacheShards {
		return nil, fmt.Errorf("mcts: cache: size %d, want at least %d", size, cacheShards)
	}
	c := &Cache{inner: inner}
	for i := range c.shards {
		c.shards[i].limit = size / cacheShards
		c.shards[i].index = make(map[uint64]int32)
	}
	return c, nil
}

func (c *Cache) shard(h uint64) *cacheShard { return &c.shards[h>>60] }

// lookup copies a cached evaluation of r into out and reports whether there was one.
func (c *Cache) lookup(r Request, out *Evaluation) bool {
	h := r.State.Hash()
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.index[h]
	if !ok || len(sh.entries[i].priors) != len(r.Legal) { // a length mismatch is a hash collision
		return false
	}
	e := &sh.entries[i]
	copy(out.Priors, e.priors)
	out.WDL = e.wdl
	return true
}

func (c *Cache) store(r Request, ev *Evaluation) {
	h := r.State.Hash()
	sh := c.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	i, ok := sh.index[h]
	switch {
	case ok:
	case len(sh.entries) < sh.limit:
		i = int32(len(sh.entries))
		sh.entries = append(sh.entries, cacheEntry{})
	default:
		i = int32(sh.next)
		sh.next = (sh.next + 1) % sh.limit
		delete(sh.index, sh.entries[i].hash)
	}
	e := &sh.entries[i]
	e.hash, e.wdl = h, ev.WDL
	e.priors = append(e.priors[:0], ev.Priors...)
	sh.index[h] = i
}

// Evaluate implements Evaluator.
func (c *Cache) Evaluate(reqs []Request, out []Evaluation) error {
	var missIdx []int
	for i, r := range reqs {
		if !c.lookup(r, &out[i]) {
			missIdx = append(missIdx, i)
		}
	}
	c.hits.Add(int64(len(reqs) - len(missIdx)))
	c.misses.Add(int64(len(missIdx)))
	if len(missIdx) == 0 {
		return nil
	}
	if len(missIdx) == len(reqs) {
		if err := c.inner.Evaluate(reqs, out); err != nil {
			return err
		}
	} else {
		mr := make([]Request, len(missIdx))
		mo := make([]Evaluation, len(missIdx))
		for k, i := range missIdx {
			mr[k], mo[k] = reqs[i], out[i] // Priors share the caller's backing arrays
		}
		if err := c.inner.Evaluate(mr, mo); err != nil {
			return err
		}
		for k, i := range missIdx {
			out[i].WDL = mo[k].WDL
		}
	}
	for _, i := range missIdx {
		c.store(reqs[i], &out[i])
	}
	return nil
}

// CacheStats counts cache lookups.
type CacheStats struct {
	Hits, Misses int64
	Entries      int
}

// Stats returns the hit and miss counts and the number of entries held.
func (c *Cache) Stats() CacheStats {
	st := CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		st.Entries += len(sh.index)
		sh.mu.Unlock()
	}
	return st
}
