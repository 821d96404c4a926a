package model

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// randomCheckpoint builds a valid checkpoint of the tiny preset with random tensors.
func randomCheckpoint(t testing.TB, withOpt bool) *Checkpoint {
	t.Helper()
	cfg, _ := Preset("tiny")
	var opt *OptimizerConfig
	if withOpt {
		o := DefaultAdamW()
		opt = &o
	}
	c := &Checkpoint{Meta: NewMetadata(KindTraining, cfg, 42, opt, "gonum"), Tensors: map[string]*Tensor{}}
	rng := rand.New(rand.NewPCG(1, 2))
	specs := c.Meta.ExpectedSpecs()
	for _, s := range specs {
		tt := NewTensor(s.Shape...)
		for i := range tt.Data {
			tt.Data[i] = float32(rng.NormFloat64())
			if strings.HasSuffix(s.Name, "running_var") || strings.HasSuffix(s.Name, "exp_avg_sq") {
				tt.Data[i] = float32(math.Abs(float64(tt.Data[i]))) + 0.1
			}
		}
		c.Tensors[s.Name] = tt
	}
	return c
}

func TestCheckpointEncodeDecode(t *testing.T) {
	c := randomCheckpoint(t, true)
	b, err := EncodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := DecodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Meta.Step != 42 || *d.Meta.Optimizer != *c.Meta.Optimizer || d.Meta.Net != c.Meta.Net || d.Meta.EncodingVersion != env.EncodingVersion {
		t.Fatalf("metadata %+v, want %+v", d.Meta, c.Meta)
	}
	for n, tt := range c.Tensors {
		for i, v := range tt.Data {
			if math.Float32bits(v) != math.Float32bits(d.Tensors[n].Data[i]) {
				t.Fatalf("%s[%d] changed", n, i)
			}
		}
	}
	b2, err := EncodeCheckpoint(d)
	if err != nil || !bytes.Equal(b, b2) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	// The file is plain safetensors: 8-aligned header, readable by any reader.
	tensors, meta, err := ReadSafetensorsBytes(b)
	if err != nil || len(tensors) != len(c.Tensors) || meta["format"] != FormatName {
		t.Fatalf("as plain safetensors: %d tensors, %v, %v", len(tensors), meta, err)
	}
	if (len(b)-len(dataSection(b)))%8 != 0 {
		t.Fatal("header not 8-byte aligned")
	}
}

func dataSection(b []byte) []byte {
	n := int(b[0]) | int(b[1])<<8 | int(b[2])<<16 | int(b[3])<<24
	return b[8+n:]
}

// reencode writes c without validating, with a correct (version 2) checksum, so that only the
// intended defect is in the file.
func reencode(t testing.TB, c *Checkpoint) []byte {
	t.Helper()
	return reencodeMeta(t, c, nil)
}

// reencodeMeta is reencode with extra or changed __metadata__ entries (before the checksum).
func reencodeMeta(t testing.TB, c *Checkpoint, extra map[string]string) []byte {
	t.Helper()
	metaJSON, err := json.Marshal(c.Meta)
	if err != nil {
		t.Fatal(err)
	}
	names, data, err := encodeData(c.Tensors)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{"format": FormatName, "yinsh_version": "2", "yinsh": string(metaJSON)}
	for k, v := range extra {
		meta[k] = v
	}
	meta["sha256"] = checksumV2(meta, names, layoutEntries(names, c.Tensors), data)
	h, err := encodeHeader(names, c.Tensors, meta)
	if err != nil {
		t.Fatal(err)
	}
	return append(h, data...)
}

// encodeV1 writes c as the version 1 writer did (before format versions): no yinsh_version entry,
// the checksum of the metadata JSON and the data only.
func encodeV1(t testing.TB, c *Checkpoint) []byte {
	t.Helper()
	metaJSON, err := json.Marshal(c.Meta)
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := encodeSafetensors(c.Tensors, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, _, err := encodeSafetensors(c.Tensors, map[string]string{"format": FormatName, "yinsh": string(metaJSON), "sha256": checksumV1(metaJSON, data)})
	if err != nil {
		t.Fatal(err)
	}
	return append(h, data...)
}

func TestCheckpointRejects(t *testing.T) {
	good := randomCheckpoint(t, true)
	if _, err := DecodeCheckpoint(reencode(t, good)); err != nil {
		t.Fatalf("reencode of a good checkpoint: %v", err)
	}
	cases := []struct {
		name string
		mod  func(c *Checkpoint)
		want string
	}{
		{"encoding version", func(c *Checkpoint) { c.Meta.EncodingVersion = env.EncodingVersion + 1 }, "encoding version 2"},
		{"num actions", func(c *Checkpoint) { c.Meta.NumActions = 2000 }, "num_actions"},
		{"format", func(c *Checkpoint) { c.Meta.Format = "other" }, "format"},
		{"kind", func(c *Checkpoint) { c.Meta.Kind = "weights" }, "kind"},
		{"architecture range", func(c *Checkpoint) { c.Meta.Net.Channels = 0 }, "channels = 0"},
		{"wrong shape", func(c *Checkpoint) { c.Tensors["tower.1.conv2.weight"] = NewTensor(16, 16, 1, 1) }, "tower.1.conv2.weight has shape [16 16 1 1]"},
		{"architecture mismatch", func(c *Checkpoint) { c.Meta.Net.Channels = 32 }, "stem.conv.weight has shape"},
		{"missing", func(c *Checkpoint) { delete(c.Tensors, "value.fc2.bias") }, "missing tensor value.fc2.bias"},
		{"missing optimiser state", func(c *Checkpoint) { delete(c.Tensors, "optim.stem.conv.weight.exp_avg") }, "missing tensor optim.stem.conv.weight.exp_avg"},
		{"extra", func(c *Checkpoint) { c.Tensors["head.weight"] = NewTensor(3) }, "unexpected tensors head.weight"},
		{"optimiser", func(c *Checkpoint) { c.Meta.Optimizer.Kind = "rmsprop" }, "kind"},
	}
	for _, tc := range cases {
		c := good.Clone()
		tc.mod(c)
		_, err := DecodeCheckpoint(reencode(t, c))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if _, err := EncodeCheckpoint(c); err == nil {
			t.Errorf("%s: EncodeCheckpoint accepted it", tc.name)
		}
	}
	b := reencode(t, good)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a safetensors file"},
		{"text", []byte("#!/bin/sh\necho hello world, not a checkpoint\n"), "not a safetensors file"},
		{"zip", append([]byte("PK\x03\x04"), make([]byte, 100)...), "not a safetensors file"},
		{"truncated header", b[:100], "truncated"},
		{"truncated data", b[:len(b)-4], "truncated"},
		{"trailing data", append(append([]byte(nil), b...), 0, 0, 0, 0), "cover"},
		{"flipped data", flip(b, len(b)-10), "checksum mismatch"},
	} {
		_, err := DecodeCheckpoint(tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// wrong dtype
	hdr := []byte(`{"__metadata__":{"format":"yinsh-zero"},"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`)
	f := append(le64(len(hdr)), hdr...)
	if _, err := DecodeCheckpoint(append(f, 0, 0, 0, 0)); err == nil || !strings.Contains(err.Error(), "F16") {
		t.Errorf("F16: %v", err)
	}
	// overlapping tensors
	hdr = []byte(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`)
	if _, err := DecodeCheckpoint(append(append(le64(len(hdr)), hdr...), 0, 0, 0, 0)); err == nil || !strings.Contains(err.Error(), "starts at") {
		t.Errorf("overlap: %v", err)
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x80
	return c
}

func le64(n int) []byte {
	b := make([]byte, 8)
	for i := 0; i < 8; i++ {
		b[i] = byte(n >> (8 * i))
	}
	return b
}

func TestWriteCheckpointAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ck.safetensors")
	c := randomCheckpoint(t, false)
	if err := WriteCheckpoint(p, c); err != nil {
		t.Fatal(err)
	}
	r, err := ReadCheckpoint(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Meta.Optimizer != nil || len(r.Tensors) != len(Specs(c.Meta.Net, KindTraining)) {
		t.Fatalf("read back %d tensors, optimizer %v", len(r.Tensors), r.Meta.Optimizer)
	}
	before, _ := os.ReadFile(p)
	bad := c.Clone()
	bad.Tensors["stem.conv.weight"] = NewTensor(1)
	if err := WriteCheckpoint(p, bad); err == nil {
		t.Fatal("invalid checkpoint written")
	}
	if err := WriteCheckpoint(filepath.Join(dir, "nodir", "x.safetensors"), c); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	after, _ := os.ReadFile(p)
	ents, _ := os.ReadDir(dir)
	if !bytes.Equal(before, after) || len(ents) != 1 {
		t.Fatalf("failed writes changed the directory: %d entries", len(ents))
	}
	_, err = ReadCheckpoint(filepath.Join(dir, "missing.safetensors"))
	if err == nil || !strings.Contains(err.Error(), "missing.safetensors") {
		t.Fatalf("missing file: %v", err)
	}
}

// TestFold checks the folding formula on one channel and the structure of the result.
func TestFold(t *testing.T) {
	c := randomCheckpoint(t, true)
	f, err := Fold(c)
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta.Kind != KindInference || f.Meta.Optimizer != nil {
		t.Fatalf("meta %+v", f.Meta)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []int{0, 5} {
		g := float64(c.Tensors["tower.1.bn2.weight"].Data[o])
		b := float64(c.Tensors["tower.1.bn2.bias"].Data[o])
		m := float64(c.Tensors["tower.1.bn2.running_mean"].Data[o])
		v := float64(c.Tensors["tower.1.bn2.running_var"].Data[o])
		s := g / math.Sqrt(v+BNEps)
		w := c.Tensors["tower.1.conv2.weight"].Data
		fw := f.Tensors["tower.1.conv2.weight"].Data
		per := len(w) / 16
		for i := o * per; i < (o+1)*per; i++ {
			if math.Abs(float64(fw[i])-float64(w[i])*s) > 1e-6*math.Abs(float64(w[i])*s)+1e-7 {
				t.Fatalf("weight %d: %g, want %g", i, fw[i], float64(w[i])*s)
			}
		}
		if got, want := float64(f.Tensors["tower.1.conv2.bias"].Data[o]), b-m*s; math.Abs(got-want) > 1e-5 {
			t.Fatalf("bias %d: %g, want %g", o, got, want)
		}
	}
	// folding an inference file is the identity
	f2, err := Fold(f)
	if err != nil {
		t.Fatal(err)
	}
	b1, _ := EncodeCheckpoint(f)
	b2, _ := EncodeCheckpoint(f2)
	if !bytes.Equal(b1, b2) {
		t.Fatal("Fold(inference) changed it")
	}
}
