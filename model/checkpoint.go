package model

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// Checkpoint file format (backend-neutral; model/gonum and model/torch read and write the same files).
//
// A checkpoint is one safetensors file (see safetensors.go) whose tensors are all F32 and whose
// __metadata__ has three string entries:
//
//	"format"  "yinsh-zero"
//	"yinsh"   the Metadata below as JSON (architecture, encoding version, kind, step, optimiser;
//	          since 2026-12 also the variant, run id and generation; absent means unknown)
//	"sha256"  lowercase hex SHA-256 of: the "yinsh" JSON bytes, then one zero byte, then the whole
//	          tensor data section (the bytes after the header)
//
// Tensor names and shapes (C = Channels, I = InputPlanes, P = PolicyChannels, V = ValueChannels,
// H = ValueHidden, A = env.NumActions = 2142; conv weights are [out, in, kh, kw], fully connected
// weights [out, in], exactly PyTorch's nn.Conv2d / nn.Linear / nn.BatchNorm2d state_dict layout):
//
//	stem.conv.weight            [C, I, 3, 3]
//	stem.bn.<bn>                [C]
//	tower.<i>.conv1.weight      [C, C, 3, 3]        i = 0 .. Blocks-1
//	tower.<i>.bn1.<bn>          [C]
//	tower.<i>.conv2.weight      [C, C, 3, 3]
//	tower.<i>.bn2.<bn>          [C]
//	policy.conv.weight          [P, C, 1, 1]
//	policy.bn.<bn>              [P]
//	policy.fc.weight            [A, P*121]
//	policy.fc.bias              [A]
//	value.conv.weight           [V, C, 1, 1]
//	value.bn.<bn>               [V]
//	value.fc1.weight            [H, V*121]
//	value.fc1.bias              [H]
//	value.fc2.weight            [3, H]
//	value.fc2.bias              [3]
//
// where <bn> is weight (γ), bias (β), running_mean and running_var. A training checkpoint (Kind
// "training") holds all of these, plus, when Metadata.Optimizer is set, one tensor per trainable
// parameter (every tensor above except running_mean/running_var) and optimiser slot:
//
//	optim.<parameter name>.momentum                     SGD
//	optim.<parameter name>.exp_avg, .exp_avg_sq         AdamW
//
// An inference file (Kind "inference", written by `yinsh export --format safetensors`) has batch norm
// folded into the convolutions: the bn tensors are gone and every conv gains a bias
// (stem.conv.bias [C], tower.<i>.conv1.bias, tower.<i>.conv2.bias [C], policy.conv.bias [P],
// value.conv.bias [V]); see Fold.

// Checkpoint kinds.
const (
	KindTraining  = "training"
	KindInference = "inference"
)

// FormatName is the value of __metadata__["format"].
const FormatName = "yinsh-zero"

// ActionLayout describes the policy output order for game clients (also in ONNX metadata).
const ActionLayout = "yinsh-v1: 2142 actions = [0,85) place ring on point p; [85,1933) ring moves " +
	"(from,to) on a common line sorted by from then to; [1933,2056) row removals by end points; " +
	"[2056,2141) ring removals; 2141 pass. Points in column order a2..a5,b1..b7,...,k7..k10. " +
	"Planes [15,11,11] indexed [plane][column a..k][row-1], from the view of the side to act; " +
	"WDL = [win, draw, loss] for the side to act."

// Metadata is the JSON stored in __metadata__["yinsh"].
type Metadata struct {
	// Format is FormatName.
	Format string `json:"format"`
	// Kind is KindTraining or KindInference.
	Kind string `json:"kind"`
	// EncodingVersion is env.EncodingVersion of the observation the net was trained on.
	EncodingVersion int `json:"encoding_version"`
	// NumActions is the policy size, env.NumActions.
	NumActions int `json:"num_actions"`
	// Net is the architecture.
	Net Config `json:"net"`
	// Step is the number of optimiser steps taken.
	Step int64 `json:"step"`
	// Optimizer is the optimiser configuration, when optimiser state is stored.
	Optimizer *OptimizerConfig `json:"optimizer,omitempty"`
	// Backend names the writer ("gonum", "torch"); informational.
	Backend string `json:"backend,omitempty"`
	// ActionLayout is ActionLayout; informational.
	ActionLayout string `json:"action_layout,omitempty"`
	// Variant is the rules variant the network was trained for ("standard" or "blitz"); "" is
	// unknown (checkpoints written before the field existed, `yinsh model init` without --variant).
	Variant string `json:"variant,omitempty"`
	// Run says which training run wrote the checkpoint, and at which generation; nil is unknown.
	Run *RunInfo `json:"run,omitempty"`
}

// RunInfo identifies the training run and generation of a checkpoint.
type RunInfo struct {
	// ID names the run (its directory name, or whatever the trainer chose).
	ID string `json:"id"`
	// Generation is the run's generation of the network (0: the initial network).
	Generation int `json:"generation"`
}

// Origin is what a trainer records about a checkpoint it writes (see SetOrigin, SaveNet).
type Origin struct {
	Variant    env.Variant
	RunID      string
	Generation int
}

// SetOrigin records the variant, run and generation in the metadata.
func (m *Metadata) SetOrigin(o Origin) {
	m.Variant = o.Variant.String()
	m.Run = &RunInfo{ID: o.RunID, Generation: o.Generation}
}

// VariantValue returns the variant the network was trained for and true, or false when it is
// unknown.
func (m *Metadata) VariantValue() (env.Variant, bool) {
	if m.Variant == "" {
		return 0, false
	}
	v, err := env.ParseVariant(m.Variant)
	return v, err == nil
}

// SaveNet writes net's checkpoint to path atomically, as net.Save does, with the origin recorded in
// its metadata.
func SaveNet(net Net, path string, o Origin) error {
	ck, err := net.Checkpoint()
	if err != nil {
		return err
	}
	ck.Meta.SetOrigin(o)
	return WriteCheckpoint(path, ck)
}

// ParamCount is the number of trainable parameters of a net of this architecture and kind
// (KindTraining or KindInference, whose folded convolutions have biases instead of batch norm).
func ParamCount(cfg Config, kind string) int64 {
	var n int64
	for _, s := range Specs(cfg, kind) {
		if s.Trainable {
			n += int64(numel(s.Shape))
		}
	}
	return n
}

// NewMetadata returns metadata for a net of this build's encoding.
func NewMetadata(kind string, cfg Config, step int64, opt *OptimizerConfig, backend string) Metadata {
	return Metadata{
		Format: FormatName, Kind: kind, EncodingVersion: env.EncodingVersion, NumActions: env.NumActions,
		Net: cfg, Step: step, Optimizer: opt, Backend: backend, ActionLayout: ActionLayout,
	}
}

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	Meta    Metadata
	Tensors map[string]*Tensor
}

// TensorSpec names a tensor and its shape.
type TensorSpec struct {
	Name  string
	Shape []int
	// Trainable is true for parameters (false for batch-norm running statistics).
	Trainable bool
}

// Specs lists the tensors of a net with the given kind (KindTraining without optimiser state, or
// KindInference), in a fixed order (the order of the forward pass).
func Specs(cfg Config, kind string) []TensorSpec {
	var s []TensorSpec
	add := func(name string, trainable bool, shape ...int) {
		s = append(s, TensorSpec{name, shape, trainable})
	}
	conv := func(prefix, conv, bn string, out, in, k int) {
		add(prefix+"."+conv+".weight", true, out, in, k, k)
		if kind == KindInference {
			add(prefix+"."+conv+".bias", true, out)
			return
		}
		add(prefix+"."+bn+".weight", true, out)
		add(prefix+"."+bn+".bias", true, out)
		add(prefix+"."+bn+".running_mean", false, out)
		add(prefix+"."+bn+".running_var", false, out)
	}
	c := cfg.Channels
	conv("stem", "conv", "bn", c, cfg.InputPlanes, 3)
	for i := 0; i < cfg.Blocks; i++ {
		p := "tower." + itoa(i)
		conv(p, "conv1", "bn1", c, c, 3)
		conv(p, "conv2", "bn2", c, c, 3)
	}
	conv("policy", "conv", "bn", cfg.PolicyChannels, c, 1)
	add("policy.fc.weight", true, env.NumActions, cfg.PolicyChannels*NumCells)
	add("policy.fc.bias", true, env.NumActions)
	conv("value", "conv", "bn", cfg.ValueChannels, c, 1)
	add("value.fc1.weight", true, cfg.ValueHidden, cfg.ValueChannels*NumCells)
	add("value.fc1.bias", true, cfg.ValueHidden)
	add("value.fc2.weight", true, NumWDL, cfg.ValueHidden)
	add("value.fc2.bias", true, NumWDL)
	return s
}

// OptimizerSpecs lists the optimiser state tensors for the given optimiser kind.
func OptimizerSpecs(cfg Config, kind string) []TensorSpec {
	var s []TensorSpec
	for _, p := range Specs(cfg, KindTraining) {
		if !p.Trainable {
			continue
		}
		for _, slot := range OptimizerSlots(kind) {
			s = append(s, TensorSpec{Name: "optim." + p.Name + "." + slot, Shape: p.Shape})
		}
	}
	return s
}

// ExpectedSpecs lists every tensor a checkpoint with this metadata must hold.
func (m *Metadata) ExpectedSpecs() []TensorSpec {
	s := Specs(m.Net, m.Kind)
	if m.Kind == KindTraining && m.Optimizer != nil {
		s = append(s, OptimizerSpecs(m.Net, m.Optimizer.Kind)...)
	}
	return s
}

// validateMeta checks the metadata against this build.
func (m *Metadata) validate() error {
	if m.Format != FormatName {
		return fmt.Errorf("metadata format %q, want %q", m.Format, FormatName)
	}
	if m.Kind != KindTraining && m.Kind != KindInference {
		return fmt.Errorf("metadata kind %q, want %q or %q", m.Kind, KindTraining, KindInference)
	}
	if m.EncodingVersion != env.EncodingVersion {
		return fmt.Errorf("observation encoding version %d, this build uses %d (the network was trained on a different input encoding)",
			m.EncodingVersion, env.EncodingVersion)
	}
	if m.NumActions != env.NumActions {
		return fmt.Errorf("num_actions %d, this build has %d", m.NumActions, env.NumActions)
	}
	if m.Step < 0 {
		return fmt.Errorf("step %d < 0", m.Step)
	}
	if m.Variant != "" {
		if _, err := env.ParseVariant(m.Variant); err != nil {
			return fmt.Errorf("variant %q, want standard or blitz (or none)", m.Variant)
		}
	}
	if m.Run != nil && m.Run.Generation < 0 {
		return fmt.Errorf("run generation %d < 0", m.Run.Generation)
	}
	if err := m.Net.Validate(); err != nil {
		return err
	}
	if m.Optimizer != nil {
		if m.Kind != KindTraining {
			return fmt.Errorf("optimizer state in a %s file", m.Kind)
		}
		if err := m.Optimizer.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Validate checks the metadata and that the tensors are exactly ExpectedSpecs: same names, same
// shapes, data lengths matching.
func (c *Checkpoint) Validate() error {
	if err := c.Meta.validate(); err != nil {
		return err
	}
	want := c.Meta.ExpectedSpecs()
	seen := make(map[string]bool, len(want))
	for _, s := range want {
		seen[s.Name] = true
		t, ok := c.Tensors[s.Name]
		if !ok {
			return fmt.Errorf("missing tensor %s %v (architecture %s)", s.Name, s.Shape, c.Meta.Net.describe())
		}
		if !sameShape(t.Shape, s.Shape) {
			return fmt.Errorf("tensor %s has shape %v, the architecture needs %v", s.Name, t.Shape, s.Shape)
		}
		if len(t.Data) != numel(s.Shape) {
			return fmt.Errorf("tensor %s has %d values, shape %v needs %d", s.Name, len(t.Data), s.Shape, numel(s.Shape))
		}
	}
	var extra []string
	for n := range c.Tensors {
		if !seen[n] {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return fmt.Errorf("unexpected tensors %s (not part of a %s %s file)", strings.Join(extra, ", "), c.Meta.Net.describe(), c.Meta.Kind)
	}
	return nil
}

func (c Config) describe() string {
	return fmt.Sprintf("%dx%d/p%d/v%dx%d", c.Blocks, c.Channels, c.PolicyChannels, c.ValueChannels, c.ValueHidden)
}

// Clone returns a deep copy.
func (c *Checkpoint) Clone() *Checkpoint {
	d := &Checkpoint{Meta: c.Meta, Tensors: make(map[string]*Tensor, len(c.Tensors))}
	if c.Meta.Optimizer != nil {
		o := *c.Meta.Optimizer
		d.Meta.Optimizer = &o
	}
	if c.Meta.Run != nil {
		r := *c.Meta.Run
		d.Meta.Run = &r
	}
	for n, t := range c.Tensors {
		d.Tensors[n] = t.Clone()
	}
	return d
}

func checksum(metaJSON, data []byte) string {
	h := sha256.New()
	h.Write(metaJSON)
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeCheckpoint validates the checkpoint and returns the file bytes.
func EncodeCheckpoint(c *Checkpoint) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("model: checkpoint: %w", err)
	}
	metaJSON, err := json.Marshal(c.Meta)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint: %w", err)
	}
	names, data, err := encodeData(c.Tensors)
	if err != nil {
		return nil, err
	}
	meta := map[string]string{
		"format": FormatName,
		"yinsh":  string(metaJSON),
		"sha256": checksum(metaJSON, data),
	}
	header, err := encodeHeader(names, c.Tensors, meta)
	if err != nil {
		return nil, err
	}
	return append(header, data...), nil
}

// DecodeCheckpoint parses and fully checks checkpoint bytes: safetensors structure, format marker,
// checksum, metadata (encoding version, architecture ranges) and tensor names and shapes.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	tensors, meta, data, err := decodeSafetensors(b)
	if err != nil {
		return nil, err
	}
	metaJSON, sum, err := checkpointEntries(meta)
	if err != nil {
		return nil, err
	}
	if got := checksum([]byte(metaJSON), data); got != sum {
		return nil, fmt.Errorf("checksum mismatch: file says sha256 %.12s…, content hashes to %.12s… (corrupt or modified)", sum, got)
	}
	c := &Checkpoint{Tensors: tensors}
	if err := json.Unmarshal([]byte(metaJSON), &c.Meta); err != nil {
		return nil, fmt.Errorf("corrupt checkpoint metadata: %v", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// checkpointEntries returns the yinsh metadata JSON and the checksum of a checkpoint's
// __metadata__, or says why it is not a checkpoint.
func checkpointEntries(meta map[string]string) (metaJSON, sum string, err error) {
	if f, ok := meta["format"]; !ok || f != FormatName {
		if !ok {
			return "", "", errors.New("a safetensors file but not a YINSH Zero checkpoint (no __metadata__ format entry)")
		}
		return "", "", fmt.Errorf("a safetensors file but not a YINSH Zero checkpoint (format %q)", f)
	}
	metaJSON, ok := meta["yinsh"]
	if !ok {
		return "", "", errors.New("corrupt checkpoint: no yinsh metadata")
	}
	sum, ok = meta["sha256"]
	if !ok {
		return "", "", errors.New("corrupt checkpoint: no sha256 checksum")
	}
	return metaJSON, sum, nil
}

// HeaderInfo is what ReadMetadata reads from the start of a checkpoint file.
type HeaderInfo struct {
	Meta Metadata
	// SHA256 is the checksum the file records (of the metadata and the tensor data; not verified).
	SHA256 string
	// Tensors is the number of tensors the header lists.
	Tensors int
}

// ReadMetadata reads the metadata of a checkpoint or inference file from its header alone, without
// reading the tensors: cheap enough to check a file before loading it (its variant, architecture,
// encoding version). The checksum, which covers the tensor data, is not verified (ReadCheckpoint
// verifies it). Errors name the file, as ReadCheckpoint's do.
func ReadMetadata(path string) (HeaderInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	h, err := readHeader(f)
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return h, nil
}

func readHeader(r io.Reader) (HeaderInfo, error) {
	var lenb [8]byte
	if n, err := io.ReadFull(r, lenb[:]); err != nil {
		return HeaderInfo{}, fmt.Errorf("%w: %d bytes, too short for a header", errNotSafetensors, n)
	}
	n := binary.LittleEndian.Uint64(lenb[:])
	if n < 2 || n > maxHeader {
		return HeaderInfo{}, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	hdr := make([]byte, n)
	if got, err := io.ReadFull(r, hdr); err != nil {
		if got == 0 || hdr[0] != '{' {
			return HeaderInfo{}, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
		}
		return HeaderInfo{}, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, got)
	}
	if hdr[0] != '{' {
		return HeaderInfo{}, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return HeaderInfo{}, fmt.Errorf("%w: header: %v", errNotSafetensors, err)
	}
	meta := map[string]string{}
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return HeaderInfo{}, fmt.Errorf("corrupt header: __metadata__: %v", err)
		}
		delete(raw, "__metadata__")
	}
	metaJSON, sum, err := checkpointEntries(meta)
	if err != nil {
		return HeaderInfo{}, err
	}
	h := HeaderInfo{SHA256: sum, Tensors: len(raw)}
	if err := json.Unmarshal([]byte(metaJSON), &h.Meta); err != nil {
		return HeaderInfo{}, fmt.Errorf("corrupt checkpoint metadata: %v", err)
	}
	if err := h.Meta.validate(); err != nil {
		return HeaderInfo{}, err
	}
	return h, nil
}

// WriteCheckpoint validates c and writes it to path atomically (see WriteFileAtomic).
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, err := EncodeCheckpoint(c)
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, b)
}

// ReadCheckpoint reads and checks a checkpoint or inference file. Errors name the file and say what
// is wrong: not a safetensors file, truncated, checksum mismatch, wrong encoding version, wrong
// tensor names or shapes.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	c, err := DecodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return c, nil
}

// WriteFileAtomic writes data to path through a temporary file in the same directory: write, fsync,
// close, rename over path, fsync the directory. On any error path is left as it was.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("model: writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("model: syncing %s: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("model: closing %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: makes the rename durable where the OS supports it
		d.Close()
	}
	return nil
}
