package nets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// checkReference: variant v's embedded network decodes, is a training checkpoint of v without
// optimiser state within the 10 MB bound, and predicts finite values with a legal policy.
func checkReference(t *testing.T, v env.Variant) {
	t.Helper()
	b := embedded(v)
	if !Has(v) || len(b) == 0 {
		t.Fatalf("no %s reference network", v)
	}
	if len(b) > 10<<20 {
		t.Fatalf("the %s reference network is %d bytes, over 10 MB", v, len(b))
	}
	ck, err := Checkpoint(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := ck.Meta.VariantValue(); !ok || got != v {
		t.Fatalf("the %s reference network is for %q", v, ck.Meta.Variant)
	}
	if ck.Meta.Optimizer != nil {
		t.Errorf("the %s reference network carries optimiser state (export it with --format weights)", v)
	}
	net, err := gonum.FromCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	s := env.NewState(v)
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
	for _, x := range wdl {
		if x != x {
			t.Fatalf("wdl %v", wdl)
		}
	}
}

// TestReference: the standard reference network (see checkReference).
func TestReference(t *testing.T) { checkReference(t, env.Standard) }

// TestBlitzReference: the blitz reference network (see checkReference).
func TestBlitzReference(t *testing.T) { checkReference(t, env.Blitz) }

// TestPath: each variant's file is written once into YINSH_CACHE_DIR under its own name, holds the
// embedded bytes, and is rewritten when damaged; other specs pass through Resolve unchanged.
func TestPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("YINSH_CACHE_DIR", dir)
	paths := map[string]env.Variant{}
	for _, v := range []env.Variant{env.Standard, env.Blitz} {
		p, err := Resolve(Reference, v)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(filepath.Dir(p)) != dir {
			t.Errorf("path %s is not under %s", p, dir)
		}
		if !strings.Contains(filepath.Base(p), v.String()) || !strings.Contains(filepath.Base(p), Sum(v)) {
			t.Errorf("file name %s names neither the variant %s nor the sum %s", filepath.Base(p), v, Sum(v))
		}
		if o, dup := paths[p]; dup {
			t.Fatalf("%s and %s share the file %s", o, v, p)
		}
		paths[p] = v
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, embedded(v)) {
			t.Fatalf("the file does not hold the embedded %s network (%v)", v, err)
		}
		if err := os.WriteFile(p, []byte("damaged"), 0o644); err != nil {
			t.Fatal(err)
		}
		if q, err := Path(v); err != nil || q != p {
			t.Fatalf("second Path: %s, %v", q, err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, embedded(v)) {
			t.Errorf("a damaged %s file was not rewritten", v)
		}
		if h, err := model.ReadMetadata(p); err != nil || h.Meta.Variant != v.String() {
			t.Errorf("metadata of the %s file: %+v, %v", v, h, err)
		}
		if DefaultPlayer(v) != Reference {
			t.Errorf("default player of %s: %s", v, DefaultPlayer(v))
		}
		for _, s := range []string{"heuristic", "rollout:10", "x.ckpt", ""} {
			if r, err := Resolve(s, v); err != nil || r != s {
				t.Errorf("Resolve(%q, %s) = %q, %v", s, v, r, err)
			}
		}
	}
	if Sum(env.Standard) == Sum(env.Blitz) {
		t.Error("the two networks have the same sum")
	}
}

// TestMissing: a variant without a network (blitz, its network hidden by Hide) has no checkpoint, path or
// sum, Resolve's error names it, and its default player is the heuristic.
func TestMissing(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	Hide(t, env.Blitz)
	if Has(env.Blitz) || !Has(env.Standard) {
		t.Fatal("Has")
	}
	if _, err := Checkpoint(env.Blitz); err == nil || !strings.Contains(err.Error(), "blitz") {
		t.Errorf("Checkpoint: %v", err)
	}
	if _, err := Resolve(Reference, env.Blitz); err == nil || !strings.Contains(err.Error(), "blitz") {
		t.Errorf("Resolve: %v", err)
	}
	if Sum(env.Blitz) != "" || DefaultPlayer(env.Blitz) != "heuristic" || DefaultPlayer(env.Standard) != Reference {
		t.Error("Sum or DefaultPlayer")
	}
	if r, err := Resolve("heuristic", env.Blitz); err != nil || r != "heuristic" {
		t.Errorf("Resolve(heuristic) = %q, %v", r, err)
	}
}
