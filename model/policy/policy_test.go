package policy_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/model/policy"
)

// trainedTiny returns a tiny net after a few training steps (so running statistics are not the
// initial 0/1 and folding matters).
func trainedTiny(t *testing.T) *gonum.Net {
	t.Helper()
	cfg, _ := model.Preset("tiny")
	net, err := gonum.New(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 8
	b := &model.Batch{N: n, Planes: make([]float32, n*env.ObservationSize), Mask: make([]bool, n*env.NumActions),
		Policy: make([]float32, n*env.NumActions), WDL: make([]float32, n*3)}
	for i := 0; i < n; i++ {
		s := env.NewState(env.Standard)
		for k := 0; k < 10+i; k++ {
			acts := s.LegalActions(nil)
			if err := s.ApplyAction(acts[rng.IntN(len(acts))]); err != nil {
				t.Fatal(err)
			}
		}
		s.Observation(b.Planes[i*env.ObservationSize:])
		s.LegalMask(b.Mask[i*env.NumActions : (i+1)*env.NumActions])
		acts := s.LegalActions(nil)
		b.Policy[i*env.NumActions+int(acts[0])] = 1
		b.WDL[i*3] = 1
	}
	for i := 0; i < 5; i++ {
		if _, err := net.TrainStep(b); err != nil {
			t.Fatal(err)
		}
	}
	return net
}

func TestExportedPolicyMatchesNet(t *testing.T) {
	net := trainedTiny(t)
	ck, err := net.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exp := filepath.Join(dir, "policy.safetensors")
	if err := model.WriteInference(exp, ck); err != nil {
		t.Fatal(err)
	}
	pe, err := policy.Load(exp)
	if err != nil {
		t.Fatal(err)
	}
	if pe.Metadata().Kind != model.KindInference || pe.Metadata().Step != 5 {
		t.Fatalf("metadata %+v", pe.Metadata())
	}
	train := filepath.Join(dir, "train.safetensors")
	if err := net.Save(train); err != nil {
		t.Fatal(err)
	}
	pt, err := policy.Load(train)
	if err != nil {
		t.Fatal(err)
	}
	s := env.NewState(env.Standard)
	rng := rand.New(rand.NewPCG(3, 3))
	var states []*env.State
	for k := 0; k < 30; k++ {
		acts := s.LegalActions(nil)
		if err := s.ApplyAction(acts[rng.IntN(len(acts))]); err != nil {
			t.Fatal(err)
		}
		states = append(states, s.Clone())
	}
	evs, err := pe.EvaluateBatch(states)
	if err != nil {
		t.Fatal(err)
	}
	evt, err := pt.EvaluateBatch(states)
	if err != nil {
		t.Fatal(err)
	}
	logits := make([]float32, env.NumActions)
	wdl := make([]float32, 3)
	planes := make([]float32, env.ObservationSize)
	mask := make([]bool, env.NumActions)
	for i, st := range states {
		st.Observation(planes)
		st.LegalMask(mask)
		if err := net.Predict(1, planes, mask, logits, wdl); err != nil {
			t.Fatal(err)
		}
		model.Softmax(logits, env.NumActions)
		model.Softmax(wdl, 3)
		var sum float64
		for a, p := range evs[i].Probs {
			sum += float64(p)
			if math.Abs(float64(p-logits[a])) > 1e-5 || p != evt[i].Probs[a] {
				t.Fatalf("state %d action %d: export %g, training file %g, net %g", i, a, p, evt[i].Probs[a], logits[a])
			}
			if !mask[a] && p != 0 {
				t.Fatalf("illegal action %d has probability %g", a, p)
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("state %d: probabilities sum to %g", i, sum)
		}
		for k := 0; k < 3; k++ {
			if math.Abs(float64(evs[i].WDL[k]-wdl[k])) > 1e-5 {
				t.Fatalf("state %d WDL %v, net %v", i, evs[i].WDL, wdl)
			}
		}
		if b := evs[i].Best(); !st.IsLegal(b) {
			t.Fatalf("state %d: best action %d is illegal", i, b)
		}
		if v := evs[i].Value(); v < -1 || v > 1 {
			t.Fatalf("value %g", v)
		}
	}
	one, err := pe.Evaluate(states[3])
	if err != nil || one.WDL != evs[3].WDL {
		t.Fatalf("Evaluate = %v, %v; batch gave %v", one.WDL, err, evs[3].WDL)
	}
	if _, err := policy.Load(filepath.Join(dir, "nope.safetensors")); err == nil || !strings.Contains(err.Error(), "nope.safetensors") {
		t.Fatalf("missing file: %v", err)
	}
}
