//go:build torch

package torch

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// perturbed returns a checkpoint of a fresh gonum net with every tensor randomised a little
// (batch-norm γ, β and running statistics included), so that comparisons do not rely on the special
// values of a fresh initialisation.
func perturbed(t testing.TB, cfg model.Config, seed uint64, opt model.OptimizerConfig) *model.Checkpoint {
	t.Helper()
	g, err := gonum.New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetOptimizer(opt); err != nil {
		t.Fatal(err)
	}
	c, err := g.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, s := range model.Specs(cfg, model.KindTraining) {
		d := c.Tensors[s.Name].Data
		isBN := !model.IsDecayed(s.Name) && strings.HasSuffix(s.Name, ".weight")
		for i := range d {
			switch {
			case strings.HasSuffix(s.Name, "running_var"):
				d[i] = 0.5 + rng.Float32()
			case strings.HasSuffix(s.Name, "running_mean"), strings.HasSuffix(s.Name, ".bias"):
				d[i] += float32(rng.NormFloat64() * 0.2)
			case isBN:
				d[i] = 0.5 + rng.Float32()
			default:
				d[i] *= 1 + float32(rng.NormFloat64()*0.1)
			}
		}
	}
	return c
}

func tinyConfig(t testing.TB) model.Config {
	t.Helper()
	c, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newTorch(t testing.TB, c *model.Checkpoint, o Options) *Net {
	t.Helper()
	n, err := FromCheckpoint(c, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func newGonum(t testing.TB, c *model.Checkpoint) *gonum.Net {
	t.Helper()
	n, err := gonum.FromCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// predict runs net.Predict on the batch's positions and returns policy probabilities (masked
// softmax), raw WDL logits and raw policy logits.
func predict(t testing.TB, net model.Net, b *model.Batch) (probs, wdl, logits []float32) {
	t.Helper()
	logits = make([]float32, b.N*env.NumActions)
	wdl = make([]float32, b.N*model.NumWDL)
	if err := net.Predict(b.N, b.Planes, b.Mask, logits, wdl); err != nil {
		t.Fatalf("%s: Predict: %v", net.Backend(), err)
	}
	probs = append([]float32(nil), logits...)
	model.Softmax(probs, env.NumActions)
	return probs, wdl, logits
}

// maxDiff returns the largest |a−b| (treating equal infinities as equal) and its index.
func maxDiff(a, b []float32) (float64, int) {
	worst, at := 0.0, -1
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) || d > worst {
			worst, at = d, i
			if math.IsNaN(d) {
				return math.Inf(1), i
			}
		}
	}
	return worst, at
}

// maxRelDiff returns max |a−b| / max(1, |a|, |b|).
func maxRelDiff(a, b []float32) float64 {
	worst := 0.0
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		if x == y {
			continue
		}
		d := math.Abs(x-y) / math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// rssBytes returns the resident set size of this process (Linux).
func rssBytes(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// osThreads returns the number of OS threads of this process (Linux).
func osThreads(t testing.TB) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return -1
}
