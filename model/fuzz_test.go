package model

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/env"
)

// Fuzz targets for every input that enters the package: checkpoint files (DecodeCheckpoint), their
// headers (ReadMetadata), plain safetensors files and architecture YAML. The committed seed corpus
// under testdata/fuzz holds small inputs (headers, plain safetensors, configs: a valid checkpoint is
// at least 1 MB, the 2142 × 121 policy fc); the valid checkpoints are added by f.Add. Regenerate the
// seed-* files with YINSH_WRITE_FUZZ_SEEDS=1 go test ./model -run TestWriteFuzzSeeds (other files
// there are regression inputs of crashes found: keep them).

// fuzzConfig is the smallest architecture Validate allows.
func fuzzConfig() Config {
	return Config{Name: "fuzz", InputPlanes: env.NumPlanes, Channels: 1, Blocks: 0, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 1}
}

// fuzzCheckpoints returns valid files of fuzzConfig: version 2 training (with AdamW state and an
// origin), version 2 inference, version 1 training.
func fuzzCheckpoints(t testing.TB) [][]byte {
	c := InitCheckpoint(fuzzConfig(), 3, "gonum")
	inf, err := Fold(c)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultAdamW()
	c.Meta.Optimizer = &o
	c.Meta.SetOrigin(Origin{Variant: env.Blitz, RunID: "fuzz", Generation: 1})
	for _, s := range OptimizerSpecs(c.Meta.Net, o.Kind) {
		c.Tensors[s.Name] = NewTensor(s.Shape...)
	}
	var out [][]byte
	for _, k := range []*Checkpoint{c, inf} {
		b, err := EncodeCheckpoint(k)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return append(out, encodeV1(t, inf))
}

// headerOf is a file's length prefix and header, and the length of its data section.
func headerOf(b []byte) ([]byte, uint64) {
	n := binary.LittleEndian.Uint64(b)
	return b[: 8+n : 8+n], uint64(len(b)) - 8 - n
}

// plainSafetensors returns small safetensors files that are not checkpoints.
func plainSafetensors(t testing.TB) [][]byte {
	var out [][]byte
	for _, ts := range []map[string]*Tensor{
		{},
		{"w": {Shape: []int{2}, Data: []float32{1, -2}}, "b": {Shape: []int{}, Data: []float32{0.5}}},
		{"x": {Shape: []int{0, 3}, Data: []float32{}}, "y": {Shape: []int{1, 1, 2}, Data: []float32{3, 4}}},
	} {
		for _, meta := range []map[string]string{nil, {"format": "pt", "k": "v"}} {
			h, d, err := encodeSafetensors(ts, meta)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, append(h, d...))
		}
	}
	return out
}

func FuzzDecodeCheckpoint(f *testing.F) {
	for _, b := range fuzzCheckpoints(f) {
		f.Add(b)
		h, _ := headerOf(b)
		f.Add(h)
	}
	for _, b := range plainSafetensors(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeCheckpoint(b)
		if err != nil {
			return
		}
		// whatever the full read accepts, the header read accepts, with the same metadata
		h, err := readHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("DecodeCheckpoint accepts it, readHeader does not: %v", err)
		}
		if !reflect.DeepEqual(h.Meta, c.Meta) || h.Tensors != len(c.Tensors) {
			t.Fatalf("readHeader %+v, DecodeCheckpoint %+v", h.Meta, c.Meta)
		}
		b2, err := EncodeCheckpoint(c)
		if err != nil {
			t.Fatalf("accepted checkpoint does not encode: %v", err)
		}
		d, err := DecodeCheckpoint(b2)
		if err != nil {
			t.Fatalf("re-encoded checkpoint does not decode: %v", err)
		}
		sameTensors(t, c.Tensors, d.Tensors)
		if !reflect.DeepEqual(c.Meta, d.Meta) {
			t.Fatalf("metadata %+v, re-read %+v", c.Meta, d.Meta)
		}
		if h.Version == FormatVersion {
			// a version 2 file is canonical but for its metadata JSON: with that canonical too, the
			// file is exactly what the writer writes
			sh, _, err := splitSafetensors(b)
			if err != nil {
				t.Fatal(err)
			}
			if canon, _ := json.Marshal(c.Meta); sh.meta[metaJSONKey] == string(canon) && !bytes.Equal(b, b2) {
				t.Fatal("a version 2 file with canonical metadata JSON re-encodes differently")
			}
		}
	})
}

func FuzzReadMetadata(f *testing.F) {
	for _, b := range fuzzCheckpoints(f) {
		h, n := headerOf(b)
		f.Add(h, n)
	}
	for _, b := range plainSafetensors(f) {
		f.Add(b, uint64(0))
	}
	f.Add([]byte("hello"), uint64(0))
	f.Fuzz(func(t *testing.T, b []byte, extra uint64) {
		// b is the start of a file of len(b)+extra bytes (the rest of the data section is not read;
		// extra is cut to 62 bits so that the size is an int64)
		extra &= 1<<62 - 1
		size := int64(len(b)) + int64(extra)
		h, err := readHeader(bytes.NewReader(b), size)
		if err != nil {
			if extra == 0 {
				if _, derr := DecodeCheckpoint(b); derr == nil {
					t.Fatalf("readHeader rejects a file DecodeCheckpoint accepts: %v", err)
				}
			}
			return
		}
		if h.Version < MinFormatVersion || h.Version > FormatVersion || !isHexSHA256(h.SHA256) {
			t.Fatalf("accepted header %+v", h)
		}
		if err := h.Meta.validate(); err != nil {
			t.Fatalf("accepted metadata does not validate: %v", err)
		}
		if h.Tensors != len(h.Meta.ExpectedSpecs()) {
			t.Fatalf("%d tensors, the metadata needs %d", h.Tensors, len(h.Meta.ExpectedSpecs()))
		}
	})
}

func FuzzDecodeSafetensors(f *testing.F) {
	for _, b := range plainSafetensors(f) {
		f.Add(b)
	}
	for _, b := range fuzzCheckpoints(f) {
		h, _ := headerOf(b)
		f.Add(h)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, meta, err := ReadSafetensorsBytes(b)
		if err != nil {
			return
		}
		h, d, err := encodeSafetensors(ts, meta)
		if err != nil {
			t.Fatalf("accepted file does not encode: %v", err)
		}
		ts2, meta2, err := ReadSafetensorsBytes(append(h, d...))
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		sameTensors(t, ts, ts2)
		if !reflect.DeepEqual(meta, meta2) {
			t.Fatalf("metadata %v, re-read %v", meta, meta2)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"net-tiny.yaml", "net-small.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "configs", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{
		"channels: 8\npolicy_channels: 1\nvalue_channels: 1\nvalue_hidden: 8\n",
		"name: x\nchannels: 0\n",
		"channels: 8\ndepth: 3\n",
		"{channels: 8, blocks: 1, policy_channels: 2, value_channels: 1, value_hidden: 16}",
		"",
		"---\nchannels: 1\n---\nchannels: 2\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(strings.NewReader(s), "fuzz.yaml")
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config does not validate: %v", err)
		}
		y, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("accepted config does not marshal: %v", err)
		}
		c2, err := ParseConfig(bytes.NewReader(y), "round-trip")
		if err != nil {
			t.Fatalf("round trip of %+v (%q): %v", c, y, err)
		}
		if c2 != c {
			t.Fatalf("round trip %+v, want %+v", c2, c)
		}
	})
}

// TestWriteFuzzSeeds writes the seed-* files of the committed corpus (see the comment at the top).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("YINSH_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set YINSH_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/*/seed-*")
	}
	write := func(target, name string, args ...any) {
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, a := range args {
			switch v := a.(type) {
			case []byte:
				fmt.Fprintf(&b, "[]byte(%q)\n", v)
			case string:
				fmt.Fprintf(&b, "string(%q)\n", v)
			case uint64:
				fmt.Fprintf(&b, "uint64(%d)\n", v)
			default:
				t.Fatalf("%T", a)
			}
		}
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cks := fuzzCheckpoints(t)
	for i, name := range []string{"v2-training", "v2-inference", "v1-inference"} {
		h, n := headerOf(cks[i])
		write("FuzzReadMetadata", name+"-header", h, n)
		if i == 0 {
			write("FuzzReadMetadata", name+"-header-huge-file", h, uint64(1)<<61)
		}
		write("FuzzDecodeCheckpoint", name+"-header-only", h)
		write("FuzzDecodeSafetensors", name+"-header-only", h)
		// the header and the first data bytes: truncated in the data section
		write("FuzzDecodeCheckpoint", name+"-truncated", cks[i][:len(h)+64])
	}
	for i, b := range plainSafetensors(t) {
		write("FuzzDecodeSafetensors", fmt.Sprintf("plain-%d", i), b)
		write("FuzzDecodeCheckpoint", fmt.Sprintf("plain-%d", i), b)
		write("FuzzReadMetadata", fmt.Sprintf("plain-%d", i), b, uint64(0))
	}
	write("FuzzDecodeCheckpoint", "text", []byte("#!/bin/sh\necho not a checkpoint\n"))
	for _, p := range []string{"net-tiny.yaml", "net-small.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "configs", p))
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzParseConfig", strings.TrimSuffix(p, ".yaml"), string(b))
	}
	write("FuzzParseConfig", "flow", "{channels: 8, blocks: 1, policy_channels: 2, value_channels: 1, value_hidden: 16, name: \"a b\"}")
	write("FuzzParseConfig", "unknown-key", "channels: 8\ndepth: 3\n")
	write("FuzzParseConfig", "two-documents", "---\nchannels: 1\n---\nchannels: 2\n")
}
