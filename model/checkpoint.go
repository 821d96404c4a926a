package model

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yinsh-zero/yinsh/env"
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
