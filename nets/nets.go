// Package nets carries the project's reference network, embedded in every build: the last network
// of configs/standard.yaml's run (standard rules, the tiny net; BENCHMARKS.md, "The reference
// network", has the command, seed and matches that made it). It is the player spec "reference", the
// default agent of yinsh play, yinsh engine and yinsh serve for standard games. Retraining replaces
// standard.ckpt (a training checkpoint without optimiser state: yinsh export --format weights);
// there is never a second copy.
package nets

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/model"
)

//go:embed standard.ckpt
var standard []byte

// Reference is the player spec of the reference network.
const Reference = "reference"

// Variant is the rules variant the reference network was trained for.
const Variant = env.Standard

// Checkpoint decodes the reference network.
func Checkpoint() (*model.Checkpoint, error) {
	ck, err := model.DecodeCheckpoint(standard)
	if err != nil {
		return nil, fmt.Errorf("nets: the embedded reference network: %w", err)
	}
	return ck, nil
}

// Sum is the first 12 hex digits of the reference file's SHA-256: its version.
func Sum() string {
	h := sha256.Sum256(standard)
	return hex.EncodeToString(h[:6])
}

// Path returns a file holding the reference network, for the loaders that take a path (every
// backend's): DIR/yinsh/nets/reference-SUM.ckpt, DIR the user's cache directory (os.UserCacheDir;
// YINSH_CACHE_DIR overrides it), or the temporary directory when that cannot be written. The file is
// written once, atomically, and rewritten when it is not the embedded bytes.
func Path() (string, error) {
	name := "reference-" + Sum() + ".ckpt"
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
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, standard) {
			return p, nil
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := atomicfile.WriteFile(p, standard); err != nil {
			errs = append(errs, err)
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("nets: no directory to write the reference network to: %v", errs)
}

// Resolve returns spec unchanged, or for Reference the path of the reference network's file.
func Resolve(spec string) (string, error) {
	if spec != Reference {
		return spec, nil
	}
	return Path()
}

// DefaultPlayer is the agent of yinsh play, engine and serve when none is given: the reference
// network for its variant, the heuristic baseline for the other (no reference network exists for it).
func DefaultPlayer(v env.Variant) string {
	if v == Variant {
		return Reference
	}
	return "heuristic"
}
