package gonum

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/modeltest"
)

// onnxScript runs the exported model in onnxruntime on raw little-endian inputs and writes raw
// outputs; it also prints the model's metadata_props (one "key=value" per line).
const onnxScript = `
import sys, numpy as np, onnxruntime as ort
model, d, n, c = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
planes = np.fromfile(d + "/planes.bin", dtype="<f4").reshape(n, c, 11, 11)
mask = np.fromfile(d + "/mask.bin", dtype=np.uint8).astype(bool).reshape(n, 2142)
so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
pol, wdl = s.run(["policy", "wdl"], {"planes": planes, "mask": mask})
pol.astype("<f4").tofile(d + "/policy.bin")
wdl.astype("<f4").tofile(d + "/wdl.bin")
for k, v in s.get_modelmeta().custom_metadata_map.items():
    print(k + "=" + v.replace("\n", " "))
`

// requireONNXRuntime skips the test when python3 with onnxruntime and numpy is missing, except under
// CI (CI set), where it fails.
func requireONNXRuntime(t *testing.T) {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import onnxruntime, numpy").CombinedOutput()
	if err == nil {
		return
	}
	msg := "ONNX interop test needs python3 with onnxruntime and numpy (pip install onnxruntime numpy): " +
		strings.TrimSpace(string(out)) + " " + err.Error()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestONNXMatchesOnnxruntime exports a (perturbed, so batch norm folding matters) net to ONNX, runs it
// in onnxruntime and compares policy probabilities and WDL with our inference within 1e-4.
func TestONNXMatchesOnnxruntime(t *testing.T) {
	requireONNXRuntime(t)
	pooled := tiny(t)
	pooled.GlobalPool = true
	for _, cfg := range []model.Config{tiny(t), pooled} {
		t.Run(map[bool]string{false: "plain", true: "gpool"}[cfg.GlobalPool], func(t *testing.T) { onnxMatches(t, cfg) })
	}
}

func onnxMatches(t *testing.T, cfg model.Config) {
	net := mustNew(t, cfg, 21)
	perturb(net, 22)
	ck, err := net.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "net.onnx")
	if err := model.WriteONNX(path, ck); err != nil {
		t.Fatal(err)
	}
	const n = 7
	b := modeltest.RandomBatch(23, n, true)
	// one row with no legal action: the policy must be all zeros, not NaN
	clear(b.Mask[(n-1)*env.NumActions:])
	planes := make([]byte, 0, 4*len(b.Planes))
	for _, v := range b.Planes {
		planes = binary.LittleEndian.AppendUint32(planes, math.Float32bits(v))
	}
	mask := make([]byte, len(b.Mask))
	for i, m := range b.Mask {
		if m {
			mask[i] = 1
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "planes.bin"), planes, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mask.bin"), mask, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", "-c", onnxScript, path, dir, "7", "15").CombinedOutput()
	if err != nil {
		t.Fatalf("onnxruntime: %v\n%s", err, out)
	}
	meta := string(out)
	for _, want := range []string{"yinsh.encoding_version=1", "yinsh.action_layout=yinsh-v1: 2142 actions", "yinsh.num_actions=2142"} {
		if !strings.Contains(meta, want) {
			t.Errorf("metadata lacks %q:\n%s", want, meta)
		}
	}
	readF32 := func(name string, count int) []float32 {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != 4*count {
			t.Fatalf("%s: %d bytes, want %d", name, len(raw), 4*count)
		}
		v := make([]float32, count)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return v
	}
	gotPol := readF32("policy.bin", n*env.NumActions)
	gotWDL := readF32("wdl.bin", n*3)
	wantPol := make([]float32, n*env.NumActions)
	wantWDL := make([]float32, n*3)
	if err := net.Predict(n, b.Planes, b.Mask, wantPol, wantWDL); err != nil {
		t.Fatal(err)
	}
	model.Softmax(wantPol, env.NumActions)
	model.Softmax(wantWDL, 3)
	var maxP, maxW float64
	for i := range wantPol {
		maxP = math.Max(maxP, math.Abs(float64(gotPol[i]-wantPol[i])))
		if !b.Mask[i] && gotPol[i] != 0 {
			t.Fatalf("onnx policy[%d] = %g for an illegal action", i, gotPol[i])
		}
	}
	for i := range wantWDL {
		maxW = math.Max(maxW, math.Abs(float64(gotWDL[i]-wantWDL[i])))
	}
	t.Logf("max |Δ| policy %.2g, wdl %.2g", maxP, maxW)
	if maxP > 1e-4 || maxW > 1e-4 || math.IsNaN(maxP) || math.IsNaN(maxW) {
		t.Fatalf("onnxruntime and gonum differ: policy %g, wdl %g", maxP, maxW)
	}
	// the comparison is not vacuous: the policy is not uniform over legal actions
	var top float32
	for _, p := range gotPol[:env.NumActions] {
		top = max(top, p)
	}
	if top < 1.5/float32(countTrue(b.Mask[:env.NumActions])) {
		t.Fatalf("policy looks uniform (max %g)", top)
	}
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
