package train

import (
	"strconv"
	"strings"
)

// Generation names: generation g's network is GenName(g), "gen-NNNN" (g in decimal, zero-padded to
// four digits, more digits from 10000 on), and its checkpoint file in a run's checkpoints/ directory
// is CheckpointName(g), "gen-NNNN.ckpt". Everything that reads these names back (results, plots,
// the best network's path) parses them with ParseGenName and ParseCheckpointName.

const (
	genPrefix  = "gen-"
	ckptSuffix = ".ckpt"
)

// CheckpointName is the file name of generation g's checkpoint: GenName(g) + ".ckpt".
func CheckpointName(g int) string { return GenName(g) + ckptSuffix }

// ParseGenName returns g and true when s is exactly GenName(g) for some g ≥ 0; otherwise false
// (another player's name: "random", "rollout:200", a file).
func ParseGenName(s string) (int, bool) {
	num, ok := strings.CutPrefix(s, genPrefix)
	if !ok || len(num) < 4 || len(num) > 9 {
		return 0, false
	}
	for i := 0; i < len(num); i++ {
		if num[i] < '0' || num[i] > '9' {
			return 0, false
		}
	}
	g, err := strconv.Atoi(num)
	if err != nil || GenName(g) != s { // canonical names only
		return 0, false
	}
	return g, true
}

// ParseCheckpointName returns g and true when name (a base name) is exactly CheckpointName(g);
// otherwise false.
func ParseCheckpointName(name string) (int, bool) {
	s, ok := strings.CutSuffix(name, ckptSuffix)
	if !ok {
		return 0, false
	}
	return ParseGenName(s)
}
