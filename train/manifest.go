package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The run manifest. A state.json of format 2 records, besides the run's counters, what every file
// of the committed run must be: the config it ran with (its canonical YAML and that text's sha256),
// every checkpoint (run id and generation from its metadata, content sha256), every shard (record
// count, smallest and largest record id, content sha256), the replay window's draw-count file, and
// the committed prefix of metrics.jsonl and results.jsonl (lines, bytes and the prefix's sha256), and
// finally a checksum over all of it. It is written atomically at every commit point, after the files
// it describes. VerifyRun compares the run directory with it; resume refuses any disagreement.
//
// What is written after the last commit belongs to the generation in flight and is not in the
// manifest: lines after the committed prefix of metrics.jsonl and results.jsonl (dropped on
// resume), shards of that generation's games (kept: each must hold only that generation's games,
// once), its candidate checkpoint and draw-count file (rewritten).
//
// results-arena.jsonl, written by yinsh arena at any time, is not the training loop's and is not in
// the manifest (VerifyRun checks that its lines read).

// ConfigRecord is the config a run committed with.
type ConfigRecord struct {
	SHA256 string `json:"sha256"` // of YAML
	YAML   string `json:"yaml"`   // Config.YAML() of the resolved config
}

// CheckpointRecord is one checkpoint of the manifest.
type CheckpointRecord struct {
	Path       string `json:"path"` // relative to the run directory
	RunID      string `json:"run_id"`
	Generation int    `json:"generation"`
	Step       int64  `json:"step"`
	SHA256     string `json:"sha256"`
	// WeightsSHA256 is the sha256 of the checkpoint without its optimiser state (the file checkpoint
	// retention rewrites it to; see weightsOnly), for a checkpoint that holds optimiser state: a
	// checkpoint other than the current one may have either content.
	WeightsSHA256 string `json:"weights_sha256,omitempty"`
}

// ShardRecord is one shard of the manifest.
type ShardRecord struct {
	Path    string `json:"path"`
	Records int    `json:"records"`
	MinID   uint64 `json:"min_id"`
	MaxID   uint64 `json:"max_id"`
	SHA256  string `json:"sha256"`
}

// FileRecord is a file of the manifest by its checksum.
type FileRecord struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// LogRecord is the committed prefix of an append-only JSON-lines file.
type LogRecord struct {
	Lines  int    `json:"lines"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"` // of the first Bytes bytes
}

// Problem is one disagreement between a run directory and its state.json: the file (relative to
// the run directory), the field, and what was found against what is recorded.
type Problem struct {
	File  string
	Field string
	Msg   string
}

func (p Problem) Error() string {
	if p.Field == "" {
		return p.File + ": " + p.Msg
	}
	return p.File + ": " + p.Field + ": " + p.Msg
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12] + "…"
	}
	return s
}

// regularFile reports an error unless path is a regular file (not a link, device or pipe: those
// would be followed out of the run, or read forever).
func regularFile(path string) (os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	return fi, nil
}

// fileSHA is the sha256 of a regular file's content.
func fileSHA(path string) (string, error) {
	if _, err := regularFile(path); err != nil {
		return "", err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stateChecksum is the checksum of the state with its Checksum field empty.
func stateChecksum(st *State) string {
	c := *st
	c.Checksum = ""
	b, _ := json.Marshal(&c)
	return sha(b)
}

// logRecord describes path's whole content as committed ({} for a missing file).
func logRecord(path string) (*LogRecord, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return &LogRecord{SHA256: sha(nil)}, nil
	}
	if _, err := regularFile(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &LogRecord{Lines: bytes.Count(b, []byte{'\n'}), Bytes: int64(len(b)), SHA256: sha(b)}, nil
}

// buildManifest fills st's manifest from the run directory: records of prev (the manifest being
// replaced) are kept for checkpoints and shards already committed, which do not change; new files
// are read.
func buildManifest(dir string, cfg *Config, st *State, prev *State) error {
	y, err := cfg.YAML()
	if err != nil {
		return err
	}
	st.Format = StateFormat
	st.Config = &ConfigRecord{SHA256: sha(y), YAML: string(y)}
	old := map[string]CheckpointRecord{}
	oldShards := map[string]ShardRecord{}
	if prev != nil {
		for _, c := range prev.Checkpoints {
			old[c.Path] = c
		}
		for _, s := range prev.Shards {
			oldShards[s.Path] = s
		}
	}
	st.Checkpoints = []CheckpointRecord{}
	for g := 0; g <= st.Generation; g++ {
		rel := ckptPath(g)
		full := filepath.Join(dir, rel)
		if _, err := os.Lstat(full); errors.Is(err, os.ErrNotExist) && rel != st.Best && rel != st.Current {
			continue // removed by checkpoint retention
		}
		if c, ok := old[rel]; ok && g < st.Generation {
			st.Checkpoints = append(st.Checkpoints, c)
			continue
		}
		sum, err := fileSHA(full)
		if err != nil {
			return fmt.Errorf("manifest: %s: %w", full, err)
		}
		h, err := model.ReadMetadata(full)
		if err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		c := CheckpointRecord{Path: rel, Generation: g, Step: h.Meta.Step, SHA256: sum}
		if h.Meta.Optimizer != nil {
			b, err := weightsOnly(full)
			if err != nil {
				return fmt.Errorf("manifest: %w", err)
			}
			c.WeightsSHA256 = sha(b)
		}
		if h.Meta.Run != nil {
			c.RunID, c.Generation = h.Meta.Run.ID, h.Meta.Run.Generation
		}
		st.Checkpoints = append(st.Checkpoints, c)
	}
	shards, err := datasets.ListShards(filepath.Join(dir, gamesDir))
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	st.Shards = []ShardRecord{}
	for _, full := range shards {
		rel := filepath.Join(gamesDir, filepath.Base(full))
		if s, ok := oldShards[rel]; ok {
			st.Shards = append(st.Shards, s)
			continue
		}
		s, err := readShardRecord(full)
		if err != nil {
			return fmt.Errorf("manifest: %w", err)
		}
		s.Path = rel
		st.Shards = append(st.Shards, s)
	}
	st.UsesSum = ""
	if st.WindowUses != "" {
		if st.UsesSum, err = fileSHA(filepath.Join(dir, st.WindowUses)); err != nil {
			return fmt.Errorf("manifest: %s: %w", st.WindowUses, err)
		}
	}
	if st.Metrics, err = logRecord(filepath.Join(dir, MetricsFile)); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	if st.Results, err = logRecord(filepath.Join(dir, ResultsFileName)); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	st.Checksum = stateChecksum(st)
	return nil
}

// readShardRecord reads a shard's records and checksum.
func readShardRecord(path string) (ShardRecord, error) {
	sum, err := fileSHA(path)
	if err != nil {
		return ShardRecord{}, fmt.Errorf("%s: %w", path, err)
	}
	recs, err := datasets.ReadShard(path)
	if err != nil {
		return ShardRecord{}, err
	}
	s := ShardRecord{Records: len(recs), SHA256: sum}
	for i, r := range recs {
		if i == 0 || r.ID < s.MinID {
			s.MinID = r.ID
		}
		if i == 0 || r.ID > s.MaxID {
			s.MaxID = r.ID
		}
	}
	return s, nil
}

// RunCheck is what VerifyRun found.
type RunCheck struct {
	Dir      string
	State    *State  // nil when state.json could not be read
	Config   *Config // the committed config (format 2) or config.yaml's (format 1); nil if unreadable
	Problems []Problem
	// Notes are what resume does by itself (uncommitted lines it drops, temporary files it
	// removes): not problems.
	Notes []string
	// Finished: every configured generation is done.
	Finished bool
}

func (c *RunCheck) bad(file, field, format string, args ...any) {
	c.Problems = append(c.Problems, Problem{File: file, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Err is nil for a run without problems, else the first problem (with the count of the others).
func (c *RunCheck) Err() error {
	if len(c.Problems) == 0 {
		return nil
	}
	p := c.Problems[0]
	more := ""
	if n := len(c.Problems) - 1; n > 0 {
		more = fmt.Sprintf("; %d more problem(s), `yinsh runs check %s` lists them", n, c.Dir)
	}
	return &RunError{Dir: c.Dir, Problem: p, more: more}
}

// RunError is a resume refused for a problem of the run directory; nothing was written.
type RunError struct {
	Dir     string
	Problem Problem
	more    string
}

func (e *RunError) Error() string {
	return fmt.Sprintf("resume refused, nothing written: %s%c%s%s", e.Dir, filepath.Separator, e.Problem.Error(), e.more)
}

// runCheckpoint is the generation of rel when it is a checkpoint path as the loop writes them
// (ckptPath: checkpoints/gen-NNNN.ckpt, relative, inside the run directory).
func runCheckpoint(rel string) (int, bool) {
	g, ok := ParseCheckpointName(filepath.Base(rel))
	return g, ok && rel == ckptPath(g)
}

// readState reads and checks state.json on its own: the fields present and well-formed, the paths
// inside the run directory and of the names the loop writes.
func readState(dir string, c *RunCheck) *State {
	path := filepath.Join(dir, StateFile)
	fi, err := regularFile(path)
	if err != nil {
		c.bad(StateFile, "", "%v", err)
		return nil
	}
	if fi.Size() > 256<<20 {
		c.bad(StateFile, "", "%d bytes: not a run's state", fi.Size())
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		c.bad(StateFile, "", "%v", err)
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		c.bad(StateFile, "", "empty (a run's state.json is never empty: restore it, or start a new run)")
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		c.bad(StateFile, "", "not JSON: %v", err)
		return nil
	}
	st := &State{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		c.bad(StateFile, "", "%v", err)
		return nil
	}
	if st.Format > StateFormat {
		c.bad(StateFile, "format", "%d, this build reads up to %d (written by a newer build)", st.Format, StateFormat)
		return nil
	}
	if st.Format < 2 {
		for _, k := range []string{"config", "checkpoints", "shards", "metrics", "results", "checksum"} {
			if _, ok := fields[k]; ok {
				c.bad(StateFile, "format", "%d, but it holds %s, a field of format 2's manifest", st.Format, k)
				return nil
			}
		}
	}
	required := []string{"generation", "best", "current", "step", "games", "samples_trained"}
	if st.Format >= 2 {
		required = append(required, "config", "checkpoints", "shards", "metrics", "results", "checksum")
	}
	var absent []string
	for _, k := range required {
		if _, ok := fields[k]; !ok {
			absent = append(absent, k)
		}
	}
	if len(absent) == len(required) {
		c.bad(StateFile, "", "no fields of a run's state (%s): refused rather than restarting the run from generation 0", strings.Join(required, ", "))
		return nil
	}
	if len(absent) > 0 {
		c.bad(StateFile, absent[0], "absent (format %d records %s)", st.Format, strings.Join(required, ", "))
		return nil
	}
	ok := true
	if st.Generation < 0 {
		c.bad(StateFile, "generation", "%d, want ≥ 0", st.Generation)
		ok = false
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"step", st.Step}, {"games", int64(st.Games)}, {"reanalysed", int64(st.Reanalysed)}, {"samples_trained", st.SamplesTrained}} {
		if f.v < 0 {
			c.bad(StateFile, f.name, "%d, want ≥ 0", f.v)
			ok = false
		}
	}
	// paths: exactly the names the loop writes, inside the run directory
	if g, isCkpt := runCheckpoint(st.Best); !isCkpt {
		c.bad(StateFile, "best", "%q, want checkpoints/gen-NNNN.ckpt inside the run directory", st.Best)
		ok = false
	} else if g > st.Generation {
		c.bad(StateFile, "best", "%q is after generation %d (state.json's generation)", st.Best, st.Generation)
		ok = false
	}
	if st.Current != ckptPath(st.Generation) {
		c.bad(StateFile, "current", "%q, want %q for generation %d (state.json's generation)", st.Current, ckptPath(st.Generation), st.Generation)
		ok = false
	}
	switch {
	case st.Generation == 0 && st.WindowUses != "":
		c.bad(StateFile, "window_uses", "%q at generation 0, want none", st.WindowUses)
		ok = false
	case st.Generation > 0 && st.WindowUses != usesPath(st.Generation) && !(st.Format < 2 && st.WindowUses == ""):
		c.bad(StateFile, "window_uses", "%q, want %q for generation %d (state.json's generation)", st.WindowUses, usesPath(st.Generation), st.Generation)
		ok = false
	}
	if !ok {
		return nil
	}
	return st
}

// VerifyRun checks a run directory against its state.json without writing anything and returns
// every problem found (VerifyRun's own failures, such as an unreadable directory, are problems
// too).
func VerifyRun(dir string) *RunCheck {
	c := &RunCheck{Dir: dir}
	st := readState(dir, c)
	if st == nil {
		return c
	}
	c.State = st
	cfgProblems := len(c.Problems)
	if st.Format >= 2 {
		if st.Config.SHA256 != sha([]byte(st.Config.YAML)) {
			c.bad(StateFile, "config.sha256", "records %s, its config text hashes to %s", short(st.Config.SHA256), short(sha([]byte(st.Config.YAML))))
		} else if cfg, err := ParseConfig([]byte(st.Config.YAML), StateFile+" config", nil); err != nil {
			c.bad(StateFile, "config", "%v", err)
		} else {
			c.Config = &cfg
		}
	} else if cfg, err := LoadConfig(filepath.Join(dir, ConfigFile), nil); err != nil {
		c.bad(ConfigFile, "", "%v", err)
	} else {
		c.Config = &cfg
	}
	if c.Config != nil {
		c.Finished = st.Generation >= c.Config.Generations
	}
	if len(c.Problems) > cfgProblems {
		return c
	}
	if st.Format >= 2 {
		verifyConfigFile(dir, c)
	}
	verifyCheckpoints(dir, st, c)
	verifyShards(dir, st, c)
	verifyUses(dir, st, c)
	verifyLog(dir, MetricsFile, st.Metrics, st, c)
	verifyLog(dir, ResultsFileName, st.Results, st, c)
	verifyArena(dir, c)
	if st.Format >= 2 {
		if got := stateChecksum(st); got != st.Checksum {
			c.bad(StateFile, "checksum", "records %s, its fields hash to %s (state.json was edited or damaged)", short(st.Checksum), short(got))
		}
	}
	return c
}

func verifyCheckpoints(dir string, st *State, c *RunCheck) {
	check := func(rel string, want *CheckpointRecord) {
		full := filepath.Join(dir, rel)
		h, err := model.ReadMetadata(full)
		if err != nil {
			c.bad(rel, "", "%v", errors.Unwrap(err))
			return
		}
		if st.Format < 2 {
			if rel == st.Current && st.Generation > 0 && h.Meta.Step != st.Step {
				c.bad(StateFile, "step", "%d, %s records step %d", st.Step, rel, h.Meta.Step)
			}
			return
		}
		if h.Meta.Run != nil && (h.Meta.Run.ID != want.RunID || h.Meta.Run.Generation != want.Generation) {
			c.bad(rel, "run", "%s generation %d, state.json records %s generation %d", h.Meta.Run.ID, h.Meta.Run.Generation, want.RunID, want.Generation)
			return
		}
		if h.Meta.Run == nil && want.RunID != "" {
			c.bad(rel, "run", "none, state.json records %s generation %d", want.RunID, want.Generation)
			return
		}
		if h.Meta.Step != want.Step {
			c.bad(rel, "step", "%d, state.json records %d", h.Meta.Step, want.Step)
			return
		}
		sum, err := fileSHA(full)
		if err != nil {
			c.bad(rel, "", "%v", err)
			return
		}
		retained := want.WeightsSHA256 != "" && sum == want.WeightsSHA256 && rel != st.Current
		if sum != want.SHA256 && !retained {
			c.bad(rel, "sha256", "%s, state.json records %s", short(sum), short(want.SHA256))
		}
	}
	if st.Format < 2 {
		for _, rel := range []string{st.Best, st.Current} {
			check(rel, nil)
		}
		return
	}
	listed := map[string]bool{}
	for i := range st.Checkpoints {
		r := &st.Checkpoints[i]
		g, isCkpt := runCheckpoint(r.Path)
		if !isCkpt || g > st.Generation || listed[r.Path] {
			c.bad(StateFile, fmt.Sprintf("checkpoints[%d].path", i), "%q, want a checkpoints/gen-NNNN.ckpt up to generation %d, once", r.Path, st.Generation)
			continue
		}
		listed[r.Path] = true
		check(r.Path, r)
	}
	for _, rel := range []string{st.Best, st.Current} {
		if !listed[rel] {
			c.bad(StateFile, "checkpoints", "do not record %s (the best or current network)", rel)
		}
	}
	for _, r := range st.Checkpoints {
		if r.Path == st.Current && st.Generation > 0 && r.Step != st.Step {
			c.bad(StateFile, "step", "%d, the current checkpoint %s records step %d", st.Step, r.Path, r.Step)
		}
	}
	for g := 0; g <= st.Generation; g++ {
		rel := ckptPath(g)
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil && !listed[rel] {
			c.bad(rel, "", "not recorded in state.json (a checkpoint of a committed generation that retention removed from the manifest, or a file copied in)")
		}
	}
}

func verifyShards(dir string, st *State, c *RunCheck) {
	gdir := filepath.Join(dir, gamesDir)
	shards, err := datasets.ListShards(gdir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && (st.Games == 0 && len(st.Shards) == 0) {
			return
		}
		c.bad(gamesDir, "", "%v", errors.Unwrap(err))
		return
	}
	onDisk := map[string]bool{}
	for _, s := range shards {
		onDisk[filepath.Join(gamesDir, filepath.Base(s))] = true
	}
	recorded := map[string]bool{}
	if st.Format >= 2 {
		total := 0
		for i, r := range st.Shards {
			if _, ok := datasets.ParseShardName(filepath.Base(r.Path)); !ok || filepath.Dir(r.Path) != gamesDir || recorded[r.Path] {
				c.bad(StateFile, fmt.Sprintf("shards[%d].path", i), "%q, want games/shard-NNNNNN.yz, once", r.Path)
				continue
			}
			recorded[r.Path] = true
			total += r.Records
			if !onDisk[r.Path] {
				if _, err := os.Lstat(filepath.Join(dir, r.Path)); err == nil {
					c.bad(r.Path, "", "not a regular file")
				} else {
					c.bad(r.Path, "", "missing: state.json records it with %d games", r.Records)
				}
				continue
			}
			sum, err := fileSHA(filepath.Join(dir, r.Path))
			if err != nil {
				c.bad(r.Path, "", "%v", err)
				continue
			}
			if sum != r.SHA256 {
				got, err := readShardRecord(filepath.Join(dir, r.Path))
				switch {
				case err != nil:
					c.bad(r.Path, "", "%v", errors.Unwrap(err))
				case got.Records != r.Records:
					c.bad(r.Path, "records", "%d games, state.json records %d", got.Records, r.Records)
				case got.MinID != r.MinID || got.MaxID != r.MaxID:
					c.bad(r.Path, "ids", "game ids %d..%d, state.json records %d..%d", got.MinID, got.MaxID, r.MinID, r.MaxID)
				default:
					c.bad(r.Path, "sha256", "%s, state.json records %s", short(sum), short(r.SHA256))
				}
			}
		}
		if total != st.Games+st.Reanalysed {
			if st.Reanalysed > 0 {
				c.bad(StateFile, "games", "%d and reanalysed %d, the shards it records hold %d games", st.Games, st.Reanalysed, total)
			} else {
				c.bad(StateFile, "games", "%d, the shards it records hold %d games", st.Games, total)
			}
		}
	}
	if c.Config == nil {
		return
	}
	// shards not in the manifest: the games of the generation in flight, each once (format 1:
	// every shard is checked so by recordedGames on resume)
	if st.Format < 2 {
		return
	}
	g := st.Generation + 1
	gen, n := GenName(g), c.Config.SelfPlay.Games
	seeds := map[uint64]bool{}
	if !c.Config.Cluster.Enabled() {
		first := (g - 1) * n
		for i := first; i < first+n; i++ {
			seeds[selfplay.GameSeed(c.Config.Seed, i)] = true
		}
	}
	seen := map[uint64]string{}
	for _, s := range shards {
		rel := filepath.Join(gamesDir, filepath.Base(s))
		if recorded[rel] {
			continue
		}
		recs, err := datasets.ReadShard(s)
		if err != nil {
			c.bad(rel, "", "%v", errors.Unwrap(err))
			continue
		}
		for k, r := range recs {
			reanalysed := r.Generator == ReanalysePrefix+gen // the generation in flight's Reanalyse copies
			switch {
			case r.Generator != gen && !reanalysed:
				c.bad(rel, fmt.Sprintf("record %d", k+1), "game %d of %s, but a shard not recorded in state.json may only hold games of %s (the generation in flight): a copy of a committed shard?", r.ID, r.Generator, gen)
			case len(seeds) > 0 && !seeds[r.ID] && !reanalysed:
				c.bad(rel, fmt.Sprintf("record %d", k+1), "game id %d is none of the seeds of %s's %d games", r.ID, gen, n)
			case seen[r.ID] != "":
				c.bad(rel, fmt.Sprintf("record %d", k+1), "game %d of %s is also in %s", r.ID, gen, seen[r.ID])
			default:
				seen[r.ID] = rel
				continue
			}
			break
		}
	}
	if len(seen) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d games of %s (the generation in flight) are in shards after the last commit: resume keeps them", len(seen), gen))
	}
}

func verifyUses(dir string, st *State, c *RunCheck) {
	if st.WindowUses == "" {
		return
	}
	full := filepath.Join(dir, st.WindowUses)
	sum, err := fileSHA(full)
	if err != nil {
		c.bad(st.WindowUses, "", "%v", unwrapPath(err))
		return
	}
	if st.Format >= 2 && sum != st.UsesSum {
		c.bad(st.WindowUses, "sha256", "%s, state.json records %s", short(sum), short(st.UsesSum))
	}
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// verifyLog checks an append-only JSON-lines file against its committed prefix: every committed line
// reads, metrics lines are generations 1..N once each.
func verifyLog(dir, name string, rec *LogRecord, st *State, c *RunCheck) {
	full := filepath.Join(dir, name)
	fi, err := os.Lstat(full)
	if errors.Is(err, os.ErrNotExist) {
		if rec != nil && rec.Bytes > 0 {
			c.bad(name, "", "missing: state.json records %d lines (%d bytes)", rec.Lines, rec.Bytes)
		} else if name == MetricsFile && st.Generation > 0 {
			c.bad(name, "", "missing: state.json records %d generations", st.Generation)
		}
		return
	}
	if err != nil || !fi.Mode().IsRegular() {
		c.bad(name, "", "not a regular file")
		return
	}
	data, err := os.ReadFile(full)
	if err != nil {
		c.bad(name, "", "%v", unwrapPath(err))
		return
	}
	committed := data
	if rec != nil {
		if int64(len(data)) < rec.Bytes {
			c.bad(name, "lines", "%d lines (%d bytes), state.json records %d lines (%d bytes): committed lines lost", bytes.Count(data, []byte{'\n'}), len(data), rec.Lines, rec.Bytes)
			return
		}
		committed = data[:rec.Bytes]
		if n := bytes.Count(committed, []byte{'\n'}); n != rec.Lines {
			c.bad(StateFile, strings.TrimSuffix(name, ".jsonl")+".lines", "%d, its first %d bytes hold %d lines", rec.Lines, rec.Bytes, n)
			return
		}
		if got := sha(committed); got != rec.SHA256 {
			c.bad(name, "sha256", "its first %d bytes hash to %s, state.json records %s: committed lines changed", rec.Bytes, short(got), short(rec.SHA256))
			return
		}
		if rest := data[rec.Bytes:]; len(rest) > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %d bytes after the last commit (the generation in flight): resume drops them", name, len(rest)))
		}
	} else if name == MetricsFile {
		// format 1: the uncommitted lines are those of generations after state.json's
		committed = nil
		for _, l := range bytes.SplitAfter(data, []byte{'\n'}) {
			var m Metrics
			if json.Unmarshal(l, &m) == nil && m.Generation > st.Generation {
				break
			}
			committed = append(committed, l...)
		}
	}
	lines := bytes.Split(committed, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if rec == nil && len(committed) > 0 && committed[len(committed)-1] != '\n' {
		lines = lines[:len(lines)-1] // format 1: a cut last line (a crash) is skipped
	}
	for i, l := range lines {
		if name == MetricsFile {
			var m Metrics
			if err := json.Unmarshal(l, &m); err != nil {
				c.bad(name, fmt.Sprintf("line %d", i+1), "%v", err)
				return
			}
			if m.Generation != i+1 {
				c.bad(name, fmt.Sprintf("line %d", i+1), "generation %d, want %d (one line per generation, in order)", m.Generation, i+1)
				return
			}
			if i == len(lines)-1 && m.Best != "" && m.Best != GenName(bestGen(st.Best)) {
				c.bad(StateFile, "best", "%q, %s's last line (generation %d) records best %s", st.Best, name, m.Generation, m.Best)
				return
			}
			continue
		}
		var r Result
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.A == "" || r.B == "" {
			c.bad(name, fmt.Sprintf("line %d", i+1), "not a match result: %s", string(l[:min(len(l), 60)]))
			return
		}
	}
	if name == MetricsFile && len(lines) != st.Generation {
		c.bad(StateFile, "generation", "%d, %s records %d generations", st.Generation, name, len(lines))
	}
}

// verifyArena checks that yinsh arena's results file in the run, if any, reads.
func verifyArena(dir string, c *RunCheck) {
	const name = "results-arena.jsonl"
	full := filepath.Join(dir, name)
	fi, err := os.Lstat(full)
	if err != nil {
		return
	}
	if !fi.Mode().IsRegular() {
		c.bad(name, "", "not a regular file")
		return
	}
	if _, err := readResultsFile(full); err != nil {
		c.bad(name, "", "%s", strings.TrimPrefix(err.Error(), full+": "))
	}
}

// verifyConfigFile compares config.yaml with the committed config: a change to a fixed key is a
// problem (resume would refuse it), other changes are applied by resume and recorded.
func verifyConfigFile(dir string, c *RunCheck) {
	cur, err := LoadConfig(filepath.Join(dir, ConfigFile), nil)
	if err != nil {
		c.bad(ConfigFile, "", "%s (runs check --repair restores it from state.json)", strings.TrimPrefix(unwrapPath(err).Error(), "config "+filepath.Join(dir, ConfigFile)+": "))
		return
	}
	changes, err := DiffConfigs(*c.Config, cur)
	if err != nil {
		c.bad(ConfigFile, "", "%v", err)
		return
	}
	// the loop writes every key: keys the committed config has and config.yaml lacks are a file cut
	// short (or lines lost), not an edit (an absent key would silently take its default)
	if data, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err == nil {
		have := yamlKeys(data)
		var lost []string
		for _, k := range sortedKeys(yamlKeys([]byte(c.State.Config.YAML))) {
			if !have[k] {
				lost = append(lost, k)
			}
		}
		if len(lost) > 0 {
			c.bad(ConfigFile, lost[0], "absent (%d keys of the config state.json records are: cut short? runs check --repair restores it)", len(lost))
			return
		}
	}
	for _, ch := range changes {
		if isFixed(ch.Key) {
			c.bad(ConfigFile, ch.Key, "%s, state.json records %s: a fixed key (it would mix incompatible games or checkpoints; runs check --repair restores it)", ch.New, ch.Old)
		} else {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: %s changed %s → %s: resume applies it and records it in %s", ConfigFile, ch.Key, ch.Old, ch.New, ConfigHistoryFile))
		}
	}
}

// RepairRun fixes what can be fixed with certainty, saying what it did: config.yaml that does not
// read, or changes a fixed key, is restored from state.json's committed config (format 2); lines
// after the committed prefix of metrics.jsonl and results.jsonl (the generation in flight: resume
// drops them) are dropped; temporary files of a killed write are removed. Everything else (a
// checkpoint, shard or committed line that disagrees with state.json) has no certain fix and is
// left for the user. It returns the actions taken.
func RepairRun(dir string) ([]string, error) {
	c := VerifyRun(dir)
	st := c.State
	if st == nil {
		return nil, c.Err()
	}
	var done []string
	if st.Format >= 2 && c.Config != nil {
		restore := false
		for _, p := range c.Problems {
			if p.File == ConfigFile {
				restore = true
			}
		}
		if restore {
			if err := atomicfile.WriteFile(filepath.Join(dir, ConfigFile), []byte(st.Config.YAML)); err != nil {
				return done, err
			}
			done = append(done, fmt.Sprintf("%s restored from state.json's committed config (sha256 %s)", ConfigFile, short(st.Config.SHA256)))
		}
		for _, f := range []struct {
			name string
			rec  *LogRecord
		}{{MetricsFile, st.Metrics}, {ResultsFileName, st.Results}} {
			path := filepath.Join(dir, f.name)
			if _, err := regularFile(path); err != nil {
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return done, err
			}
			if int64(len(data)) > f.rec.Bytes && sha(data[:f.rec.Bytes]) == f.rec.SHA256 {
				if err := atomicfile.WriteFile(path, data[:f.rec.Bytes]); err != nil {
					return done, err
				}
				done = append(done, fmt.Sprintf("%s: dropped %d bytes written after the last commit", f.name, int64(len(data))-f.rec.Bytes))
			}
		}
	}
	var removed []string
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	before := tempFiles(dir)
	if err := cleanTemps(dir, log); err != nil {
		return done, err
	}
	for _, f := range before {
		if _, err := os.Lstat(f); errors.Is(err, os.ErrNotExist) {
			removed = append(removed, f)
		}
	}
	if len(removed) > 0 {
		done = append(done, fmt.Sprintf("removed %d temporary file(s) of a killed write: %s", len(removed), strings.Join(removed, ", ")))
	}
	return done, nil
}

func tempFiles(dir string) []string {
	var out []string
	for _, d := range []string{dir, filepath.Join(dir, ckptDir), filepath.Join(dir, usesDir), filepath.Join(dir, plotsDir)} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if atomicfile.IsTemp(e.Name()) && !datasets.IsTempShard(e.Name()) {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out
}

// yamlKeys is the set of dotted leaf keys of a YAML mapping (nil for text that does not parse or
// holds no document).
func yamlKeys(data []byte) map[string]bool {
	leaves, err := yamlLeaves(data)
	if err != nil || len(leaves) == 0 {
		return nil
	}
	out := make(map[string]bool, len(leaves))
	for k := range leaves {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
