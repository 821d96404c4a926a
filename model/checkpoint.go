package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// Checkpoint file format (backend-neutral; model/gonum and model/torch read and write the same files).
//
// A checkpoint is one safetensors file (see safetensors.go) whose tensors are all F32 and whose
// __metadata__ has these string entries and no others:
//
//	"format"         "yinsh-zero"
//	"yinsh_version"  the checkpoint format version, "2" (absent in version 1 files)
//	"yinsh"          the Metadata below as JSON (architecture, encoding version, kind, step, optimiser;
//	                 since 2026-12 also the variant, run id and generation; absent means unknown)
//	"sha256"         lowercase hex SHA-256 checksum, defined by the version:
//
// Version 2 (written since 2026-12) checksums the whole file: SHA-256 over this canonical encoding of
// the complete header, then the data section,
//
//	"yinsh-zero checkpoint v2\n"
//	for each __metadata__ entry except "sha256", keys in byte order:
//	    "M" str(key) str(value)
//	for each tensor, names in byte order:
//	    "T" str(name) str(dtype) str(shape) str(begin) str(end)
//	"D" str(data section)
//
// where str(s) is the decimal byte length of s, ":", then s; shape is the dimensions in decimal
// joined by "," and begin, end the data_offsets in decimal. The header itself must be byte for byte
// the canonical one this package writes (JSON without whitespace, __metadata__ first with sorted keys,
// then the tensors by name with contiguous offsets in that order, padded with spaces to a multiple of
// 8), so that no byte of a version 2 file can change, the length prefix and the padding included,
// without DecodeCheckpoint noticing, short of recomputing the checksum.
//
// Version 1 (before 2026-12; no "yinsh_version" entry) checksums the "yinsh" JSON bytes, then one
// zero byte, then the whole tensor data section; its tensor table is not covered. Version 1 files
// remain readable (the data must still lie in name order, as every version 1 writer stored it, which
// catches swapped offsets); files are only written as version 2, and a later version is rejected
// ("checkpoint format version 7, this build reads 1..2").
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

// Checkpoint format versions (__metadata__["yinsh_version"]; absent is version 1): this build reads
// MinFormatVersion..FormatVersion and writes FormatVersion.
const (
	MinFormatVersion = 1
	FormatVersion    = 2
)

// The __metadata__ keys of a checkpoint.
const (
	metaFormat  = "format"
	metaVersion = "yinsh_version"
	metaJSONKey = "yinsh"
	metaSum     = "sha256"
)

// Backends that write checkpoints (the value of Metadata.Backend; "" is unknown).
var knownBackends = []string{"gonum", "torch"}

// maxRunIDLen bounds RunInfo.ID (in bytes; a run id is a directory name).
const maxRunIDLen = 255

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
	// Backend names the writer ("gonum", "torch"; "" is unknown); informational, but no other value
	// is accepted.
	Backend string `json:"backend,omitempty"`
	// ActionLayout is ActionLayout (the only layout there has been) or ""; informational, but no
	// other value is accepted.
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
	gpool := func(prefix string, out int) {
		if cfg.GlobalPool {
			add(prefix+".gpool.weight", true, out, 2*c)
		}
	}
	conv("stem", "conv", "bn", c, cfg.InputPlanes, 3)
	for i := 0; i < cfg.Blocks; i++ {
		p := "tower." + itoa(i)
		conv(p, "conv1", "bn1", c, c, 3)
		gpool(p, c)
		conv(p, "conv2", "bn2", c, c, 3)
	}
	conv("policy", "conv", "bn", cfg.PolicyChannels, c, 1)
	gpool("policy", cfg.PolicyChannels)
	add("policy.fc.weight", true, env.NumActions, cfg.PolicyChannels*NumCells)
	add("policy.fc.bias", true, env.NumActions)
	conv("value", "conv", "bn", cfg.ValueChannels, c, 1)
	gpool("value", cfg.ValueChannels)
	add("value.fc1.weight", true, cfg.ValueHidden, cfg.ValueChannels*NumCells)
	add("value.fc1.bias", true, cfg.ValueHidden)
	add("value.fc2.weight", true, NumWDL, cfg.ValueHidden)
	add("value.fc2.bias", true, NumWDL)
	if cfg.ScoreHead {
		add("value.score.weight", true, NumScore, cfg.ValueHidden)
		add("value.score.bias", true, NumScore)
	}
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

// validate checks every metadata field against this build; errors name the field (its JSON key).
func (m *Metadata) validate() error {
	if m.Format != FormatName {
		return fmt.Errorf("metadata format %.40q, want %q", m.Format, FormatName)
	}
	if m.Kind != KindTraining && m.Kind != KindInference {
		return fmt.Errorf("metadata kind %.40q, want %q or %q", m.Kind, KindTraining, KindInference)
	}
	if m.EncodingVersion != env.EncodingVersion {
		return fmt.Errorf("metadata encoding_version: observation encoding version %d, this build uses %d (the network was trained on a different input encoding)",
			m.EncodingVersion, env.EncodingVersion)
	}
	if m.NumActions != env.NumActions {
		return fmt.Errorf("metadata num_actions %d, this build has %d", m.NumActions, env.NumActions)
	}
	if m.Step < 0 {
		return fmt.Errorf("metadata step %d < 0", m.Step)
	}
	if m.Backend != "" && !slices.Contains(knownBackends, m.Backend) {
		return fmt.Errorf("metadata backend %.40q, want %s (or none)", m.Backend, strings.Join(knownBackends, " or "))
	}
	if m.ActionLayout != "" && m.ActionLayout != ActionLayout {
		return fmt.Errorf("metadata action_layout %.24q… is not this build's action layout (%.24q…)", m.ActionLayout, ActionLayout)
	}
	if m.Variant != "" {
		if _, err := env.ParseVariant(m.Variant); err != nil {
			return fmt.Errorf("metadata variant %.40q, want standard or blitz (or none)", m.Variant)
		}
	}
	if m.Run != nil {
		if err := printableField("metadata run.id", m.Run.ID, maxRunIDLen); err != nil {
			return err
		}
		if m.Run.Generation < 0 {
			return fmt.Errorf("metadata run.generation %d < 0", m.Run.Generation)
		}
	}
	if err := m.Net.Validate(); err != nil {
		return fmt.Errorf("metadata net: %w", err)
	}
	if m.Optimizer != nil {
		if m.Kind != KindTraining {
			return fmt.Errorf("metadata optimizer: optimizer state in a %s file", m.Kind)
		}
		if err := m.Optimizer.Validate(); err != nil {
			return fmt.Errorf("metadata optimizer: %w", err)
		}
	}
	return nil
}

// printableField checks that s is at most max bytes of printable UTF-8 (spaces allowed).
func printableField(field, s string, max int) error {
	if len(s) > max {
		return fmt.Errorf("%s is %d bytes long, at most %d", field, len(s), max)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %.40q is not valid UTF-8", field, s)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%s %.40q has the unprintable character %U", field, s, r)
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
	g := ""
	if c.GlobalPool {
		g = "/gpool"
	}
	if c.ScoreHead {
		g += "/score"
	}
	return fmt.Sprintf("%dx%d/p%d/v%dx%d%s", c.Blocks, c.Channels, c.PolicyChannels, c.ValueChannels, c.ValueHidden, g)
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

// WithoutOptimizer returns a deep copy of a training checkpoint without its optimiser state (no
// optim.* tensors, Metadata.Optimizer nil): the weights and batch-norm statistics only, a third of
// an AdamW checkpoint's size, which every backend loads (training it again starts a fresh optimiser).
func (c *Checkpoint) WithoutOptimizer() (*Checkpoint, error) {
	if c.Meta.Kind != KindTraining {
		return nil, fmt.Errorf("model: checkpoint kind %q has no optimiser state to drop (want %q)", c.Meta.Kind, KindTraining)
	}
	d := c.Clone()
	d.Meta.Optimizer = nil
	for n := range d.Tensors {
		if strings.HasPrefix(n, "optim.") {
			delete(d.Tensors, n)
		}
	}
	return d, d.Validate()
}

// checksumV1 is the version 1 checksum: the "yinsh" JSON, a zero byte, the data section.
func checksumV1(metaJSON, data []byte) string {
	h := sha256.New()
	h.Write(metaJSON)
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// checksumV2 is the version 2 checksum (see the format comment at the top of this file): SHA-256
// over a canonical encoding of every __metadata__ entry but "sha256" and every tensor entry, then the
// data section.
func checksumV2(meta map[string]string, names []string, entries map[string]stEntry, data []byte) string {
	h := sha256.New()
	str := func(s string) {
		io.WriteString(h, strconv.Itoa(len(s)))
		io.WriteString(h, ":")
		io.WriteString(h, s)
	}
	io.WriteString(h, "yinsh-zero checkpoint v2\n")
	keys := make([]string, 0, len(meta))
	for k := range meta {
		if k != metaSum {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		io.WriteString(h, "M")
		str(k)
		str(meta[k])
	}
	for _, n := range names { // sorted
		e := entries[n]
		dims := make([]string, len(e.Shape))
		for i, d := range e.Shape {
			dims[i] = strconv.Itoa(d)
		}
		io.WriteString(h, "T")
		str(n)
		str(e.DType)
		str(strings.Join(dims, ","))
		str(strconv.FormatInt(e.DataOffsets[0], 10))
		str(strconv.FormatInt(e.DataOffsets[1], 10))
	}
	io.WriteString(h, "D")
	io.WriteString(h, strconv.Itoa(len(data)))
	io.WriteString(h, ":")
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// layoutEntries returns the tensor entries encodeData lays out for these tensors (names sorted).
func layoutEntries(names []string, tensors map[string]*Tensor) map[string]stEntry {
	entries := make(map[string]stEntry, len(names))
	var off int64
	for _, n := range names {
		t := tensors[n]
		end := off + 4*int64(len(t.Data))
		entries[n] = stEntry{DType: "F32", Shape: t.Shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	return entries
}

// EncodeCheckpoint validates the checkpoint and returns the file bytes (format version
// FormatVersion).
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
		metaFormat:  FormatName,
		metaVersion: strconv.Itoa(FormatVersion),
		metaJSONKey: string(metaJSON),
	}
	meta[metaSum] = checksumV2(meta, names, layoutEntries(names, c.Tensors), data)
	header, err := encodeHeader(names, c.Tensors, meta)
	if err != nil {
		return nil, err
	}
	return append(header, data...), nil
}

// DecodeCheckpoint parses and fully checks checkpoint bytes: safetensors structure, format marker and
// version, checksum, metadata (every field: encoding version, architecture ranges, …) and tensor
// names and shapes. Version 1 files (see the format comment) are read with their checksum, which does
// not cover the tensor table; version 2 files are checked byte for byte.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	h, data, err := splitSafetensors(b)
	if err != nil {
		return nil, err
	}
	e, err := checkpointEntries(h.meta)
	if err != nil {
		return nil, err
	}
	var got string
	switch e.version {
	case 1:
		got = checksumV1([]byte(e.metaJSON), data)
	default:
		got = checksumV2(h.meta, h.names, h.entries, data)
	}
	if got != e.sum {
		return nil, fmt.Errorf("checksum mismatch: file says sha256 %.12s…, content hashes to %.12s… (corrupt or modified)", e.sum, got)
	}
	meta, err := checkHeader(h, b[:8+h.length], e)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Meta: meta, Tensors: h.tensors(data)}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// ckEntries are the checkpoint entries of a __metadata__.
type ckEntries struct {
	version  int
	metaJSON string
	sum      string
}

// checkpointEntries checks a checkpoint's __metadata__ (the format marker and version, no unknown
// entries, a well-formed checksum) and returns its entries, or says why it is not a checkpoint.
func checkpointEntries(meta map[string]string) (ckEntries, error) {
	if f, ok := meta[metaFormat]; !ok || f != FormatName {
		if !ok {
			return ckEntries{}, errors.New("a safetensors file but not a YINSH Zero checkpoint (no __metadata__ format entry)")
		}
		return ckEntries{}, fmt.Errorf("a safetensors file but not a YINSH Zero checkpoint (format %.40q)", f)
	}
	e := ckEntries{version: 1}
	if v, ok := meta[metaVersion]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(n) != v {
			return ckEntries{}, fmt.Errorf("corrupt checkpoint: format version %.40q is not a number", v)
		}
		if n < MinFormatVersion || n > FormatVersion {
			return ckEntries{}, fmt.Errorf("checkpoint format version %d, this build reads %d..%d", n, MinFormatVersion, FormatVersion)
		}
		e.version = n
	}
	for k := range meta {
		switch k {
		case metaFormat, metaVersion, metaJSONKey, metaSum:
		default:
			return ckEntries{}, fmt.Errorf("corrupt checkpoint: unknown __metadata__ entry %.40q", k)
		}
	}
	var ok bool
	if e.metaJSON, ok = meta[metaJSONKey]; !ok {
		return ckEntries{}, errors.New("corrupt checkpoint: no yinsh metadata")
	}
	if e.sum, ok = meta[metaSum]; !ok {
		return ckEntries{}, errors.New("corrupt checkpoint: no sha256 checksum")
	}
	if !isHexSHA256(e.sum) {
		return ckEntries{}, fmt.Errorf("corrupt checkpoint: sha256 %.70q is not 64 lowercase hex digits", e.sum)
	}
	return e, nil
}

func isHexSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// decodeMetadata decodes the "yinsh" JSON strictly (no unknown fields, nothing after the object) and
// validates it.
func decodeMetadata(metaJSON string) (Metadata, error) {
	var m Metadata
	dec := json.NewDecoder(strings.NewReader(metaJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Metadata{}, fmt.Errorf("corrupt checkpoint metadata: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Metadata{}, errors.New("corrupt checkpoint metadata: data after the JSON object")
	}
	if err := m.validate(); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

// checkHeader makes the checks that need only the header (hdr: its bytes, length prefix included):
// the metadata, the layout (version 2: the canonical header byte for byte; version 1: the tensors in
// name order) and the tensor names and shapes against the architecture.
func checkHeader(h *stHeader, hdr []byte, e ckEntries) (Metadata, error) {
	m, err := decodeMetadata(e.metaJSON)
	if err != nil {
		return Metadata{}, err
	}
	if e.version >= 2 {
		want, err := h.canonicalHeader()
		if err != nil {
			return Metadata{}, fmt.Errorf("corrupt header: %v", err)
		}
		if !bytes.Equal(hdr, want) {
			i := 0
			for i < len(hdr) && i < len(want) && hdr[i] == want[i] {
				i++
			}
			return Metadata{}, fmt.Errorf("corrupt header: not the canonical version %d header (it differs at byte %d; edited?)", e.version, i)
		}
	} else if err := h.sortedLayout(); err != nil {
		return Metadata{}, fmt.Errorf("corrupt header: %v", err)
	}
	want := m.ExpectedSpecs()
	seen := make(map[string]bool, len(want))
	for _, s := range want {
		seen[s.Name] = true
		t, ok := h.entries[s.Name]
		if !ok {
			return Metadata{}, fmt.Errorf("missing tensor %s %v (architecture %s)", s.Name, s.Shape, m.Net.describe())
		}
		if !sameShape(t.Shape, s.Shape) {
			return Metadata{}, fmt.Errorf("tensor %s has shape %v, the architecture needs %v", s.Name, t.Shape, s.Shape)
		}
	}
	var extra []string
	for _, n := range h.names {
		if !seen[n] {
			extra = append(extra, errName(n))
		}
	}
	if len(extra) > 0 {
		if len(extra) > 5 {
			extra = append(extra[:5], fmt.Sprintf("and %d more", len(extra)-5))
		}
		return Metadata{}, fmt.Errorf("unexpected tensors %s (not part of a %s %s file)", strings.Join(extra, ", "), m.Net.describe(), m.Kind)
	}
	return m, nil
}

// HeaderInfo is what ReadMetadata reads from the start of a checkpoint file.
type HeaderInfo struct {
	Meta Metadata
	// Version is the checkpoint format version (MinFormatVersion..FormatVersion).
	Version int
	// SHA256 is the checksum the file records (see the format comment; ReadMetadata does not verify
	// it, ReadCheckpoint does).
	SHA256 string
	// Tensors is the number of tensors the header lists.
	Tensors int
}

// ReadMetadata reads the metadata of a checkpoint or inference file from its header alone, without
// reading the tensors: cheap enough to check a file before loading it (its variant, architecture,
// encoding version). It checks everything the header and the file size can tell: the safetensors
// structure, the tensors covering the data section exactly (a truncated file or one with trailing
// bytes is rejected), the format marker and version, every metadata field, the tensor names and
// shapes against the architecture, and the layout (a version 2 header must be canonical byte for
// byte, a version 1 file must store its tensors in name order). It does not verify the checksum,
// which needs the data (ReadCheckpoint verifies it): a metadata or data edit that keeps the header
// well-formed and canonical is only caught there. Errors name the file, as ReadCheckpoint's do.
func ReadMetadata(path string) (HeaderInfo, error) {
	if fi, err := os.Stat(path); err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	} else if !fi.Mode().IsRegular() {
		return HeaderInfo{}, fmt.Errorf("model: checkpoint %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: %w", err)
	}
	h, err := readHeader(f, st.Size())
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("model: checkpoint %s: %w", path, err)
	}
	return h, nil
}

// readHeader is ReadMetadata on a reader of a file of size bytes, positioned at its start.
func readHeader(r io.Reader, size int64) (HeaderInfo, error) {
	var lenb [8]byte
	if n, err := io.ReadFull(r, lenb[:]); err != nil {
		return HeaderInfo{}, fmt.Errorf("%w: %d bytes, too short for a header", errNotSafetensors, n)
	}
	n := binary.LittleEndian.Uint64(lenb[:])
	if n < 2 || n > maxHeader {
		return HeaderInfo{}, fmt.Errorf("%w: it does not start with a header length (the first 8 bytes read %s)", errNotSafetensors, headerLengthText(n))
	}
	// Read what is there rather than allocating n up front, so that a bogus length cannot make us
	// allocate maxHeader.
	hdr, err := io.ReadAll(io.LimitReader(r, int64(min(n, uint64(max(size-8, 0))))))
	if err != nil {
		return HeaderInfo{}, fmt.Errorf("reading the header: %w", err)
	}
	if len(hdr) == 0 || hdr[0] != '{' {
		return HeaderInfo{}, fmt.Errorf("%w: no JSON header after the length", errNotSafetensors)
	}
	if uint64(len(hdr)) < n {
		return HeaderInfo{}, fmt.Errorf("truncated: header length %d, only %d bytes follow", n, len(hdr))
	}
	h, err := parseHeader(hdr, size-8-int64(n))
	if err != nil {
		return HeaderInfo{}, err
	}
	e, err := checkpointEntries(h.meta)
	if err != nil {
		return HeaderInfo{}, err
	}
	meta, err := checkHeader(h, append(lenb[:], hdr...), e)
	if err != nil {
		return HeaderInfo{}, err
	}
	return HeaderInfo{Meta: meta, Version: e.version, SHA256: e.sum, Tensors: len(h.names)}, nil
}

// WriteCheckpoint validates c and writes it to path atomically (see internal/atomicfile).
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, err := EncodeCheckpoint(c)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// ReadCheckpoint reads and checks a checkpoint or inference file. Errors name the file and say what
// is wrong: not a safetensors file, truncated, checksum mismatch, wrong encoding version, wrong
// tensor names or shapes.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	// a device or a named pipe would be read forever (or block): refuse before opening
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("model: checkpoint %s: not a regular file (%s)", path, fi.Mode().Type())
	}
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

// WriteFileAtomic writes data to path atomically (internal/atomicfile.WriteFile: a temporary file in
// the same directory, fsync, rename, fsync of the directory); on any error path is left as it was.
//
// Deprecated: packages of this module use internal/atomicfile directly; this forwarding function
// stays for the callers not yet moved.
func WriteFileAtomic(path string, data []byte) error { return writeFile(path, data) }

// writeFile is atomicfile.WriteFile with this package's error prefix.
func writeFile(path string, data []byte) error {
	if err := atomicfile.WriteFile(path, data); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}
