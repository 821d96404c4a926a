package model

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// minConfig is the smallest architecture Validate allows but for the tower (one block, so that the
// file has residual tensors): about 0.26 M parameters, nearly all of them the 2142 × 121 policy fc.
func minConfig() Config {
	return Config{Name: "min", InputPlanes: env.NumPlanes, Channels: 2, Blocks: 1, PolicyChannels: 1, ValueChannels: 1, ValueHidden: 4}
}

// smallCheckpoint is a real checkpoint of minConfig as model/gonum starts one (InitCheckpoint),
// with SGD state and an origin.
func smallCheckpoint(t testing.TB) *Checkpoint {
	t.Helper()
	c := InitCheckpoint(minConfig(), 11, "gonum")
	o := DefaultSGD()
	c.Meta.Optimizer, c.Meta.Step = &o, 17
	c.Meta.SetOrigin(Origin{Variant: env.Standard, RunID: "corrupt-test", Generation: 3})
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range OptimizerSpecs(c.Meta.Net, o.Kind) {
		tt := NewTensor(s.Shape...)
		for i := range tt.Data {
			tt.Data[i] = float32(rng.NormFloat64() * 0.01)
		}
		c.Tensors[s.Name] = tt
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// readGz reads a gzipped test file.
func readGz(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sameTensors(t testing.TB, a, b map[string]*Tensor) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d tensors, want %d", len(b), len(a))
	}
	for n, ta := range a {
		tb, ok := b[n]
		if !ok || !sameShape(ta.Shape, tb.Shape) || len(ta.Data) != len(tb.Data) {
			t.Fatalf("tensor %s differs", n)
		}
		for i := range ta.Data {
			if math.Float32bits(ta.Data[i]) != math.Float32bits(tb.Data[i]) {
				t.Fatalf("%s[%d] differs", n, i)
			}
		}
	}
}

// TestReadVersion1 reads checkpoints written by the version 1 writer (testdata: made by the code of
// commit 5e2ca41, before format versions) and checks they load, report version 1, and are rewritten
// as version 2 with the same content.
func TestReadVersion1(t *testing.T) {
	for _, f := range []struct {
		path, kind string
		opt        bool
	}{
		{"testdata/checkpoint-v1-training.safetensors.gz", KindTraining, true},
		{"testdata/checkpoint-v1-inference.safetensors.gz", KindInference, false},
	} {
		b := readGz(t, f.path)
		if bytes.Contains(b[:8+binary.LittleEndian.Uint64(b)], []byte("yinsh_version")) {
			t.Fatalf("%s is not a version 1 file", f.path)
		}
		c, err := DecodeCheckpoint(b)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		if c.Meta.Kind != f.kind || (c.Meta.Optimizer != nil) != f.opt {
			t.Fatalf("%s: metadata %+v", f.path, c.Meta)
		}
		h, err := readHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil || h.Version != 1 || h.Tensors != len(c.Tensors) {
			t.Fatalf("%s: readHeader %+v, %v", f.path, h, err)
		}
		v2, err := EncodeCheckpoint(c)
		if err != nil {
			t.Fatal(err)
		}
		d, err := DecodeCheckpoint(v2)
		if err != nil {
			t.Fatal(err)
		}
		sameTensors(t, c.Tensors, d.Tensors)
		if h2, err := readHeader(bytes.NewReader(v2), int64(len(v2))); err != nil || h2.Version != FormatVersion {
			t.Fatalf("rewritten: %+v, %v", h2, err)
		}
		// the version 1 writer (encodeV1) gives the same bytes as the file
		if !bytes.Equal(encodeV1(t, c), b) {
			t.Fatalf("%s: encodeV1 is not the version 1 writer", f.path)
		}
	}
	// version 1 files get their tensor order checked: swapped offsets of same-shape tensors (which
	// the version 1 checksum does not cover) are rejected
	c := smallCheckpoint(t)
	b := encodeV1(t, c)
	if _, err := DecodeCheckpoint(b); err != nil {
		t.Fatal(err)
	}
	bad := editHeader(t, b, func(h *rawHeader) {
		h.swapOffsets("stem.bn.weight", "stem.bn.bias")
	})
	for _, err := range []error{decodeErr(bad), headerErr(bad)} {
		if err == nil || !strings.Contains(err.Error(), "name order") {
			t.Errorf("v1 swapped offsets: %v", err)
		}
	}
}

func decodeErr(b []byte) error {
	_, err := DecodeCheckpoint(b)
	return err
}

func headerErr(b []byte) error {
	_, err := readHeader(bytes.NewReader(b), int64(len(b)))
	return err
}

func TestFormatVersions(t *testing.T) {
	c := smallCheckpoint(t)
	b, err := EncodeCheckpoint(c)
	if err != nil {
		t.Fatal(err)
	}
	hdr := string(b[8 : 8+binary.LittleEndian.Uint64(b)])
	if !strings.Contains(hdr, `"yinsh_version":"2"`) {
		t.Fatalf("no version in %.200s", hdr)
	}
	for _, tc := range []struct {
		name  string
		extra map[string]string
		want  string
	}{
		{"future", map[string]string{"yinsh_version": "7"}, "checkpoint format version 7, this build reads 1..2"},
		{"zero", map[string]string{"yinsh_version": "0"}, "checkpoint format version 0, this build reads 1..2"},
		{"not a number", map[string]string{"yinsh_version": "2.0"}, `format version "2.0" is not a number`},
		{"unknown entry", map[string]string{"comment": "hi"}, `unknown __metadata__ entry "comment"`},
	} {
		bad := reencodeMeta(t, c, tc.extra)
		for _, err := range []error{decodeErr(bad), headerErr(bad)} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			}
		}
	}
	// a version 2 file relabelled version 1 fails the version 1 checksum
	bad := editHeader(t, b, func(h *rawHeader) { delete(h.meta, "yinsh_version") })
	if err := decodeErr(bad); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("downgraded: %v", err)
	}
	// JSON whitespace does not change the canonical checksum, but the header must be canonical
	sp := editJSON(b, func(obj []byte) []byte {
		return bytes.Replace(obj, []byte(`,"stem.bn.bias":`), []byte(`, "stem.bn.bias":`), 1)
	})
	for _, err := range []error{decodeErr(sp), headerErr(sp)} {
		if err == nil || !strings.Contains(err.Error(), "canonical") {
			t.Errorf("whitespace: %v", err)
		}
	}
}

func TestMetadataFieldsValidated(t *testing.T) {
	good := smallCheckpoint(t)
	for _, tc := range []struct {
		name string
		mod  func(m *Metadata)
		want string
	}{
		{"backend", func(m *Metadata) { m.Backend = "tensorflow" }, `metadata backend "tensorflow"`},
		{"action layout", func(m *Metadata) { m.ActionLayout = "yinsh-v2: 2143 actions" }, "metadata action_layout"},
		{"run id length", func(m *Metadata) { m.Run.ID = strings.Repeat("r", 256) }, "metadata run.id is 256 bytes long"},
		{"run id control", func(m *Metadata) { m.Run.ID = "run\n2" }, "metadata run.id"},
		{"run id utf-8", func(m *Metadata) { m.Run.ID = "run\xff" }, "metadata run.id"},
		{"run generation", func(m *Metadata) { m.Run.Generation = -1 }, "metadata run.generation -1"},
		{"net name", func(m *Metadata) { m.Net.Name = "tiny\x00" }, "name"},
		{"optimizer lr", func(m *Metadata) { m.Optimizer.Schedule.LR = 0 }, "metadata optimizer: model: schedule: lr"},
		{"optimizer momentum", func(m *Metadata) { m.Optimizer.Momentum = math.Inf(1) }, "momentum"},
		{"variant", func(m *Metadata) { m.Variant = "speed" }, `metadata variant "speed"`},
		{"step", func(m *Metadata) { m.Step = -1 }, "metadata step -1"},
	} {
		c := good.Clone()
		tc.mod(&c.Meta)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate: %v, want %q", tc.name, err, tc.want)
		}
		if tc.name == "optimizer momentum" || tc.name == "run id utf-8" {
			continue // +Inf has no JSON encoding; JSON carries invalid UTF-8 as U+FFFD
		}
		b := reencode(t, c)
		for _, err := range []error{decodeErr(b), headerErr(b)} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
			}
		}
	}
	// unknown JSON fields are rejected at every level of the metadata
	metaJSON, _ := json.Marshal(good.Meta)
	for _, tc := range []struct{ old, new, want string }{
		{`"kind":`, `"extra":1,"kind":`, `unknown field "extra"`},
		{`"channels":`, `"depth":3,"channels":`, `unknown field "depth"`},
		{`"lr":`, `"lr_max":1,"lr":`, `unknown field "lr_max"`},
		{`"generation":`, `"epoch":1,"generation":`, `unknown field "epoch"`},
	} {
		j := strings.Replace(string(metaJSON), tc.old, tc.new, 1)
		if j == string(metaJSON) {
			t.Fatalf("no %s in %s", tc.old, metaJSON)
		}
		b := reencodeMeta(t, good, map[string]string{"yinsh": j})
		for _, err := range []error{decodeErr(b), headerErr(b)} {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want %q", tc.new, err, tc.want)
			}
		}
	}
	b := reencodeMeta(t, good, map[string]string{"yinsh": string(metaJSON) + "{}"})
	if err := decodeErr(b); err == nil || !strings.Contains(err.Error(), "after the JSON object") {
		t.Errorf("trailing metadata: %v", err)
	}
	// the known writers are accepted
	for _, be := range append([]string{""}, knownBackends...) {
		c := good.Clone()
		c.Meta.Backend = be
		if _, err := DecodeCheckpoint(reencode(t, c)); err != nil {
			t.Errorf("backend %q: %v", be, err)
		}
	}
}

// rawHeader is a checkpoint header taken apart, for writing corrupted files.
type rawHeader struct {
	meta    map[string]string
	order   []string // tensor names in file order
	entries map[string]stEntry
	data    []byte
}

func splitRaw(t testing.TB, b []byte) *rawHeader {
	t.Helper()
	n := binary.LittleEndian.Uint64(b)
	keys, vals, err := decodeObject(b[8 : 8+n])
	if err != nil {
		t.Fatal(err)
	}
	h := &rawHeader{meta: map[string]string{}, entries: map[string]stEntry{}, data: b[8+n:]}
	for _, k := range keys {
		if k == "__metadata__" {
			if err := json.Unmarshal(vals[k], &h.meta); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var e stEntry
		if err := json.Unmarshal(vals[k], &e); err != nil {
			t.Fatal(err)
		}
		h.order = append(h.order, k)
		h.entries[k] = e
	}
	return h
}

// bytes writes the header as the checkpoint writer lays out JSON, in h.order, with the length
// prefix and padding recomputed.
func (h *rawHeader) bytes(t testing.TB) []byte {
	t.Helper()
	var j bytes.Buffer
	j.WriteString("{")
	if h.meta != nil {
		mb, _ := json.Marshal(h.meta)
		j.WriteString(`"__metadata__":`)
		j.Write(mb)
	}
	for i, n := range h.order {
		if i > 0 || h.meta != nil {
			j.WriteString(",")
		}
		nb, _ := json.Marshal(n)
		eb, _ := json.Marshal(h.entries[n])
		j.Write(nb)
		j.WriteString(":")
		j.Write(eb)
	}
	j.WriteString("}")
	for j.Len()%8 != 0 {
		j.WriteByte(' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(j.Len()))
	out = append(out, j.Bytes()...)
	return append(out, h.data...)
}

func (h *rawHeader) swapOffsets(a, b string) {
	ea, eb := h.entries[a], h.entries[b]
	ea.DataOffsets, eb.DataOffsets = eb.DataOffsets, ea.DataOffsets
	h.entries[a], h.entries[b] = ea, eb
}

// editHeader rewrites b's header after edit, with the length prefix and padding recomputed.
func editHeader(t testing.TB, b []byte, edit func(h *rawHeader)) []byte {
	t.Helper()
	h := splitRaw(t, b)
	edit(h)
	return h.bytes(t)
}

// editJSON rewrites b's header JSON text (padding removed) with f, then pads it and fixes the length
// prefix; the data section is kept.
func editJSON(b []byte, f func(obj []byte) []byte) []byte {
	n := binary.LittleEndian.Uint64(b)
	obj := f(bytes.TrimRight(append([]byte(nil), b[8:8+n]...), " "))
	for len(obj)%8 != 0 {
		obj = append(obj, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(obj)))
	return append(append(out, obj...), b[8+n:]...)
}

// TestHugeShapes checks that shapes whose element counts overflow int64 are rejected, even against a
// data section as large as a sparse file's (ReadMetadata trusts the file size).
func TestHugeShapes(t *testing.T) {
	for _, shape := range []string{"[1073741824,1073741824,1073741824]", "[1073741824,1073741824,1073741824,1073741824,16]", "[3,1073741824,1073741824,1073741824]"} {
		hdr := []byte(`{"w":{"dtype":"F32","shape":` + shape + `,"data_offsets":[0,4]}}`)
		if _, err := parseHeader(hdr, 1<<62); err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("shape %s: %v", shape, err)
		}
	}
	// a zero dimension anywhere holds nothing, however large the others
	hdr := []byte(`{"w":{"dtype":"F32","shape":[1073741824,0,1073741824],"data_offsets":[0,0]}}`)
	if _, err := parseHeader(hdr, 0); err != nil {
		t.Error(err)
	}
}

// TestReadRefusesSpecialFiles: a device or a directory is refused at once, not read forever.
func TestReadRefusesSpecialFiles(t *testing.T) {
	for _, p := range []string{"/dev/zero", t.TempDir()} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := ReadCheckpoint(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadCheckpoint(%s): %v", p, err)
		}
		if _, err := ReadMetadata(p); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadMetadata(%s): %v", p, err)
		}
	}
}
