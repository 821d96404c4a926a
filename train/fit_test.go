package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// expertRecords plays n blitz games with a uniform-prior search (a weak but consistent expert) and
// returns them as records with visit-distribution targets.
func expertRecords(t *testing.T, n int) []*datasets.Record {
	t.Helper()
	sc := mcts.DefaultConfig()
	sc.Simulations = 16
	sc.DirichletFraction = 0
	var mu sync.Mutex
	var recs []*datasets.Record
	ids := map[uint64]bool{}
	_, err := selfplay.Run(context.Background(), selfplay.Config{Variant: env.Blitz, Search: sc, Generator: "test", TemperatureActions: 30, Temperature: 1}, mcts.Rollout{Playouts: 1, Seed: 3},
		selfplay.RunOptions{Games: n, Parallel: 2, Seed: 9, OnGame: func(g selfplay.Game) error {
			mu.Lock()
			ids[fmt16(g.Actions)] = true
			recs = append(recs, RecordOf(g))
			mu.Unlock()
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) < n*3/4 {
		t.Fatalf("%d distinct games of %d", len(ids), n)
	}
	return recs
}

// fmt16 hashes an action sequence (FNV-1a).
func fmt16(acts []env.Action) uint64 {
	h := uint64(14695981039346656037)
	for _, a := range acts {
		h = (h ^ uint64(a)) * 1099511628211
	}
	return h
}

func TestFitLearnsAndKeepsTheBestEpoch(t *testing.T) {
	recs := expertRecords(t, 24)
	net, err := gonum.New(model.Config{InputPlanes: env.NumPlanes, Channels: 8, Blocks: 1, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 16}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	saved := 0
	res, err := Fit(context.Background(), FitOptions{
		Records: recs, Variant: env.Blitz, Net: net, Epochs: 4, BatchSize: 32, HoldOut: 0.25, Seed: 5, Out: &out,
		Save: func(model.Net, FitEpoch) error { saved++; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if res.HeldOutGames == 0 || res.TrainGames == 0 || res.HeldOutGames+res.TrainGames != len(recs) {
		t.Fatalf("split %d + %d of %d games", res.TrainGames, res.HeldOutGames, len(recs))
	}
	e := res.Epochs
	if len(e) != 4 || e[0].Steps != res.TrainExamples/32 || e[0].HeldOut.Positions != res.HeldExamples {
		t.Fatalf("epochs %+v, %d training positions", e, res.TrainExamples)
	}
	if !(e[3].Train.Policy < e[0].Train.Policy) {
		t.Fatalf("training policy loss did not fall: %.3f → %.3f", e[0].Train.Policy, e[3].Train.Policy)
	}
	bests := 0
	for _, ep := range e {
		if ep.Best {
			bests++
		}
		if ep.Train.Top1 < 0 || ep.Train.Top1 > 1 {
			t.Fatalf("top-1 %v", ep.Train.Top1)
		}
	}
	if saved != bests || res.Best < 1 || !e[res.Best-1].Best {
		t.Fatalf("saved %d times, %d best epochs, best %d", saved, bests, res.Best)
	}
	// a split's held-out games are the same for the same seed, and other games for another
	res2, _ := Fit(context.Background(), FitOptions{Records: recs, Variant: env.Blitz, Net: net, Epochs: 1, BatchSize: 32, HoldOut: 0.25, Seed: 5})
	if res2.HeldExamples != res.HeldExamples {
		t.Fatal("the held-out split depends on more than the seed")
	}
	if _, err := Fit(context.Background(), FitOptions{Records: recs, Variant: env.Standard, Net: net, Epochs: 1, BatchSize: 32}); err == nil {
		t.Fatal("blitz games fitted as standard")
	}
}

// TestFitLossesMatchEvalLoss: the split measurement's cross-entropies are the backend's own losses.
func TestFitLossesMatchEvalLoss(t *testing.T) {
	recs := expertRecords(t, 4)
	net, err := gonum.New(model.Config{InputPlanes: env.NumPlanes, Channels: 4, Blocks: 0, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 8}, 2)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := datasets.NewWindow(datasets.WindowOptions{})
	for _, r := range recs {
		w.Add(r)
	}
	var db datasets.Batch
	if err := w.Sample(rand.New(rand.NewPCG(1, 2)), 16, &db); err != nil {
		t.Fatal(err)
	}
	want, err := net.EvalLoss(&model.Batch{N: db.N, Planes: db.Planes, Mask: db.Mask, Policy: db.Policy, WDL: db.WDL})
	if err != nil {
		t.Fatal(err)
	}
	pol, wdl := make([]float32, 16*env.NumActions), make([]float32, 16*3)
	if err := net.Predict(16, db.Planes, db.Mask, pol, wdl); err != nil {
		t.Fatal(err)
	}
	var p, v float64
	for i := 0; i < 16; i++ {
		p += crossEntropy(pol[i*env.NumActions:(i+1)*env.NumActions], db.Policy[i*env.NumActions:(i+1)*env.NumActions])
		v += crossEntropy(wdl[i*3:i*3+3], db.WDL[i*3:i*3+3])
	}
	p, v = p/16, v/16
	if math.Abs(p-want.Policy) > 1e-3*want.Policy || math.Abs(v-want.Value) > 1e-3*want.Value {
		t.Fatalf("policy %.5f value %.5f, EvalLoss says %.5f %.5f", p, v, want.Policy, want.Value)
	}
}

// TestTrainInitAndPretrain: --init makes the checkpoint gen-0000 (an architecture that differs from
// the config's is refused); pretrain fits gen-0000 to shards before the first generation.
func TestTrainInitAndPretrain(t *testing.T) {
	cfg := resumeTestConfig(t, 1)
	arch, err := cfg.Architecture()
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonum.New(arch, 77)
	if err != nil {
		t.Fatal(err)
	}
	initPath := filepath.Join(t.TempDir(), "init.ckpt")
	if err := model.SaveNet(net, initPath, model.Origin{Variant: env.Blitz}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Init: initPath}); err != nil {
		t.Fatal(err)
	}
	a, _ := model.ReadCheckpoint(initPath)
	b, err := model.ReadCheckpoint(filepath.Join(dir, ckptPath(0)))
	if err != nil {
		t.Fatal(err)
	}
	for name, ta := range a.Tensors {
		if strings.HasPrefix(name, "optim.") {
			continue
		}
		if fmt.Sprint(ta.Data[:min(4, len(ta.Data))]) != fmt.Sprint(b.Tensors[name].Data[:min(4, len(ta.Data))]) {
			t.Fatalf("gen-0000 %s differs from the --init checkpoint's", name)
		}
	}
	other := cfg
	other.Net.Channels = 8
	err = Train(context.Background(), Options{Dir: t.TempDir(), Config: other, Backend: gonumBackend, Init: initPath})
	if err == nil || !strings.Contains(err.Error(), "architecture") {
		t.Fatalf("--init with another architecture: %v", err)
	}
	std := cfg
	std.Variant = "standard"
	err = Train(context.Background(), Options{Dir: t.TempDir(), Config: std, Backend: gonumBackend, Init: initPath})
	if err == nil || !strings.Contains(err.Error(), "trained for blitz") {
		t.Fatalf("--init of a blitz network into a standard run: %v", err)
	}

	// pretrain from shards
	shards := t.TempDir()
	w, err := datasets.NewWriter(shards, datasets.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range expertRecords(t, 12) {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	pcfg := cfg
	pcfg.Pretrain = PretrainConfig{Data: []string{shards}, Epochs: 2, BatchSize: 32, HoldOut: 0.2, LR: 1e-3}
	pdir := t.TempDir()
	var out strings.Builder
	if err := Train(context.Background(), Options{Dir: pdir, Config: pcfg, Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	ms, err := os.ReadFile(filepath.Join(pdir, PretrainFile))
	if err != nil || strings.Count(string(ms), "\n") != 2 {
		t.Fatalf("pretrain.jsonl: %v\n%s", err, ms)
	}
	if !strings.Contains(out.String(), "pretrain: fitting gen-0000 to 12 games") || !strings.Contains(out.String(), "epoch 2:") {
		t.Fatalf("output %q", out.String())
	}
	pc, _ := model.ReadCheckpoint(filepath.Join(pdir, "pretrain.ckpt"))
	g0, err := model.ReadCheckpoint(filepath.Join(pdir, ckptPath(0)))
	if err != nil || pc == nil || fmt.Sprint(pc.Tensors["policy.fc.weight"].Data[:8]) != fmt.Sprint(g0.Tensors["policy.fc.weight"].Data[:8]) {
		t.Fatalf("gen-0000 is not the fitted network: %v", err)
	}
}

// TestPretrainExpertGames: pretrain.expert plays its games into RUN/expert, the fit uses them, and a
// rerun after a kill plays only the missing ones.
func TestPretrainExpertGames(t *testing.T) {
	cfg := resumeTestConfig(t, 1)
	cfg.Pretrain = PretrainConfig{Epochs: 1, BatchSize: 16, HoldOut: 0, LR: 1e-3,
		Expert: ExpertConfig{Player: "rollout:4", Games: 6, Sims: 1, OpeningPlies: 2, Parallel: 2}}
	dir := t.TempDir()
	var out strings.Builder
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	recs, err := datasets.ReadDir(filepath.Join(dir, ExpertDir))
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d expert games, %v", len(recs), err)
	}
	if !strings.Contains(out.String(), "pretrain: 6 expert games played (0 already recorded)") || !strings.Contains(out.String(), "fitting gen-0000 to 6 games") {
		t.Fatalf("output %q", out.String())
	}
	if recs[0].Generator != "expert:rollout:4-vs-rollout:4" || recs[0].TrainingTargets() == 0 {
		t.Fatalf("record %q with %d targets", recs[0].Generator, recs[0].TrainingTargets())
	}
	// a run killed before gen-0000 existed starts again and plays no game twice
	os.Remove(filepath.Join(dir, StateFile))
	os.RemoveAll(filepath.Join(dir, ckptDir))
	out.Reset()
	cfg.Pretrain.Expert.Games = 8
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "pretrain: 2 expert games played (6 already recorded)") {
		t.Fatalf("rerun output %q", out.String())
	}
}
