package train

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/model"
)

// BestFile is RUN/best.ckpt: the best-rated generation's network, rewritten after every evaluation
// that changes which one it is (weights only; its metadata records the generation, so arena and
// ratings call it gen-NNNN, as training does).
const BestFile = "best.ckpt"

// bestRated returns the run's best-rated generation in ratings (player → Elo, as Metrics.Ratings):
// the highest rating, a tie going to the later generation; false when no generation is rated.
func bestRated(ratings map[string]float64) (int, bool) {
	best, found := 0, false
	for p, elo := range ratings {
		g, ok := ParseGenName(p)
		if !ok {
			continue
		}
		if !found || elo > ratings[GenName(best)] || (elo == ratings[GenName(best)] && g > best) {
			best, found = g, true
		}
	}
	return best, found
}

// keepCheckpoints, after generation st.Generation, makes RUN/best.ckpt the best-rated generation's
// network (the best network by the gate when nothing is rated yet) and, with checkpoints.keep_optimizer
// latest_and_best, rewrites as weights only every checkpoint but the latest's (which --resume
// trains on) and the best network's (the gate's, which self-play uses; once replaced it never comes
// back, so its optimiser state is not needed again). The best-rated generation is not kept apart:
// it can fall behind and come back on top as more games are rated, after its state was dropped;
// its weights are in RUN/best.ckpt. It returns the best-rated generation.
func keepCheckpoints(o Options, st *State, ratings map[string]float64) (int, error) {
	rated, ok := bestRated(ratings)
	if !ok {
		rated = bestGen(st.Best)
	}
	if err := updateBest(o.Dir, rated); err != nil {
		return rated, err
	}
	if o.Config.Checkpoints.KeepOptimizer != KeepLatestAndBest {
		return rated, nil
	}
	return rated, dropOptimizers(o.Dir, st.Generation, bestGen(st.Current), bestGen(st.Best))
}

// updateBest writes generation g's checkpoint, weights only, as RUN/best.ckpt (atomically), unless
// RUN/best.ckpt already is generation g's network.
func updateBest(dir string, g int) error {
	path := filepath.Join(dir, BestFile)
	src := filepath.Join(dir, ckptPath(g))
	if h, err := model.ReadMetadata(path); err == nil && h.Meta.Run != nil && h.Meta.Run.Generation == g {
		if s, err := model.ReadMetadata(src); err == nil && s.Meta.Run != nil && s.Meta.Run.ID == h.Meta.Run.ID && s.Meta.Step == h.Meta.Step {
			return nil
		}
	}
	b, err := weightsOnly(src)
	if err != nil {
		return fmt.Errorf("best network: %w", err)
	}
	return atomicfile.WriteFile(path, b)
}

// dropOptimizers rewrites the checkpoints of generations 0..done that still hold optimiser state,
// except those of the generations in keep, as weights only (model.Checkpoint.WithoutOptimizer;
// every backend loads them, for evaluation and play). Each rewrite is atomic. Every generation's
// header is read each time (a few hundred bytes each), not only the last few: a run resumed with
// keep_optimizer changed from all to latest_and_best sheds the old optimiser states too.
func dropOptimizers(dir string, done int, keep ...int) error {
	kept := map[int]bool{}
	for _, g := range keep {
		kept[g] = true
	}
	for g := 0; g <= done; g++ {
		if kept[g] {
			continue
		}
		path := filepath.Join(dir, ckptPath(g))
		h, err := model.ReadMetadata(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if h.Meta.Optimizer == nil {
			continue
		}
		b, err := weightsOnly(path)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(path, b); err != nil {
			return err
		}
	}
	return nil
}

// weightsOnly is the encoding checkpoint retention rewrites the training checkpoint at path to: the
// same checkpoint without its optimiser state (model.Checkpoint.WithoutOptimizer; one without
// optimiser state is re-encoded as it is). The run manifest
// records its sha256 beside the file's, so that a checkpoint rewritten by retention after the commit
// that recorded it (or by a retention cut short by a kill) is still recognised as that checkpoint.
func weightsOnly(path string) ([]byte, error) {
	ck, err := model.ReadCheckpoint(path)
	if err != nil {
		return nil, err
	}
	if ck.Meta.Optimizer != nil {
		if ck, err = ck.WithoutOptimizer(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return model.EncodeCheckpoint(ck)
}
