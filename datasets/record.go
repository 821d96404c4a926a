// Package datasets holds game records and what is built from them: the record format, shard files
// (compressed, checksummed, finalised atomically), the replay window the trainer samples from, board
// symmetry augmentation and imports of boardspace SGF records (the Parquet export is datasets/parquet,
// so that what imports datasets does not link parquet-go).
//
// Conventions: a position is the state before an action, so a record of n actions has n positions;
// targets (search policy, root WDL, value) are from the view of the player to act at that position,
// who is not always the opponent of the previous one (a YINSH turn is several actions by one player).
package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/yinsh-zero/yinsh/env"
)

// PolicyEntry is one action of a sparse policy target and its probability.
type PolicyEntry struct {
	Action uint16
	Prob   float32
}

// Target is what the search said at one position of a game.
type Target struct {
	// Policy is the sparse search policy (e.g. normalised visit counts), probabilities summing to 1
	// over legal actions. Empty (nil) means the position is not a policy/value training target
	// (playout-cap randomisation's fast searches, forced actions): the window stores its action only.
	Policy []PolicyEntry
	// RootWDL is the search's root value as win/draw/loss for the player to act; zero when unknown
	// (imports).
	RootWDL [3]float32
}

// IsTarget reports whether the position is a training target.
func (t *Target) IsTarget() bool { return len(t.Policy) > 0 }

// Record is one game: the actions from the empty board, a target per action, and the result.
type Record struct {
	// ID identifies the game (self-play: the game's seed; imports: a hash of the source file).
	ID      uint64
	Variant env.Variant
	// Generator names what produced the game: a checkpoint id, a baseline name, or "sgf:<file>".
	Generator string
	// Outcome is the result, including adjudications such as resignation (so it may differ from the
	// final state's); Ongoing for an unfinished game, which the replay window refuses.
	Outcome env.Outcome
	Actions []env.Action
	// Targets has one entry per action: Targets[i] describes the position before Actions[i].
	Targets []Target
}

// Positions returns the number of positions (actions) in the game.
func (r *Record) Positions() int { return len(r.Actions) }

// TrainingTargets returns the number of positions that are training targets.
func (r *Record) TrainingTargets() int {
	n := 0
	for i := range r.Targets {
		if r.Targets[i].IsTarget() {
			n++
		}
	}
	return n
}

// Record limits. They bound what a decoder allocates for hostile input.
const (
	MaxActions      = 1 << 14 // actions per game (real games have a few hundred at most)
	MaxGeneratorLen = 1 << 10 // bytes of the generator string
	probTolerance   = 1e-3    // |sum of a policy target - 1| allowed
)

// Validate checks the record's structure (counts, ranges, finite probabilities) and then replays it
// from the empty board: every action must be legal, every policy entry must be a legal action of its
// position, and a game that ends on the board must carry that outcome. Errors name the ply (1-based)
// and the token.
func (r *Record) Validate() error {
	if err := r.checkStructure(); err != nil {
		return err
	}
	s := env.NewState(r.Variant)
	for i, a := range r.Actions {
		t := &r.Targets[i]
		for _, e := range t.Policy {
			if !s.IsLegal(env.Action(e.Action)) {
				return fmt.Errorf("datasets: game %d ply %d: policy target action %s is not legal", r.ID, i+1, env.Action(e.Action))
			}
		}
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("datasets: game %d ply %d %q: %w", r.ID, i+1, a, err)
		}
	}
	if s.IsTerminal() && s.Outcome() != r.Outcome {
		return fmt.Errorf("datasets: game %d: outcome %s but the final position says %s", r.ID, r.Outcome, s.Outcome())
	}
	return nil
}

// checkStructure checks everything that does not need the rules: what a shard decoder can check.
func (r *Record) checkStructure() error {
	if r.Variant > env.Blitz {
		return fmt.Errorf("datasets: game %d: unknown variant %d", r.ID, r.Variant)
	}
	if r.Outcome < env.Ongoing || r.Outcome > env.Draw {
		return fmt.Errorf("datasets: game %d: unknown outcome %d", r.ID, r.Outcome)
	}
	if len(r.Generator) > MaxGeneratorLen || !utf8.ValidString(r.Generator) {
		return fmt.Errorf("datasets: game %d: generator must be valid UTF-8 of at most %d bytes", r.ID, MaxGeneratorLen)
	}
	if len(r.Actions) > MaxActions {
		return fmt.Errorf("datasets: game %d: %d actions (at most %d)", r.ID, len(r.Actions), MaxActions)
	}
	if len(r.Targets) != len(r.Actions) {
		return fmt.Errorf("datasets: game %d: %d targets for %d actions", r.ID, len(r.Targets), len(r.Actions))
	}
	for i, a := range r.Actions {
		if !a.Valid() {
			return fmt.Errorf("datasets: game %d ply %d: action id %d out of range", r.ID, i+1, int(a))
		}
		t := &r.Targets[i]
		if len(t.Policy) > env.NumActions {
			return fmt.Errorf("datasets: game %d ply %d: %d policy entries", r.ID, i+1, len(t.Policy))
		}
		sum := 0.0
		for _, e := range t.Policy {
			if int(e.Action) >= env.NumActions {
				return fmt.Errorf("datasets: game %d ply %d: policy action id %d out of range", r.ID, i+1, e.Action)
			}
			if !(e.Prob >= 0 && e.Prob <= 1) { // also rejects NaN
				return fmt.Errorf("datasets: game %d ply %d: policy probability %v not in [0, 1]", r.ID, i+1, e.Prob)
			}
			sum += float64(e.Prob)
		}
		if len(t.Policy) > 0 && math.Abs(sum-1) > probTolerance {
			return fmt.Errorf("datasets: game %d ply %d: policy probabilities sum to %.6f, not 1", r.ID, i+1, sum)
		}
		wsum := 0.0
		for _, v := range t.RootWDL {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("datasets: game %d ply %d: root WDL %v not in [0, 1]", r.ID, i+1, t.RootWDL)
			}
			wsum += float64(v)
		}
		if wsum != 0 && math.Abs(wsum-1) > probTolerance {
			return fmt.Errorf("datasets: game %d ply %d: root WDL %v sums to %.6f (want 1, or all zero when unknown)", r.ID, i+1, t.RootWDL, wsum)
		}
	}
	return nil
}

// Record encoding, format version 1 (shardVersion in the shard header covers it; a change here bumps
// it). The payload of one shard frame, before compression. Column-wise so
// that the compressor sees like next to like; little-endian; uvarint = encoding/binary Uvarint:
//
//	uvarint id
//	byte    variant
//	byte    outcome
//	uvarint len(generator), generator bytes
//	uvarint n (actions)
//	n × uint16  action ids
//	n × uvarint policy entry count per position (0 = not a training target)
//	n × 3 × float32  root WDL
//	m × uint16  policy actions (all positions' entries, in order; m = total count)
//	m × float32 policy probabilities
//
// A record decodes to exactly the record that was encoded (nil Policy for zero entries).

var errShort = errors.New("record ends early")

// appendRecord appends the encoding of r to dst. r must pass checkStructure.
func appendRecord(dst []byte, r *Record) []byte {
	dst = binary.AppendUvarint(dst, r.ID)
	dst = append(dst, byte(r.Variant), byte(r.Outcome))
	dst = binary.AppendUvarint(dst, uint64(len(r.Generator)))
	dst = append(dst, r.Generator...)
	dst = binary.AppendUvarint(dst, uint64(len(r.Actions)))
	for _, a := range r.Actions {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(a))
	}
	m := 0
	for i := range r.Targets {
		dst = binary.AppendUvarint(dst, uint64(len(r.Targets[i].Policy)))
		m += len(r.Targets[i].Policy)
	}
	for i := range r.Targets {
		for _, v := range r.Targets[i].RootWDL {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	}
	for i := range r.Targets {
		for _, e := range r.Targets[i].Policy {
			dst = binary.LittleEndian.AppendUint16(dst, e.Action)
		}
	}
	for i := range r.Targets {
		for _, e := range r.Targets[i].Policy {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(e.Prob))
		}
	}
	return dst
}

// decoder reads the encoding with bounds checks; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint(max uint64, what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%s: %w", what, errShort)
		if n < 0 {
			d.err = fmt.Errorf("%s: bad varint", what)
		}
		return 0
	}
	d.b = d.b[n:]
	if v > max {
		d.err = fmt.Errorf("%s %d out of range (at most %d)", what, v, max)
		return 0
	}
	return v
}

func (d *decoder) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b) < n {
		d.err = fmt.Errorf("%s: %w", what, errShort)
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

// decodeRecord decodes one record payload and checks its structure (not the rules: see Validate).
func decodeRecord(b []byte) (*Record, error) {
	d := &decoder{b: b}
	r := &Record{}
	r.ID = d.uvarint(math.MaxUint64, "game id")
	vo := d.bytes(2, "variant and outcome")
	if vo != nil {
		r.Variant, r.Outcome = env.Variant(vo[0]), env.Outcome(int8(vo[1]))
	}
	gen := d.bytes(int(d.uvarint(MaxGeneratorLen, "generator length")), "generator")
	r.Generator = string(gen)
	n := int(d.uvarint(MaxActions, "action count"))
	acts := d.bytes(2*n, "actions")
	counts := make([]int, 0, n)
	m := 0
	for i := 0; i < n && d.err == nil; i++ {
		c := int(d.uvarint(uint64(env.NumActions), "policy entry count"))
		counts = append(counts, c)
		m += c
	}
	wdl := d.bytes(12*n, "root WDL")
	pa := d.bytes(2*m, "policy actions")
	pp := d.bytes(4*m, "policy probabilities")
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%d bytes after the record", len(d.b))
	}
	if n > 0 {
		r.Actions = make([]env.Action, n)
		r.Targets = make([]Target, n)
	}
	entries := make([]PolicyEntry, m)
	for j := range entries {
		entries[j] = PolicyEntry{
			Action: binary.LittleEndian.Uint16(pa[2*j:]),
			Prob:   math.Float32frombits(binary.LittleEndian.Uint32(pp[4*j:])),
		}
	}
	for i := 0; i < n; i++ {
		r.Actions[i] = env.Action(binary.LittleEndian.Uint16(acts[2*i:]))
		t := &r.Targets[i]
		for k := range t.RootWDL {
			t.RootWDL[k] = math.Float32frombits(binary.LittleEndian.Uint32(wdl[12*i+4*k:]))
		}
		if c := counts[i]; c > 0 {
			t.Policy, entries = entries[:c:c], entries[c:]
		}
	}
	if err := r.checkStructure(); err != nil {
		return nil, err
	}
	return r, nil
}

// OneHot returns the policy target that puts all the probability on a.
func OneHot(a env.Action) []PolicyEntry { return []PolicyEntry{{Action: uint16(a), Prob: 1}} }

// ValueFor returns the game outcome as win/draw/loss from the view of player c: {1,0,0} when c won,
// {0,1,0} for a draw, {0,0,1} when c lost, and all zero for an unfinished game.
func ValueFor(o env.Outcome, c env.Color) [3]float32 {
	switch {
	case o == env.Draw:
		return [3]float32{0, 1, 0}
	case o == env.WhiteWins && c == env.White, o == env.BlackWins && c == env.Black:
		return [3]float32{1, 0, 0}
	case o == env.WhiteWins, o == env.BlackWins:
		return [3]float32{0, 0, 1}
	}
	return [3]float32{}
}

// Stats summarises a set of records.
type Stats struct {
	Shards    int
	Games     int
	Positions int    // actions over all games
	Targets   int    // positions that are training targets
	Results   [4]int // games per env.Outcome (Ongoing, WhiteWins, BlackWins, Draw)
	Variants  [2]int // games per env.Variant
	MinLength int    // actions in the shortest game
	MaxLength int    // actions in the longest game
}

// Add counts one record.
func (st *Stats) Add(r *Record) {
	n := len(r.Actions)
	if st.Games == 0 || n < st.MinLength {
		st.MinLength = n
	}
	if n > st.MaxLength {
		st.MaxLength = n
	}
	st.Games++
	st.Positions += n
	st.Targets += r.TrainingTargets()
	if r.Outcome >= env.Ongoing && r.Outcome <= env.Draw {
		st.Results[r.Outcome]++
	}
	if r.Variant <= env.Blitz {
		st.Variants[r.Variant]++
	}
}

// MeanLength returns the mean number of actions per game (0 without games).
func (st *Stats) MeanLength() float64 {
	if st.Games == 0 {
		return 0
	}
	return float64(st.Positions) / float64(st.Games)
}

// Share returns the fraction of games with outcome o (0 without games).
func (st *Stats) Share(o env.Outcome) float64 {
	if st.Games == 0 {
		return 0
	}
	return float64(st.Results[o]) / float64(st.Games)
}

// MarshalBinary returns the record's encoding (the payload of a shard frame before compression): the
// form a game travels in between processes (cluster workers publish it).
func (r *Record) MarshalBinary() ([]byte, error) {
	if err := r.checkStructure(); err != nil {
		return nil, err
	}
	return appendRecord(nil, r), nil
}

// UnmarshalBinary decodes an encoding written by MarshalBinary and checks its structure (not the
// rules: see Validate).
func (r *Record) UnmarshalBinary(b []byte) error {
	if len(b) > maxDecodedBytes {
		return fmt.Errorf("datasets: record of %d bytes is too large", len(b))
	}
	d, err := decodeRecord(b)
	if err != nil {
		return fmt.Errorf("datasets: record: %w", err)
	}
	*r = *d
	return nil
}
