// Package model defines the YINSH Zero policy/value network shared by every backend: the
// architecture (Config), the Net interface the toolkit talks to, optimiser and learning-rate schedule
// configuration, the backend-neutral checkpoint format (safetensors + JSON metadata) and export to
// ONNX / inference safetensors for game clients. Backends live in sub-packages: model/gonum (pure Go,
// default) and model/torch (gotch, build tag torch).
//
// Architecture (both backends build exactly this from a Config):
//
//	input   planes [N, InputPlanes, 11, 11]      (env.Observation; H = column, W = row-1)
//	stem    conv3×3(InputPlanes→Channels, no bias) → BN → ReLU
//	tower   Blocks × residual block:
//	          x → conv3×3 → BN → ReLU → conv3×3 → BN → (+x) → ReLU
//	policy  conv1×1(Channels→PolicyChannels, no bias) → BN → ReLU → flatten [N, PolicyChannels*121]
//	          → fully connected (with bias) → logits [N, 2142]
//	value   conv1×1(Channels→ValueChannels, no bias) → BN → ReLU → flatten [N, ValueChannels*121]
//	          → fully connected(→ValueHidden, bias) → ReLU → fully connected(→3, bias) → WDL logits [N, 3]
//
// With GlobalPool (KataGo's global pooling bias), three places gain gpool(x → y): the pooled
// features g = [mean over the 121 cells of each channel of x, max over them] ([N, 2·channels(x)])
// times a weight [channels(y), 2·channels(x)] (no bias) are added to every cell of y:
//
//	block   h = ReLU(BN(conv1(x)));  h += gpool(h → h)  before conv2        tower.<i>.gpool.weight [C, 2C]
//	policy  after the head's ReLU:   p += gpool(trunk → p)                  policy.gpool.weight [P, 2C]
//	value   after the head's ReLU:   v += gpool(trunk → v)                  value.gpool.weight  [V, 2C]
//
// The pool covers the whole 11×11 grid (off-board cells too: the board never changes), which is
// ONNX's GlobalAveragePool and GlobalMaxPool.
//
// With ScoreHead, value.score (fully connected, ValueHidden → NumScore, with bias) reads the value
// head's hidden layer (after its ReLU): logits of the final score difference, a training target only.
//
// Convolutions use zero padding over the whole 11×11 grid (off-board cells included; the valid-point
// plane tells the network where the board is). Flatten is PyTorch's: feature index = channel*121 + cell.
// Batch norm follows PyTorch: eps BNEps, running statistics updated with momentum BNMomentum using the
// unbiased batch variance, normalisation in training mode by the biased batch variance.
package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/env"
)

// Batch-norm constants shared by all backends (PyTorch defaults).
const (
	BNEps      = 1e-5
	BNMomentum = 0.1
)

// Board geometry as the network sees it.
const (
	BoardSize = 11                    // the grid is BoardSize × BoardSize (H = column, W = row-1)
	NumCells  = BoardSize * BoardSize // 121 = env.NumCells
	NumWDL    = 3                     // value head outputs: win, draw, loss (side to act)
)

// Config is the network architecture. Field ranges are checked by Validate.
type Config struct {
	// Name labels the architecture (a preset name or anything: at most 128 bytes of printable UTF-8);
	// informational only.
	Name string `yaml:"name" json:"name"`
	// InputPlanes is the number of observation planes; must equal env.NumPlanes. Zero in a YAML file
	// means env.NumPlanes.
	InputPlanes int `yaml:"input_planes" json:"input_planes"`
	// Channels is the width of the stem and residual tower, in [1, 1024].
	Channels int `yaml:"channels" json:"channels"`
	// Blocks is the number of residual blocks (two 3×3 convs each), in [0, 128].
	Blocks int `yaml:"blocks" json:"blocks"`
	// PolicyChannels is the number of 1×1 conv channels of the policy head, in [1, 64].
	PolicyChannels int `yaml:"policy_channels" json:"policy_channels"`
	// ValueChannels is the number of 1×1 conv channels of the value head, in [1, 64].
	ValueChannels int `yaml:"value_channels" json:"value_channels"`
	// ValueHidden is the width of the value head's hidden fully connected layer, in [1, 4096].
	ValueHidden int `yaml:"value_hidden" json:"value_hidden"`
	// GlobalPool adds KataGo-style global pooling: in every residual block, and in both heads, the
	// channel means and maxima of a feature map over the 121 cells feed a learned bias per channel
	// (see the package comment). false: the plain net (and the checkpoints written before it).
	GlobalPool bool `yaml:"global_pool,omitempty" json:"global_pool,omitempty"`
	// ScoreHead adds an auxiliary output that predicts the final score difference (rings removed by
	// the side to act minus its opponent's, at the game's end) as a distribution over NumScore
	// classes, from the value head's hidden layer; trained with weight OptimizerConfig.ScoreWeight.
	// It gives the value head's features signal on how a game is won, not only whether. Inference
	// (Predict, the exported files' consumers) does not use it.
	ScoreHead bool `yaml:"score_head,omitempty" json:"score_head,omitempty"`
}

// NumScore is the number of score classes of Config.ScoreHead: differences −3 … +3 (class d+3).
const NumScore = 7

// Presets are the named architectures: "tiny" for tests and the quickstart, "small" (6 blocks × 64
// channels) for real runs on CPU. configs/net-<name>.yaml hold the same values.
var presets = map[string]Config{
	"tiny": {
		Name: "tiny", InputPlanes: env.NumPlanes, Channels: 16, Blocks: 2,
		PolicyChannels: 2, ValueChannels: 1, ValueHidden: 32,
	},
	"small": {
		Name: "small", InputPlanes: env.NumPlanes, Channels: 64, Blocks: 6,
		PolicyChannels: 4, ValueChannels: 2, ValueHidden: 64,
	},
}

// Preset returns the named preset architecture ("tiny" or "small").
func Preset(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("model: unknown net preset %q (have %v)", name, PresetNames())
	}
	return c, nil
}

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// rangeCheck is one field's allowed range.
type rangeCheck struct {
	field    string
	val      int
	min, max int
}

// maxConfigName bounds Config.Name, in bytes.
const maxConfigName = 128

// Validate checks every field's range; the error names the field (its YAML key).
func (c Config) Validate() error {
	if err := printableField("model: config: name", c.Name, maxConfigName); err != nil {
		return err
	}
	if c.InputPlanes != env.NumPlanes {
		return fmt.Errorf("model: config: input_planes = %d, must be %d (env.NumPlanes, encoding version %d)",
			c.InputPlanes, env.NumPlanes, env.EncodingVersion)
	}
	for _, r := range []rangeCheck{
		{"channels", c.Channels, 1, 1024},
		{"blocks", c.Blocks, 0, 128},
		{"policy_channels", c.PolicyChannels, 1, 64},
		{"value_channels", c.ValueChannels, 1, 64},
		{"value_hidden", c.ValueHidden, 1, 4096},
	} {
		if r.val < r.min || r.val > r.max {
			return fmt.Errorf("model: config: %s = %d, must be in [%d, %d]", r.field, r.val, r.min, r.max)
		}
	}
	return nil
}

// ParseConfig decodes a YAML architecture (one document), rejecting unknown keys, and validates it. name labels
// errors (a file name or "<stdin>").
func ParseConfig(r io.Reader, name string) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, fmt.Errorf("model: config %s: empty", name)
		}
		return Config{}, fmt.Errorf("model: config %s: %w", name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return Config{}, fmt.Errorf("model: config %s: more than one YAML document", name)
	} else if !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("model: config %s: after the first document: %w", name, err)
	}
	if c.InputPlanes == 0 {
		c.InputPlanes = env.NumPlanes
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%w (in %s)", err, name)
	}
	return c, nil
}

// LoadConfig reads a YAML architecture file (see configs/net-tiny.yaml).
func LoadConfig(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("model: %w", err)
	}
	return ParseConfig(bytes.NewReader(b), path)
}

// ResolveConfig returns a preset when spec names one, and otherwise reads spec as a YAML file.
func ResolveConfig(spec string) (Config, error) {
	if c, ok := presets[spec]; ok {
		return c, nil
	}
	if _, err := os.Stat(spec); err != nil {
		return Config{}, fmt.Errorf("model: net %q is neither a preset %v nor a readable YAML file", spec, PresetNames())
	}
	return LoadConfig(spec)
}

// FLOPsPerPosition is the number of floating-point operations (2 per multiply-add) of one inference
// forward pass: convolutions and fully connected layers (batch norm folded, element-wise ops ignored).
func (c Config) FLOPsPerPosition() int64 {
	const k = 9 * NumCells
	f := int64(2) * int64(c.InputPlanes*c.Channels) * k
	f += int64(2*2*c.Blocks) * int64(c.Channels*c.Channels) * k
	f += 2 * int64(c.Channels*(c.PolicyChannels+c.ValueChannels)) * NumCells
	f += 2 * int64(c.PolicyChannels*NumCells) * int64(env.NumActions)
	f += 2 * int64(c.ValueChannels*NumCells*c.ValueHidden)
	f += 2 * int64(c.ValueHidden*NumWDL)
	if c.GlobalPool { // the pooled-bias products (the pooling itself is additions and comparisons)
		f += 2 * int64(2*c.Channels) * int64(c.Blocks*c.Channels+c.PolicyChannels+c.ValueChannels)
	}
	return f
}
