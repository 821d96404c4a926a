package train

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// reproConfig is a short seeded run on a fixed number of threads: more games than play at once, so that games finish
// out of their number order, and training on every generation.
func reproConfig(t *testing.T) Config {
	t.Helper()
	cfg := tinyConfig(t, 2)
	// the tiny preset's full 16-channel net, not tinyConfig's 4 channels: the games' finishing order
	// must vary between runs for this test to fail without the fix (checked with this net)
	cfg.Net.Channels, cfg.Net.PolicyChannels = 0, 0
	cfg.Threads = 2
	cfg.Seed = 7
	cfg.SelfPlay.Games = 8
	cfg.SelfPlay.Parallel = 4
	cfg.Training.StepsPerGeneration = 4
	cfg.SelfPlay.RolloutMix, cfg.Evaluation.RolloutMix = 0.5, 0.5 // as the quickstart
	return cfg
}

// reproducible is what two seeded threads: 1 runs must have in common: the self-play records in
// shard order, the shards' bytes, the metrics without their clocks and the evaluation results.
type reproducible struct {
	Records []*datasets.Record
	Shards  map[string][]byte
	Metrics []Metrics
	Results []Result
}

func readReproducible(t *testing.T, dir string) reproducible {
	t.Helper()
	var r reproducible
	gdir := filepath.Join(dir, gamesDir)
	recs, err := datasets.ReadDir(gdir)
	if err != nil {
		t.Fatal(err)
	}
	r.Records = recs
	shards, err := datasets.ListShards(gdir)
	if err != nil {
		t.Fatal(err)
	}
	r.Shards = map[string][]byte{}
	for _, s := range shards {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		r.Shards[filepath.Base(s)] = b
	}
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		m.Time, m.Elapsed = "", 0 // clocks
		sp := &m.SelfPlay
		sp.GamesPerHour, sp.EvalsPerSec, sp.MeanBatch, sp.Seconds = 0, 0, 0, 0 // rates and batching
		m.Train.SamplesPerSec, m.Train.Seconds = 0, 0
		r.Metrics = append(r.Metrics, m)
	}
	if r.Results, err = ReadResults(dir); err != nil {
		t.Fatal(err)
	}
	for i := range r.Results {
		r.Results[i].Time = ""
	}
	return r
}

// Two runs of one seed with a fixed thread count are the same run: the same games in the same
// shards, the same losses, evaluation results and ratings (README.md, "Reproducibility", says what
// varies). The runs use two threads (yinsh train sets GOMAXPROCS from threads), not one: on one
// thread the parallel games rarely finish in a different order from run to run, so the test would
// not see a run that records games in the order they finish (it did, before gameOrder).
func TestReproducibleRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var runs [2]reproducible
	for i := range runs {
		dir := filepath.Join(t.TempDir(), "run")
		if err := Train(context.Background(), Options{Dir: dir, Config: reproConfig(t), Backend: gonumBackend}); err != nil {
			t.Fatal(err)
		}
		runs[i] = readReproducible(t, dir)
	}
	a, b := runs[0], runs[1]
	if len(a.Records) != 16 {
		t.Fatalf("%d records, want 16", len(a.Records))
	}
	// the shards hold the games in number order, whichever finished first
	cfg := reproConfig(t)
	for i, r := range a.Records {
		if want := selfplay.GameSeed(cfg.Seed, i); r.ID != want {
			t.Fatalf("record %d is game %s, want game %d (seed %d): not in game-number order", i, gameNumber(cfg.Seed, r.ID, len(a.Records)), i, want)
		}
	}
	for i := range a.Records {
		if i >= len(b.Records) || !reflect.DeepEqual(a.Records[i], b.Records[i]) {
			t.Fatalf("record %d differs: game %d vs %s", i, a.Records[i].ID, recID(b.Records, i))
		}
	}
	if len(a.Records) != len(b.Records) {
		t.Fatalf("%d records vs %d", len(a.Records), len(b.Records))
	}
	if !reflect.DeepEqual(a.Shards, b.Shards) {
		t.Errorf("shard bytes differ")
	}
	for i := range a.Metrics {
		if i >= len(b.Metrics) || !reflect.DeepEqual(a.Metrics[i], b.Metrics[i]) {
			ja, _ := json.Marshal(a.Metrics[i])
			jb := []byte("none")
			if i < len(b.Metrics) {
				jb, _ = json.Marshal(b.Metrics[i])
			}
			t.Errorf("metrics of generation %d differ:\n%s\n%s", i+1, ja, jb)
		}
	}
	if a.Metrics[0].Train.Steps == 0 {
		t.Errorf("generation 1 did not train: the test compares no losses")
	}
	if !reflect.DeepEqual(a.Results, b.Results) {
		t.Errorf("results differ:\n%+v\n%+v", a.Results, b.Results)
	}
}

func recID(rs []*datasets.Record, i int) string {
	if i >= len(rs) {
		return "none"
	}
	return fmt.Sprint(rs[i].ID)
}

// gameNumber returns the number of the game with seed id ("?" when none of the first n).
func gameNumber(seed, id uint64, n int) string {
	for i := 0; i < n; i++ {
		if selfplay.GameSeed(seed, i) == id {
			return fmt.Sprint(i)
		}
	}
	return "?"
}

// gameOrder hands games on in number order whatever order they finish in; those after a game that
// never finished go at the end, in order; an open-ended worker's count (1 << 30 games) costs nothing.
func TestGameOrder(t *testing.T) {
	for _, c := range []struct {
		indices     []int
		first, n    int
		finish      []int
		before, all []uint64
	}{
		{nil, 10, 4, []int{12, 10, 13, 11}, []uint64{10, 11, 12, 13}, []uint64{10, 11, 12, 13}},
		{[]int{7, 3, 5}, 0, 0, []int{5, 7, 3}, []uint64{3, 5, 7}, []uint64{3, 5, 7}},
		{nil, 0, 1 << 30, []int{2, 0, 3}, []uint64{0}, []uint64{0, 2, 3}}, // game 1 never finished
	} {
		var got []uint64
		q := newGameOrder(c.indices, c.first, c.n, func(r *datasets.Record) error { got = append(got, r.ID); return nil })
		for _, i := range c.finish {
			if err := q.done(i, &datasets.Record{ID: uint64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(got, c.before) {
			t.Errorf("%+v: handed on %v before the end, want %v", c, got, c.before)
		}
		if err := q.flush(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.all) {
			t.Errorf("%+v: handed on %v, want %v", c, got, c.all)
		}
	}
}
