package datasets

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// FromSGF turns a boardspace YINSH record into a game record for supervised pretraining: every
// position is a training target whose policy is the action played (one-hot); root WDL is unknown
// (zero). The outcome is the recorded one, resignations included (Ongoing when the record has no
// result). name is the source file name: the generator is "sgf:<base name>" and the ID a hash of the
// file's bytes, so importing the same file twice gives the same ID. Errors name the file and line.
func FromSGF(name string, data []byte) (*Record, error) {
	g, err := env.ReadSGF(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h := fnv.New64a()
	h.Write(data)
	r := &Record{
		ID:        h.Sum64(),
		Variant:   g.Variant,
		Generator: "sgf:" + strings.ToValidUTF8(filepath.Base(name), "?"),
		Outcome:   g.Outcome(),
		Actions:   slices.Clone(g.Actions),
		Targets:   make([]Target, len(g.Actions)),
	}
	for i, a := range g.Actions {
		r.Targets[i].Policy = OneHot(a)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// ReadSGFFile reads one boardspace record file (see FromSGF).
func ReadSGFFile(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	return FromSGF(path, data)
}

// SGFFiles lists the .sgf files of dir (case-insensitive extension), sorted by name.
func SGFFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.EqualFold(filepath.Ext(e.Name()), ".sgf") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}
