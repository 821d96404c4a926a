package selfplay

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// DefaultOpeningPlies is the number of random ring placements of a match's openings when no opening
// file is given (yinsh arena --opening-plies, evaluation.opening_plies). Measured in BENCHMARKS.md
// ("Openings"): enough for distinct starts, few enough that the players still place most rings.
const DefaultOpeningPlies = 4

// MaxOpeningPlies bounds a random opening: the ten ring placements, never a move.
const MaxOpeningPlies = 10

// Opening is where both games of a match's game pair start: a few actions from the initial state (a
// random opening, or a token line of an opening file), or a position text. The zero value is the
// initial state.
type Opening struct {
	// Actions are played from the variant's initial state (empty when Position is set).
	Actions []env.Action
	// Position is a position text to start from instead of the initial state ("" for none).
	Position string
	// Source says where the opening came from: "random", "FILE:LINE", or "" for the initial state.
	Source string
}

// Start returns the opening's starting state in variant v.
func (o Opening) Start(v env.Variant) (*env.State, error) {
	if o.Position != "" {
		s, err := env.ParsePosition(o.Position, v)
		if err != nil {
			return nil, err
		}
		if s.IsTerminal() {
			return nil, fmt.Errorf("selfplay: opening %s: the position is a finished game", o.Source)
		}
		return s, nil
	}
	s := env.NewState(v)
	if err := env.Replay(s, o.Actions); err != nil {
		return nil, fmt.Errorf("selfplay: opening %s: %w", o.Source, err)
	}
	if s.IsTerminal() {
		return nil, fmt.Errorf("selfplay: opening %s: the game is over after it", o.Source)
	}
	return s, nil
}

// String describes the opening for records: its tokens, or its position text.
func (o Opening) String() string {
	if o.Position != "" {
		return o.Position
	}
	toks := make([]string, len(o.Actions))
	for i, a := range o.Actions {
		toks[i] = a.String()
	}
	return strings.Join(toks, " ")
}

// RandomOpening returns pair p's opening of a match seeded with seed: plies uniformly random ring
// placements (0..MaxOpeningPlies) from the initial state. The same (seed, p, plies) give the same
// opening.
func RandomOpening(seed uint64, p, plies int, v env.Variant) Opening {
	rng := rand.New(rand.NewPCG(GameSeed(seed, p), 0x4f50454e)) // "OPEN"
	s := env.NewState(v)
	var buf []env.Action
	o := Opening{Source: "random"}
	for i := 0; i < min(plies, MaxOpeningPlies) && s.Phase() == env.PhasePlace; i++ {
		buf = s.LegalActions(buf)
		a := buf[rng.IntN(len(buf))]
		_ = s.ApplyAction(a) // a legal action
		o.Actions = append(o.Actions, a)
	}
	return o
}

// ReadOpenings reads an opening file: one opening per line, either action tokens from the initial
// state (as `yinsh replay` reads them) or a position text (see env.ParsePosition); '#' starts a
// comment, blank lines are skipped. Every opening is checked in variant v; an error names the file
// (name) and line.
func ReadOpenings(r io.Reader, name string, v env.Variant) ([]Opening, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Opening
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		o := Opening{Source: fmt.Sprintf("%s:%d", name, line)}
		if f := strings.Fields(text); len(f[0]) == env.NumPoints {
			o.Position = strings.Join(f, " ")
		} else {
			acts, err := env.ParseTokens(text)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %v", name, line, err)
			}
			o.Actions = acts
		}
		if _, err := o.Start(v); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", name, line, strings.TrimPrefix(strings.TrimPrefix(err.Error(), "selfplay: opening "+o.Source+": "), "env: "))
		}
		out = append(out, o)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no openings (want one token line or position text per line)", name)
	}
	return out, nil
}

// LoadOpenings reads the opening file at path (see ReadOpenings).
func LoadOpenings(path string, v env.Variant) ([]Opening, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpenings(f, path, v)
}
