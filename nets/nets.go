// Package nets carries the project's reference networks, embedded in every build, one per rules
// variant: standard.ckpt, generation 600 of configs/standard.yaml's run from zero (standard rules, the
// tiny net; BENCHMARKS.md, "The reference network", has the command, seed and matches that made it), and
// blitz.ckpt, a tiny net trained for blitz (60 minutes of one core of configs/scaling-blitz-tiny.yaml,
// the quickstart's recipe; BENCHMARKS.md, "Scaling, blitz"). Each is the player spec "reference" for games of its
// variant, and the default agent of yinsh play, yinsh engine and yinsh serve for them; the strength
// levels (selfplay.Levels) play the same network. Retraining replaces a file (a training checkpoint
// without optimiser state: yinsh export --format weights); there is never a second copy.
package nets

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/model"
)

var (
	//go:embed standard.ckpt
	standard []byte
	//go:embed blitz.ckpt
	blitz []byte
)

// Reference is the player spec of the reference network (of the game's variant).
const Reference = "reference"

// embedded returns the reference network's bytes for variant v, nil where there is none.
func embedded(v env.Variant) []byte {
	switch v {
	case env.Standard:
		return standard
	case env.Blitz:
		return blitz
	}
	return nil
}

// Has reports whether a reference network for variant v is embedded (and not hidden by Hide).
func Has(v env.Variant) bool { return len(network(v)) > 0 }

// hidden holds the variants Hide hides (a bit per variant).
var hidden atomic.Uint32

// network is embedded(v), or nil while v is hidden.
func network(v env.Variant) []byte {
	if hidden.Load()&(1<<uint(v)) != 0 {
		return nil
	}
	return embedded(v)
}

// Hide makes variant v's reference network absent for every function of this package until the
// test t ends (t.Cleanup), so that tests of other packages reach their paths for a variant without
// a network. Tests that hide must not run in parallel with tests that need the network.
func Hide(t interface{ Cleanup(func()) }, v env.Variant) {
	bit := uint32(1) << uint(v)
	hidden.Or(bit)
	t.Cleanup(func() { hidden.And(^bit) })
}

// missing is the error of the functions that need v's network when there is none.
func missing(v env.Variant) error {
	return fmt.Errorf("nets: no reference network for %s games", v)
}

// Checkpoint decodes the reference network of variant v.
func Checkpoint(v env.Variant) (*model.Checkpoint, error) {
	b := network(v)
	if len(b) == 0 {
		return nil, missing(v)
	}
	ck, err := model.DecodeCheckpoint(b)
	if err != nil {
		return nil, fmt.Errorf("nets: the embedded %s reference network: %w", v, err)
	}
	return ck, nil
}

// Sum is the first 12 hex digits of the SHA-256 of variant v's reference file (its version), ""
// where there is none.
func Sum(v env.Variant) string {
	b := network(v)
	if len(b) == 0 {
		return ""
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// Path returns a file holding variant v's reference network, for the loaders that take a path
// (every backend's): DIR/yinsh/nets/reference-VARIANT-SUM.ckpt, DIR the user's cache directory
// (os.UserCacheDir; YINSH_CACHE_DIR overrides it), or the temporary directory when that cannot be
// written. The file is written once, atomically, and rewritten when it is not the embedded bytes.
func Path(v env.Variant) (string, error) {
	b := network(v)
	if len(b) == 0 {
		return "", missing(v)
	}
	name := "reference-" + v.String() + "-" + Sum(v) + ".ckpt"
	var dirs []string
	if d := os.Getenv("YINSH_CACHE_DIR"); d != "" {
		dirs = append(dirs, d)
	} else if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "yinsh"))
	}
	dirs = append(dirs, filepath.Join(os.TempDir(), "yinsh"))
	var errs []error
	for _, d := range dirs {
		p := filepath.Join(d, "nets", name)
		if got, err := os.ReadFile(p); err == nil && bytes.Equal(got, b) {
			return p, nil
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := atomicfile.WriteFile(p, b); err != nil {
			errs = append(errs, err)
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("nets: no directory to write the %s reference network to: %v", v, errs)
}

// Resolve returns spec unchanged, or for Reference the path of variant v's reference network's file
// (an error naming v where there is none).
func Resolve(spec string, v env.Variant) (string, error) {
	if spec != Reference {
		return spec, nil
	}
	return Path(v)
}

// DefaultPlayer is the agent of yinsh play, engine and serve when none is given: the reference
// network of variant v where one is embedded (Has), else the heuristic baseline.
func DefaultPlayer(v env.Variant) string {
	if Has(v) {
		return Reference
	}
	return "heuristic"
}
