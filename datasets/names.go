package datasets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// Shard file names: a finished shard is shard-NNNNNN.yz, its number in decimal with at least six
// digits (zero-padded, no other leading zeros), at most nine; a shard being written has a temporary
// name for that name (package atomicfile's scheme). Every reader of a directory of shards recognises
// them through these functions.

const (
	shardPrefix = "shard-"
	shardSuffix = ".yz"
	maxShardNum = 999_999_999
)

// ShardName is the file name of shard n (n ≥ 0): shard-NNNNNN.yz.
func ShardName(n int) string { return fmt.Sprintf("%s%06d%s", shardPrefix, n, shardSuffix) }

// ParseShardName returns n and true when name is exactly ShardName(n) for some n of at most nine
// digits; otherwise false (other names in a shard directory are not shards).
func ParseShardName(name string) (int, bool) {
	num, ok := strings.CutPrefix(name, shardPrefix)
	if !ok {
		return 0, false
	}
	if num, ok = strings.CutSuffix(num, shardSuffix); !ok || len(num) < 6 || len(num) > 9 {
		return 0, false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n > maxShardNum || ShardName(n) != name { // canonical names only
		return 0, false
	}
	return n, true
}

// IsTempShard reports whether name (a base name) is a shard being written, or left by a writer that
// was killed: a temporary file (package atomicfile's scheme, or an earlier one) for a shard name.
func IsTempShard(name string) bool {
	t, ok := atomicfile.Target(name)
	if !ok {
		return false
	}
	_, ok = ParseShardName(t)
	return ok
}
