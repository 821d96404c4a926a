package datasets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// A directory of shards: its finished shards in number order, its temporary ones, and every record
// they hold.

// ListShards returns the finished shards of dir (temporary files excluded) in shard-number order.
func ListShards(dir string) ([]string, error) {
	nums, err := shardNumbers(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(nums))
	for i, n := range nums {
		out[i] = filepath.Join(dir, ShardName(n))
	}
	return out, nil
}

func shardNumbers(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	var nums []int
	for _, e := range ents {
		if n, ok := ParseShardName(e.Name()); ok && e.Type().IsRegular() {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// TempShards returns the temporary shards of dir (see IsTempShard): those of a writer at work, or
// left by one that was killed (a Writer with Recover turns them into finished shards).
func TempShards(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	var out []string
	for _, e := range ents {
		if IsTempShard(e.Name()) && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// ScanDir calls fn for every record of every finished shard of dir, in order (index is the record's
// 0-based position in its shard). It stops at the first damaged shard or fn error.
func ScanDir(dir string, fn func(shard string, index int, r *Record) error) error {
	shards, err := ListShards(dir)
	if err != nil {
		return err
	}
	for _, path := range shards {
		if err := scanShard(path, fn); err != nil {
			return err
		}
	}
	return nil
}

func scanShard(path string, fn func(shard string, index int, r *Record) error) error {
	sr, err := OpenShard(path)
	if err != nil {
		return err
	}
	defer sr.Close()
	for i := 0; ; i++ {
		rec, err := sr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(path, i, rec); err != nil {
			return err
		}
	}
}

// ReadDir reads every record of every finished shard of dir, in order.
func ReadDir(dir string) ([]*Record, error) {
	var out []*Record
	err := ScanDir(dir, func(_ string, _ int, r *Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// RecordedIDs returns the IDs of the games in dir's finished shards: what a resumable writer of
// numbered, seeded games (self-play, expert games) checks before playing a game again.
func RecordedIDs(dir string) (map[uint64]bool, error) {
	ids := map[uint64]bool{}
	err := ScanDir(dir, func(_ string, _ int, r *Record) error {
		ids[r.ID] = true
		return nil
	})
	return ids, err
}
