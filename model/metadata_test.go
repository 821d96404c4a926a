package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

func TestMetadataOrigin(t *testing.T) {
	c := randomCheckpoint(t, true)
	c.Meta.SetOrigin(Origin{Variant: env.Blitz, RunID: "quickstart", Generation: 12})
	path := filepath.Join(t.TempDir(), "gen-0012.ckpt")
	if err := WriteCheckpoint(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Meta.VariantValue(); !ok || v != env.Blitz || back.Meta.Run == nil || *back.Meta.Run != (RunInfo{"quickstart", 12}) {
		t.Fatalf("metadata %+v run %+v", back.Meta, back.Meta.Run)
	}
	h, err := ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Meta.Variant != "blitz" || h.Meta.Run.Generation != 12 || h.Meta.Step != 42 || h.Meta.Net != c.Meta.Net ||
		h.Tensors != len(c.Tensors) || len(h.SHA256) != 64 {
		t.Fatalf("ReadMetadata %+v", h)
	}
	// folding (export) keeps the origin, and ONNX metadata_props carry it
	f, err := Fold(c)
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta.Variant != "blitz" || f.Meta.Run == nil || f.Meta.Run.ID != "quickstart" {
		t.Fatalf("folded metadata %+v", f.Meta)
	}
	props := ONNXMetadata(f.Meta)
	if props["yinsh.variant"] != "blitz" || props["yinsh.run_id"] != "quickstart" || props["yinsh.generation"] != "12" || props["yinsh.step"] != "42" {
		t.Fatalf("ONNX props %v", props)
	}
	// a clone is deep
	d := c.Clone()
	d.Meta.Run.Generation = 1
	if c.Meta.Run.Generation != 12 {
		t.Fatal("Clone shares RunInfo")
	}
}

func TestOldCheckpointHasUnknownOrigin(t *testing.T) {
	c := randomCheckpoint(t, false)
	b, err := EncodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	// a checkpoint of before the fields: no variant or run key in its metadata JSON
	meta, _ := json.Marshal(c.Meta)
	if strings.Contains(string(meta), "variant") || strings.Contains(string(meta), `"run"`) {
		t.Fatalf("unset origin is written: %s", meta)
	}
	path := filepath.Join(t.TempDir(), "old.ckpt")
	os.WriteFile(path, b, 0o644)
	h, err := ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Meta.VariantValue(); ok || h.Meta.Run != nil {
		t.Fatalf("old checkpoint has an origin: %+v", h.Meta)
	}
	if props := ONNXMetadata(h.Meta); props["yinsh.variant"] != "" || props["yinsh.run_id"] != "" {
		t.Fatalf("ONNX props of unknown origin: %v", props)
	}
}

func TestReadMetadataErrors(t *testing.T) {
	dir := t.TempDir()
	c := randomCheckpoint(t, false)
	good, err := EncodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Meta.Variant = "speed"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `variant "speed"`) {
		t.Fatalf("bad variant accepted: %v", err)
	}
	for _, f := range []struct {
		name string
		data []byte
		want string
	}{
		{"text", []byte("hello, world"), "not a safetensors file"},
		{"short", []byte("abc"), "too short"},
		{"cut", good[:40], "truncated"},
		{"plain", append([]byte{2, 0, 0, 0, 0, 0, 0, 0}, "{}"...), "not a YINSH Zero checkpoint"},
	} {
		p := filepath.Join(dir, f.name)
		os.WriteFile(p, f.data, 0o644)
		_, err := ReadMetadata(p)
		if err == nil || !strings.Contains(err.Error(), f.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %q naming the file", f.name, err, f.want)
		}
	}
	if _, err := ReadMetadata(filepath.Join(dir, "absent")); err == nil {
		t.Error("absent file read")
	}
}

func TestParamCount(t *testing.T) {
	cfg, _ := Preset("tiny")
	var want int64
	for _, s := range Specs(cfg, KindTraining) {
		if s.Trainable {
			want += int64(numel(s.Shape))
		}
	}
	if got := ParamCount(cfg, KindTraining); got != want || got < 100_000 {
		t.Fatalf("ParamCount %d, want %d", got, want)
	}
	// folding trades each batch norm's two vectors for one bias
	if ParamCount(cfg, KindInference) >= ParamCount(cfg, KindTraining) {
		t.Fatal("inference count not below training count")
	}
}
