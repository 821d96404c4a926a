package web

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// shardCache holds the games of each shard file as last read, by resolved path, so that a listing
// (event streams list a run every poll) reads only the shards that changed. An entry is valid while
// the file's size and modification time are the same (a finished shard never changes; one being
// written grows). Safe for concurrent use: listers share entries but never each other's state, so
// one listing cannot make another drop or reread what it found.
type shardCache struct {
	mu      sync.Mutex
	entries map[string]shardSummary
	reads   int64 // shards read into the cache, for tests
}

// shardSummary is the listing of one shard file.
type shardSummary struct {
	size  int64
	mtime time.Time
	games []gameSummary
}

// get returns the games of path as cached when the file still has this size and time.
func (c *shardCache) get(path string, fi os.FileInfo) ([]gameSummary, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[path]
	if !ok || e.size != fi.Size() || !e.mtime.Equal(fi.ModTime()) {
		return nil, false
	}
	return e.games, true
}

// put records the games read from path, whose file had this size and time before it was read.
func (c *shardCache) put(path string, fi os.FileInfo, games []gameSummary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]shardSummary{}
	}
	c.entries[path] = shardSummary{size: fi.Size(), mtime: fi.ModTime(), games: games}
	c.reads++
}

// prune drops the entries under dir that a listing did not see (seen: the paths it found) and
// whose file is gone (a temporary shard renamed into a finished one): what another listing that
// runs meanwhile has just cached is kept.
func (c *shardCache) prune(dir string, seen map[string]bool) {
	prefix := dir + string(filepath.Separator)
	c.mu.Lock()
	var gone []string
	for p := range c.entries {
		if strings.HasPrefix(p, prefix) && !seen[p] {
			gone = append(gone, p)
		}
	}
	c.mu.Unlock()
	for _, p := range gone {
		if _, err := os.Lstat(p); err == nil {
			continue
		}
		c.mu.Lock()
		delete(c.entries, p)
		c.mu.Unlock()
	}
}

// readCount returns the number of shards read into the cache so far.
func (c *shardCache) readCount() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}
