package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/model/modeltest"
	"github.com/yinsh-zero/yinsh/model/policy"
)

func TestModelInitAndExport(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "init.safetensors")
	out, errs, code := runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "7", "--out", ck)
	if code != 0 || !strings.Contains(out, "wrote "+ck) {
		t.Fatalf("model init: code %d out %q err %q", code, out, errs)
	}
	net, err := gonum.Load(ck)
	if err != nil {
		t.Fatal(err)
	}
	if net.Config().Name != "tiny" || net.Step() != 0 {
		t.Fatalf("config %+v step %d", net.Config(), net.Step())
	}
	// same seed, same file; an existing file is kept without --force
	first, _ := os.ReadFile(ck)
	_, errs, code = runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "8", "--out", ck)
	if code == 0 || !strings.Contains(errs, "--force") {
		t.Fatalf("overwrite without --force: code %d err %q", code, errs)
	}
	if now, _ := os.ReadFile(ck); !bytes.Equal(now, first) {
		t.Fatal("refused init changed the file")
	}
	if _, errs, code = runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "7", "--out", ck, "--force"); code != 0 {
		t.Fatalf("--force: %s", errs)
	}
	if now, _ := os.ReadFile(ck); !bytes.Equal(now, first) {
		t.Fatal("the same seed gave a different checkpoint")
	}
	// a YAML architecture file
	yml := filepath.Join(dir, "net.yaml")
	os.WriteFile(yml, []byte("name: mine\nchannels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 16\n"), 0o644)
	ck2 := filepath.Join(dir, "mine.safetensors")
	if _, errs, code = runCLI(t, "", "model", "init", "--net", yml, "--out", ck2); code != 0 {
		t.Fatalf("yaml net: %s", errs)
	}

	onnx := filepath.Join(dir, "net.onnx")
	out, errs, code = runCLI(t, "", "export", "--checkpoint", ck, "--format", "onnx", "--out", onnx)
	if code != 0 || !strings.Contains(out, "wrote "+onnx) {
		t.Fatalf("export onnx: code %d out %q err %q", code, out, errs)
	}
	if b, _ := os.ReadFile(onnx); len(b) < 1000 || !bytes.Contains(b, []byte("yinsh.encoding_version")) {
		t.Fatalf("onnx file of %d bytes without metadata", len(b))
	}
	st := filepath.Join(dir, "net.safetensors")
	if _, errs, code = runCLI(t, "", "export", "--checkpoint", ck, "--format", "safetensors", "--out", st); code != 0 {
		t.Fatalf("export safetensors: %s", errs)
	}
	p, err := policy.Load(st)
	if err != nil {
		t.Fatal(err)
	}
	if p.Metadata().Kind != model.KindInference {
		t.Fatalf("exported kind %q", p.Metadata().Kind)
	}
	// weights: an AdamW checkpoint without its optimiser state, with the same predictions;
	// a global-pooling architecture goes through too
	os.WriteFile(yml, []byte("name: pooled\nchannels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 16\nglobal_pool: true\n"), 0o644)
	pooled := filepath.Join(dir, "pooled.ckpt")
	if _, errs, code = runCLI(t, "", "model", "init", "--net", yml, "--out", pooled); code != 0 {
		t.Fatalf("yaml net: %s", errs)
	}
	full, err := gonum.Load(pooled)
	if err != nil {
		t.Fatal(err)
	}
	if !full.Config().GlobalPool {
		t.Fatal("global_pool: true was lost")
	}
	if err := full.SetOptimizer(model.DefaultAdamW()); err != nil {
		t.Fatal(err)
	}
	b := modeltest.RandomBatch(1, 4, false)
	if _, err := full.TrainStep(b); err != nil {
		t.Fatal(err)
	}
	if err := full.Save(pooled); err != nil {
		t.Fatal(err)
	}
	wts := filepath.Join(dir, "weights.ckpt")
	if _, errs, code = runCLI(t, "", "export", "--checkpoint", pooled, "--format", "weights", "--out", wts); code != 0 {
		t.Fatalf("export weights: %s", errs)
	}
	bare, err := gonum.Load(wts)
	if err != nil {
		t.Fatal(err)
	}
	ckf, _ := os.Stat(pooled)
	wf, _ := os.Stat(wts)
	if h, err := model.ReadMetadata(wts); err != nil || h.Meta.Optimizer != nil || wf.Size()*2 > ckf.Size() {
		t.Fatalf("weights file: optimiser %v, %d bytes of %d (%v)", h.Meta.Optimizer, wf.Size(), ckf.Size(), err)
	}
	pa, wa := make([]float32, 4*env.NumActions), make([]float32, 12)
	pb, wb := make([]float32, 4*env.NumActions), make([]float32, 12)
	full.Predict(4, b.Planes, nil, pa, wa)
	bare.Predict(4, b.Planes, nil, pb, wb)
	if !slices.Equal(pa, pb) || !slices.Equal(wa, wb) {
		t.Fatal("the weights file predicts differently")
	}
	if _, errs, code = runCLI(t, "", "export", "--checkpoint", st, "--format", "weights", "--out", filepath.Join(dir, "w2.ckpt")); code == 0 || !strings.Contains(errs, "no optimiser state") {
		t.Fatalf("weights of an inference file: code %d %q", code, errs)
	}
}

func TestModelCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.safetensors")
	os.WriteFile(bad, []byte("not a checkpoint, just text"), 0o644)
	yml := filepath.Join(dir, "typo.yaml")
	os.WriteFile(yml, []byte("channels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hiden: 16\n"), 0o644)
	out := filepath.Join(dir, "out.onnx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"model", "init", "--net", "tiny"}, "--out is required"},
		{[]string{"model", "init", "--net", "huge", "--out", out}, "huge"},
		{[]string{"model", "init", "--net", yml, "--out", out}, "value_hiden"},
		{[]string{"export", "--checkpoint", bad, "--out", out}, "not a safetensors file"},
		{[]string{"export", "--checkpoint", bad, "--format", "tflite", "--out", out}, "--format"},
		{[]string{"export", "--out", out}, "--checkpoint is required"},
		{[]string{"export", "--checkpoint", bad, "--out", bad}, "is the checkpoint itself"},
		{[]string{"export", "--checkpoint", filepath.Join(dir, "absent"), "--out", out}, "absent"},
		{[]string{"bench", "model", "--backend", "tpu"}, "not available"},
		{[]string{"bench", "model", "--batch", "0"}, "--batch"},
	} {
		_, errs, code := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d err %q, want %q", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed command wrote its output")
	}
}

func TestBenchModelFlags(t *testing.T) {
	var got *BenchModelOptions
	cmd := newCmdBenchModel(func(o *BenchModelOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--net", "tiny", "--batch", "8", "--time", "50ms"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Backend != "gonum" || got.Net != "tiny" || got.Batch != 8 || got.Time != 50*time.Millisecond {
		t.Fatalf("options %+v", got)
	}
}

func TestBenchModelOutput(t *testing.T) {
	out, errs, code := runCLI(t, "", "bench", "model", "--net", "tiny", "--batch", "4", "--time", "50ms")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	re := regexp.MustCompile(`^positions/s: [0-9.]+\ntrain-samples/s: [0-9.]+\ngflops: [0-9.]+\nsgemm-gflops: [0-9.]+\nkernel: (avx512|avx2\+fma|gonum)\n$`)
	if !re.MatchString(out) {
		t.Fatalf("output %q does not have exactly the five lines", out)
	}
	// The fallback is forced by the environment (read at start-up, so in a child process).
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBenchModelKernelChild$")
	cmd.Env = append(os.Environ(), "YINSH_KERNEL=gonum", "YINSH_BENCH_CHILD=1")
	child, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(child), "kernel: gonum\n") {
		t.Fatalf("with YINSH_KERNEL=gonum: %v\n%s", err, child)
	}
}

// TestBenchModelKernelChild is TestBenchModelOutput's child process.
func TestBenchModelKernelChild(t *testing.T) {
	if os.Getenv("YINSH_BENCH_CHILD") != "1" {
		t.Skip("run by TestBenchModelOutput")
	}
	out, errs, code := runCLI(t, "", "bench", "model", "--net", "tiny", "--batch", "2", "--time", "20ms")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	fmt.Print(out)
}

// TestModelInfoSaysWhatTheFileIs: model info names a shard, a text file, Parquet or zstd data as
// what they are; it tells a training checkpoint with optimiser state from weights without (the
// reference network) and an inference export; counts are singular where they are 1.
func TestModelInfoSaysWhatTheFileIs(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "games")
	if _, errs, code := runCLI(t, "", "datasets", "generate", "--player", "random", "--games", "2", "--variant", "blitz", "--out", shards); code != 0 {
		t.Fatalf("datasets generate: %s", errs)
	}
	text := filepath.Join(dir, "game.txt")
	os.WriteFile(text, []byte("# a game\ne5 f6\n"), 0o644)
	parquet := filepath.Join(dir, "x.parquet")
	os.WriteFile(parquet, []byte("PAR1\x15\x00rest of a parquet file"), 0o644)
	for path, want := range map[string]string{
		filepath.Join(shards, "shard-000000.yz"): "is a dataset shard, not a checkpoint: use yinsh datasets games",
		text:                                     "is a text file, not a checkpoint",
		parquet:                                  "is a Parquet file, not a checkpoint",
	} {
		if _, errs, code := runCLI(t, "", "model", "info", path); code == 0 || !strings.Contains(errs, want) {
			t.Errorf("model info %s: code %d err %q, want %q", path, code, errs, want)
		}
	}

	ck := filepath.Join(dir, "init.ckpt")
	if _, errs, code := runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "1", "--out", ck); code != 0 {
		t.Fatal(errs)
	}
	weights := filepath.Join(dir, "weights.ckpt")
	if _, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--format", "weights", "--out", weights); code != 0 {
		t.Fatal(errs)
	}
	inference := filepath.Join(dir, "inference.safetensors")
	if _, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--format", "safetensors", "--out", inference); code != 0 {
		t.Fatal(errs)
	}
	for path, want := range map[string]string{
		ck:        "kind: training (weights and optimiser state",
		weights:   "kind: training weights (no optimiser state",
		inference: "kind: inference (batch norm folded",
	} {
		out, errs, code := runCLI(t, "", "model", "info", path)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("model info %s: code %d out %q err %q, want %q", path, code, out, errs, want)
		}
		if !strings.Contains(out, "value head 1 channel x") || strings.Contains(out, "1 channels") {
			t.Errorf("model info %s: %q, want the tiny net's value head as '1 channel'", path, out)
		}
	}
}
