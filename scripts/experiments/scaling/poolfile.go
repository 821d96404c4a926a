package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// entry is one player of a pool file: `label net_size compute SPEC`.
type entry struct {
	Label string
	// Net names the network size ("tiny", "32x4"): one line of the plot per size.
	Net string
	// Compute is the training compute in the pool's unit; HasCompute is false for "-" (an anchor
	// or baseline: a horizontal line on the plot, not a point of a curve).
	Compute    float64
	HasCompute bool
	// Spec is the player spec as written; Player is what is opened (a relative checkpoint path
	// resolved against the pool file's directory).
	Spec, Player string
	Line         int
}

// pool is a parsed pool file.
type pool struct {
	File    string
	Unit    string // the compute unit named in the header ("minutes", "self-play games")
	Entries []entry
}

// builtin reports whether spec is a built-in player or an engine, not a checkpoint file.
func builtin(spec string) bool {
	return spec == nets.Reference || selfplay.Builtin(spec)
}

// searches reports whether spec's player searches, so that its strength depends on the move time.
func searches(spec string) bool { return spec != "random" && spec != "heuristic" }

// ratedName is the name a pool player has in the results: its label, with "@MSms" for searching
// players (as `yinsh arena` names players under a time control: the same network at another move
// time is another player).
func ratedName(e entry, movetime time.Duration) string {
	if !searches(e.Spec) {
		return e.Label
	}
	return fmt.Sprintf("%s@%dms", e.Label, movetime.Milliseconds())
}

// readPool parses a pool file:
//
//	# comments and blank lines are skipped
//	unit: minutes                  the header: the unit of the compute column (any words)
//	tiny-25 tiny 25 ../runs/scaling-tiny/checkpoints/gen-0006.ckpt
//	ref     -    -  reference      compute "-": an anchor or baseline, not on a curve
//
// Labels are unique and have no '@'; compute is a positive number or "-"; SPEC is the rest of the
// line (any player spec `yinsh arena` takes). A relative checkpoint path is resolved against the
// pool file's directory. Errors name the file and line.
func readPool(path string) (*pool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &pool{File: path}
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if p.Unit == "" {
			unit, ok := strings.CutPrefix(line, "unit:")
			if !ok || strings.TrimSpace(unit) == "" {
				return nil, fmt.Errorf("%s: line %d: want the header \"unit: UNIT\" (the compute column's unit, e.g. minutes or self-play games) before the players, got %q", path, n, line)
			}
			p.Unit = strings.TrimSpace(unit)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			return nil, fmt.Errorf("%s: line %d: want \"label net_size compute SPEC\", got %q", path, n, line)
		}
		e := entry{Label: fields[0], Net: fields[1], Line: n}
		if strings.Contains(e.Label, "@") {
			return nil, fmt.Errorf("%s: line %d: label %q: no '@' (the results add @MSms)", path, n, e.Label)
		}
		if prev, ok := seen[e.Label]; ok {
			return nil, fmt.Errorf("%s: line %d: label %q already on line %d", path, n, e.Label, prev)
		}
		seen[e.Label] = n
		if fields[2] != "-" {
			c, err := strconv.ParseFloat(fields[2], 64)
			if err != nil || !(c > 0) || math.IsInf(c, 0) {
				return nil, fmt.Errorf("%s: line %d: compute %q: want a positive number (in %s) or - for an anchor", path, n, fields[2], p.Unit)
			}
			e.Compute, e.HasCompute = c, true
		}
		// SPEC: the rest of the line after the third field, spaces kept (engine:"CMD ARGS")
		rest := line
		for range 3 {
			rest = strings.TrimSpace(rest)
			rest = rest[strings.IndexFunc(rest, isSpace):]
		}
		e.Spec = strings.TrimSpace(rest)
		e.Player = e.Spec
		if !builtin(e.Spec) && !filepath.IsAbs(e.Spec) {
			e.Player = filepath.Join(filepath.Dir(path), e.Spec)
		}
		p.Entries = append(p.Entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Unit == "" {
		return nil, fmt.Errorf("%s: no header \"unit: UNIT\" and no players", path)
	}
	if len(p.Entries) < 2 {
		return nil, fmt.Errorf("%s: %d players, a pool needs at least 2", path, len(p.Entries))
	}
	return p, nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// find returns the entry labelled label.
func (p *pool) find(label string) (entry, bool) {
	for _, e := range p.Entries {
		if e.Label == label {
			return e, true
		}
	}
	return entry{}, false
}

// defaultAnchor is the first entry without compute (an anchor), else the first entry.
func (p *pool) defaultAnchor() entry {
	for _, e := range p.Entries {
		if !e.HasCompute {
			return e
		}
	}
	return p.Entries[0]
}

// anchor returns the entry labelled label, or the default anchor for "".
// readPoolAnchor reads the pool file at path and finds its anchor by label ("" for the default):
// what the pool and plot commands both start with.
func readPoolAnchor(path, label string) (*pool, entry, error) {
	p, err := readPool(path)
	if err != nil {
		return nil, entry{}, err
	}
	a, err := p.anchor(label)
	return p, a, err
}

func (p *pool) anchor(label string) (entry, error) {
	if label == "" {
		return p.defaultAnchor(), nil
	}
	e, ok := p.find(label)
	if !ok {
		return entry{}, fmt.Errorf("-anchor %q: no such label in %s", label, p.File)
	}
	return e, nil
}
