package train

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
)

// TestWriteInitialScalesOutputLayers checks net.output_init_scale: the output layers' weights are
// scaled, their biases zeroed, every other tensor kept; scale 1 writes the network unchanged.
func TestWriteInitialScalesOutputLayers(t *testing.T) {
	cfg := tinyConfig(t, 1)
	arch, err := cfg.Architecture()
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonumBackend.New(arch, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	orig, err := net.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	orig = orig.Clone()
	dir := t.TempDir()
	for _, scale := range []float64{1, 0.01, 0} {
		path := filepath.Join(dir, "init.ckpt")
		if err := writeInitial(net, path, scale, model.Origin{}); err != nil {
			t.Fatal(err)
		}
		got, err := model.ReadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gonumBackend.Load(path); err != nil {
			t.Fatalf("scale %v: %v", scale, err)
		}
		scaled := map[string]bool{}
		for _, l := range outputLayers {
			scaled[l+".weight"], scaled[l+".bias"] = true, true
		}
		for name, want := range orig.Tensors {
			g := got.Tensors[name]
			for i, v := range want.Data {
				w := v
				switch {
				case scale == 1:
				case scaled[name] && name[len(name)-5:] == ".bias":
					w = 0
				case scaled[name]:
					w = v * float32(scale)
				}
				if g.Data[i] != w {
					t.Fatalf("scale %v: %s[%d] = %v, want %v", scale, name, i, g.Data[i], w)
				}
			}
		}
	}
}

func TestOutputInitScaleRange(t *testing.T) {
	for _, bad := range []string{"net.output_init_scale=-0.1", "net.output_init_scale=1.5", "training.value_q_mix=2", "selfplay.leaves_in_flight=0", "selfplay.rollout_playouts=0", "selfplay.gumbel_c_scale=0"} {
		if _, err := ParseConfig(nil, "test", []string{bad}); err == nil {
			t.Fatalf("%s accepted", bad)
		}
	}
}

func TestRunCheckpointsRecordOrigin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myrun")
	var out bytes.Buffer
	o := Options{Dir: dir, Config: tinyConfig(t, 1), Backend: gonumBackend, Out: &out}
	o.Config.Variant = "blitz"
	if err := Train(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for g := 0; g <= 1; g++ {
		h, err := model.ReadMetadata(filepath.Join(dir, ckptPath(g)))
		if err != nil {
			t.Fatal(err)
		}
		if h.Meta.Variant != "blitz" || h.Meta.Run == nil || h.Meta.Run.ID != "myrun" || h.Meta.Run.Generation != g {
			t.Fatalf("gen %d: %+v %+v", g, h.Meta, h.Meta.Run)
		}
	}
}
