package gonum

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

func mustNew(t testing.TB, cfg model.Config, seed uint64) *Net {
	t.Helper()
	n, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func tiny(t testing.TB) model.Config {
	c, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOverfit trains the tiny preset on one fixed batch of 16 positions with one-hot targets: the
// loss must fall below 5% of its starting value.
func TestOverfit(t *testing.T) {
	net := mustNew(t, tiny(t), 1)
	opt := model.DefaultAdamW()
	opt.WeightDecay = 0
	opt.Schedule.LR = 3e-3
	if err := net.SetOptimizer(opt); err != nil {
		t.Fatal(err)
	}
	b := modeltest.RandomBatch(11, 16, true)
	var first, last model.Loss
	below := -1
	// 60 steps: it gets below 5% in about 10, the rest lets running statistics converge.
	for step := 0; step < 60; step++ {
		l, err := net.TrainStep(b)
		if err != nil {
			t.Fatal(err)
		}
		if step == 0 {
			first = l
		}
		last = l
		if below < 0 && l.Total < 0.05*first.Total {
			below = step
		}
	}
	t.Logf("start %v; below 5%% at step %d; end %v", first, below, last)
	if below < 0 || last.Total >= 0.05*first.Total {
		t.Fatalf("after %d steps %v, start %v: not below 5%%", net.Step(), last, first)
	}
	// Inference mode on the same batch agrees that the net has learnt it (running statistics have
	// followed the batch statistics).
	el, err := net.EvalLoss(b)
	if err != nil {
		t.Fatal(err)
	}
	if el.Total > 0.25*first.Total {
		t.Errorf("inference-mode loss %v after overfitting (training-mode %v)", el, last)
	}
}

// TestBatchNormFrozenStatistics: with running statistics set to a batch's own statistics, inference
// (batch norm folded into the convolutions) equals training mode on that batch.
func TestBatchNormFrozenStatistics(t *testing.T) {
	pooled := tiny(t)
	pooled.GlobalPool = true
	both := pooled
	both.ScoreHead = true
	for name, cfg := range map[string]model.Config{"plain": tiny(t), "gpool": pooled, "gpool+score": both} {
		t.Run(name, func(t *testing.T) { frozenStatistics(t, cfg) })
	}
}

func frozenStatistics(t *testing.T, cfg model.Config) {
	net := mustNew(t, cfg, 2)
	perturb(net, 3)
	b := modeltest.RandomBatch(4, 6, false)
	net.lossGrad(b, net.Optimizer(), false)
	for _, l := range net.bnLayers() {
		for c := range l.rm.Data {
			l.rm.Data[c] = float32(l.mean[c])
			l.rv.Data[c] = float32(l.vari[c])
		}
	}
	net.eng = nil
	logits := make([]float32, b.N*env.NumActions)
	wdl := make([]float32, b.N*3)
	if err := net.Predict(b.N, b.Planes, nil, logits, wdl); err != nil {
		t.Fatal(err)
	}
	maxDiff := func(a, b []float32) float64 {
		var d float64
		for i := range a {
			d = math.Max(d, math.Abs(float64(a[i]-b[i])))
		}
		return d
	}
	if d := maxDiff(logits, net.ws.logits); d > 1e-3 {
		t.Errorf("policy logits: inference and training mode differ by %g", d)
	}
	if d := maxDiff(wdl, net.ws.wdl); d > 1e-3 {
		t.Errorf("WDL logits: inference and training mode differ by %g", d)
	}
	if cfg.ScoreHead {
		e, err := net.Engine()
		if err != nil {
			t.Fatal(err)
		}
		score := make([]float32, b.N*model.NumScore)
		if err := e.predict(b.N, b.Planes, nil, logits, wdl, score); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(score, net.ws.score); d > 1e-3 || maxDiff(score, make([]float32, len(score))) == 0 {
			t.Errorf("score logits: inference and training mode differ by %g", d)
		}
	}
	// With different running statistics they must differ (the comparison above is not vacuous).
	net.bnLayers()[0].rv.Data[0] *= 4
	net.eng = nil
	if err := net.Predict(b.N, b.Planes, nil, logits, wdl); err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(logits, net.ws.logits); d < 1e-3 {
		t.Errorf("changing running_var changed nothing (%g)", d)
	}
}

func TestPredictMaskAndShapes(t *testing.T) {
	net := mustNew(t, tiny(t), 3)
	b := modeltest.RandomBatch(5, 3, true)
	logits := make([]float32, 3*env.NumActions)
	wdl := make([]float32, 9)
	if err := net.Predict(3, b.Planes, b.Mask, logits, wdl); err != nil {
		t.Fatal(err)
	}
	for i, ok := range b.Mask {
		if ok == math.IsInf(float64(logits[i]), -1) {
			t.Fatalf("action %d of row %d: legal %v, logit %g", i%env.NumActions, i/env.NumActions, ok, logits[i])
		}
	}
	// a batch is the concatenation of single predictions
	one := make([]float32, env.NumActions)
	w1 := make([]float32, 3)
	if err := net.Predict(1, b.Planes[2*env.ObservationSize:], b.Mask[2*env.NumActions:], one, w1); err != nil {
		t.Fatal(err)
	}
	for i, v := range one {
		if u := logits[2*env.NumActions+i]; !(v == u || math.Abs(float64(v-u)) < 1e-4) {
			t.Fatalf("batched and single predictions differ at %d: %g vs %g", i, u, v)
		}
	}
	model.Softmax(one, env.NumActions)
	var sum float64
	for i, p := range one {
		sum += float64(p)
		if !b.Mask[2*env.NumActions+i] && p != 0 {
			t.Fatalf("illegal action %d has probability %g", i, p)
		}
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Fatalf("probabilities sum to %g", sum)
	}
	if err := net.Predict(2, b.Planes[:10], nil, logits, wdl); err == nil || !strings.Contains(err.Error(), "planes") {
		t.Fatalf("short planes: err %v", err)
	}
}

// TestConcurrentPredictAndTrain runs Predict from several goroutines while training (run with
// -race): every prediction must equal one of the states the weights went through.
func TestConcurrentPredictAndTrain(t *testing.T) {
	net := mustNew(t, microConfig(), 4)
	b := modeltest.RandomBatch(6, 4, true)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logits := make([]float32, 2*env.NumActions)
			wdl := make([]float32, 6)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := net.Predict(2, b.Planes, b.Mask, logits, wdl); err != nil {
					errs <- err
					return
				}
				for _, v := range wdl {
					if math.IsNaN(float64(v)) {
						errs <- errNaN
						return
					}
				}
			}
		}()
	}
	for i := 0; i < 5; i++ {
		if _, err := net.TrainStep(b); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if net.Step() != 5 {
		t.Fatalf("step %d", net.Step())
	}
}

var errNaN = errorString("NaN in prediction")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestOptimizerUpdates checks one SGD-Nesterov and one AdamW step against the formulas, in float64.
func TestOptimizerUpdates(t *testing.T) {
	for _, opt := range []model.OptimizerConfig{model.DefaultSGD(), model.DefaultAdamW()} {
		opt.WeightDecay = 0.01
		opt.Schedule = model.ScheduleConfig{Kind: model.ScheduleStep, LR: 0.05, StepSize: 1, Gamma: 0.5}
		net := mustNew(t, microConfig(), 5)
		if err := net.SetOptimizer(opt); err != nil {
			t.Fatal(err)
		}
		b := modeltest.RandomBatch(7, 2, true)
		// two steps; predict the second from the state after the first
		if _, err := net.TrainStep(b); err != nil {
			t.Fatal(err)
		}
		before := map[string][]float64{}
		slots := map[string][][]float64{}
		for _, p := range net.params {
			before[p.name] = to64(p.t.Data)
			for _, s := range p.slots {
				slots[p.name] = append(slots[p.name], to64(s))
			}
		}
		net.lossGrad(b, opt, true) // the gradient TrainStep will see
		grads := map[string][]float64{}
		for _, p := range net.params {
			grads[p.name] = to64(p.grad)
		}
		lr := 0.025 // step 1 of the schedule
		if got := net.LearningRate(); got != lr {
			t.Fatalf("learning rate %g, want %g", got, lr)
		}
		if _, err := net.TrainStep(b); err != nil {
			t.Fatal(err)
		}
		for _, p := range net.params {
			w, g := before[p.name], grads[p.name]
			wd := 0.0
			if p.decayed {
				wd = opt.WeightDecay
			}
			for i := range w {
				var want float64
				switch opt.Kind {
				case model.OptimizerSGD:
					gi := g[i] + wd*w[i]
					buf := opt.Momentum*slots[p.name][0][i] + gi
					want = w[i] - lr*(gi+opt.Momentum*buf)
				case model.OptimizerAdamW:
					x := w[i] * (1 - lr*wd)
					m := opt.Beta1*slots[p.name][0][i] + (1-opt.Beta1)*g[i]
					v := opt.Beta2*slots[p.name][1][i] + (1-opt.Beta2)*g[i]*g[i]
					mh := m / (1 - opt.Beta1*opt.Beta1)
					vh := v / (1 - opt.Beta2*opt.Beta2)
					want = x - lr*mh/(math.Sqrt(vh)+opt.Eps)
				}
				if got := float64(p.t.Data[i]); !closeTo(got, want, 1e-4, 1e-6) {
					t.Fatalf("%s %s[%d]: got %g, want %g (was %g, grad %g)", opt.Kind, p.name, i, got, want, w[i], g[i])
				}
			}
		}
	}
}

func TestNewDeterministic(t *testing.T) {
	a, b, c := mustNew(t, tiny(t), 7), mustNew(t, tiny(t), 7), mustNew(t, tiny(t), 8)
	for name, ta := range a.tensors {
		tb, tc := b.tensors[name], c.tensors[name]
		for i := range ta.Data {
			if ta.Data[i] != tb.Data[i] {
				t.Fatalf("%s differs between two nets with seed 7", name)
			}
		}
		if name == "stem.conv.weight" && ta.Data[0] == tc.Data[0] && ta.Data[1] == tc.Data[1] {
			t.Fatal("seeds 7 and 8 give the same weights")
		}
	}
	if _, err := New(model.Config{InputPlanes: env.NumPlanes, Channels: 0, Blocks: 1, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 1}, 1); err == nil || !strings.Contains(err.Error(), "channels") {
		t.Fatalf("bad config: %v", err)
	}
}

// trainedNet returns a micro net after two AdamW steps (non-trivial optimiser state and statistics).
func trainedNet(t testing.TB) *Net {
	net := mustNew(t, microConfig(), 9)
	if err := net.SetOptimizer(model.DefaultAdamW()); err != nil {
		t.Fatal(err)
	}
	b := modeltest.RandomBatch(8, 3, true)
	for i := 0; i < 2; i++ {
		if _, err := net.TrainStep(b); err != nil {
			t.Fatal(err)
		}
	}
	return net
}

// TestCheckpointRoundTrip: save → load → save gives identical bytes, identical tensors, identical
// predictions and identical continued training.
func TestCheckpointRoundTrip(t *testing.T) {
	dir := t.TempDir()
	net := trainedNet(t)
	p1, p2 := filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors")
	if err := net.Save(p1); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p1)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Save(p2); err != nil {
		t.Fatal(err)
	}
	b1, _ := os.ReadFile(p1)
	b2, _ := os.ReadFile(p2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("save → load → save changed the file")
	}
	if back.Step() != 2 || back.Optimizer() != net.Optimizer() {
		t.Fatalf("step %d optimizer %+v, want 2 %+v", back.Step(), back.Optimizer(), net.Optimizer())
	}
	for name, ta := range net.tensors {
		for i, v := range ta.Data {
			if math.Float32bits(v) != math.Float32bits(back.tensors[name].Data[i]) {
				t.Fatalf("%s[%d] changed", name, i)
			}
		}
	}
	b := modeltest.RandomBatch(10, 3, true)
	l1, err := net.TrainStep(b)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := back.TrainStep(b)
	if err != nil {
		t.Fatal(err)
	}
	if l1 != l2 {
		t.Fatalf("continued training differs: %v vs %v", l1, l2)
	}
	for _, p := range net.params {
		for i, v := range p.t.Data {
			if v != back.tensors[p.name].Data[i] {
				t.Fatalf("after one more step %s[%d] differs: optimiser state not restored", p.name, i)
			}
		}
	}
	// no temporary files left behind
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("directory has %d entries", len(ents))
	}
}

// TestLoadRejectsBadFiles: truncated files, flipped bytes, foreign files and inference exports are
// refused with an error naming the file and the problem; a failed save leaves the old file. (Wrong
// encoding versions, shapes and tensor names are covered in model's checkpoint tests.)
func TestLoadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	net := trainedNet(t)
	good := filepath.Join(dir, "good.safetensors")
	if err := net.Save(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	hdrLen := 8 + int(binary.LittleEndian.Uint64(data))
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	expect := func(p, want string) {
		t.Helper()
		_, err := Load(p)
		if err == nil {
			t.Fatalf("%s: loaded without error", filepath.Base(p))
		}
		if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %q, want the path and %q", filepath.Base(p), err, want)
		}
	}
	for _, n := range []int{0, 5, 8, hdrLen / 2, hdrLen, hdrLen + 100, len(data) - 1} {
		p := write("trunc.safetensors", data[:n])
		_, err := Load(p)
		if err == nil {
			t.Fatalf("truncated to %d bytes: loaded", n)
		}
		if !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "not a safetensors") {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	// a flipped bit anywhere (60 places in the header, 20 in the data; fewer under -race) is never loaded
	var positions []int
	nh, nd := 60, 20
	if raceEnabled {
		nh, nd = 15, 5
	}
	for i := 0; i < nh; i++ {
		positions = append(positions, i*hdrLen/nh)
	}
	for i := 0; i < nd; i++ {
		positions = append(positions, hdrLen+i*(len(data)-hdrLen)/nd)
	}
	for _, pos := range positions {
		bad := append([]byte(nil), data...)
		bad[pos] ^= 0x10
		if _, err := Load(write("flip.safetensors", bad)); err == nil {
			t.Fatalf("byte %d flipped (header is %d bytes): loaded", pos, hdrLen)
		}
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)-3] ^= 1
	expect(write("flipdata.safetensors", bad), "checksum mismatch")
	expect(write("text.safetensors", []byte("hello, this is not a checkpoint at all\n")), "not a safetensors file")
	foreign := []byte(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`)
	hdr := append([]byte{byte(len(foreign)), 0, 0, 0, 0, 0, 0, 0}, foreign...)
	expect(write("foreign.safetensors", append(hdr, 0, 0, 0, 0)), "not a YINSH Zero checkpoint")
	expect(filepath.Join(dir, "absent.safetensors"), "no such file")
	// an inference export cannot be trained
	ck, err := net.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	fold, err := model.Fold(ck)
	if err != nil {
		t.Fatal(err)
	}
	inf := filepath.Join(dir, "inference.safetensors")
	if err := model.WriteCheckpoint(inf, fold); err != nil {
		t.Fatal(err)
	}
	expect(inf, "cannot be trained")
	// a failed save leaves the old file untouched and no temporary file
	ck.Meta.Net.Channels++
	if err := model.WriteCheckpoint(good, ck); err == nil {
		t.Fatal("invalid checkpoint written")
	}
	if now, _ := os.ReadFile(good); !bytes.Equal(now, data) {
		t.Fatal("failed write changed the file")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file %s left", e.Name())
		}
	}
}
