package nets

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// TestReference: the embedded network decodes, is a standard-rules training checkpoint within the
// 10 MB bound, and predicts finite values with a legal policy.
func TestReference(t *testing.T) {
	if len(standard) > 10<<20 {
		t.Fatalf("the reference network is %d bytes, over 10 MB", len(standard))
	}
	ck, err := Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := ck.Meta.VariantValue(); !ok || v != Variant {
		t.Fatalf("the reference network is for %q, want %v", ck.Meta.Variant, Variant)
	}
	if ck.Meta.Optimizer != nil {
		t.Error("the reference network carries optimiser state (export it with --format weights)")
	}
	net, err := gonum.FromCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	s := env.NewState(env.Standard)
	planes := make([]float32, env.ObservationSize)
	mask := make([]bool, env.NumActions)
	s.Observation(planes)
	s.LegalMask(mask)
	policy, wdl := make([]float32, env.NumActions), make([]float32, model.NumWDL)
	if err := net.Predict(1, planes, mask, policy, wdl); err != nil {
		t.Fatal(err)
	}
	model.Softmax(policy, env.NumActions)
	var legal float32
	for a, p := range policy {
		if mask[a] {
			legal += p
		} else if p != 0 {
			t.Fatalf("policy %g on illegal action %d", p, a)
		}
	}
	if legal < 0.999 || legal > 1.001 {
		t.Errorf("legal policy mass %g", legal)
	}
	for _, v := range wdl {
		if v != v {
			t.Fatalf("wdl %v", wdl)
		}
	}
}

// TestPath: the file is written once into YINSH_CACHE_DIR, holds the embedded bytes, and is
// rewritten when damaged; other specs pass through Resolve unchanged.
func TestPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("YINSH_CACHE_DIR", dir)
	p, err := Resolve(Reference)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(p)) != dir {
		t.Errorf("path %s is not under %s", p, dir)
	}
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(b, standard) {
		t.Fatalf("the file does not hold the embedded network (%v)", err)
	}
	if err := os.WriteFile(p, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if q, err := Path(); err != nil || q != p {
		t.Fatalf("second Path: %s, %v", q, err)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, standard) {
		t.Error("a damaged file was not rewritten")
	}
	if h, err := model.ReadMetadata(p); err != nil || h.Meta.Variant != "standard" {
		t.Errorf("metadata of the file: %+v, %v", h, err)
	}
	for _, s := range []string{"heuristic", "rollout:10", "x.ckpt", ""} {
		if r, err := Resolve(s); err != nil || r != s {
			t.Errorf("Resolve(%q) = %q, %v", s, r, err)
		}
	}
	if DefaultPlayer(env.Standard) != Reference || DefaultPlayer(env.Blitz) != "heuristic" {
		t.Error("default players")
	}
}
