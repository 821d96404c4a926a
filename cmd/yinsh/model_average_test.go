package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
)

// TestModelAverage averages two checkpoints through the command and checks a tensor of the result
// against the mean of the inputs, then the refusals: an existing --out, two architectures, a file
// that is not a checkpoint (each naming what is wrong, nothing written).
func TestModelAverage(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.ckpt"), filepath.Join(dir, "b.ckpt"), filepath.Join(dir, "c.ckpt")
	for i, p := range []string{a, b} {
		if _, errs, code := runCLI(t, "", "model", "init", "--net", "tiny", "--seed", []string{"1", "2"}[i], "--out", p); code != 0 {
			t.Fatal(errs)
		}
	}
	if _, errs, code := runCLI(t, "", "model", "init", "--net", "small", "--out", c); code != 0 {
		t.Fatal(errs)
	}
	avg := filepath.Join(dir, "avg.ckpt")
	out, errs, code := runCLI(t, "", "model", "average", "--out", avg, a, b)
	if code != 0 || !strings.Contains(out, "the mean of 2 checkpoints") {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	cks := make([]*model.Checkpoint, 3)
	for i, p := range []string{a, b, avg} {
		ck, err := model.ReadCheckpoint(p)
		if err != nil {
			t.Fatal(err)
		}
		cks[i] = ck
	}
	const name = "stem.conv.weight"
	for j, v := range cks[2].Tensors[name].Data {
		want := (float64(cks[0].Tensors[name].Data[j]) + float64(cks[1].Tensors[name].Data[j])) / 2
		if d := float64(v) - want; d > 1e-7 || d < -1e-7 {
			t.Fatalf("%s[%d] = %v, want %v", name, j, v, want)
		}
	}
	before, _ := os.ReadFile(avg)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", avg, a, b}, "--force"},
		{[]string{"--out", filepath.Join(dir, "x.ckpt"), a, c}, "checkpoint 2 of 2"},
		{[]string{"--out", filepath.Join(dir, "y.ckpt"), a, filepath.Join(dir, "missing.ckpt")}, "missing.ckpt"},
		{[]string{a, b}, "--out is required"},
	} {
		_, errs, code := runCLI(t, "", append([]string{"model", "average"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d err %q, want an error with %q", tc.args, code, errs, tc.want)
		}
	}
	if now, _ := os.ReadFile(avg); !bytes.Equal(now, before) {
		t.Error("a refused average changed the existing file")
	}
	for _, p := range []string{"x.ckpt", "y.ckpt"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written by a refused average", p)
		}
	}
}
