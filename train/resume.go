package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// What a resumed run restores, beyond its checkpoints (which hold the optimiser's state and step)
// and its games (the shards):
//
//   - the self-play games of the generation in flight that were recorded before the kill: game i of
//     generation g (numbered over the run, (g-1)·selfplay.games + k) has seed selfplay.GameSeed(seed,
//     i) and that seed is its record's ID, so the games on disk say which numbers are done, and only
//     the others are played;
//   - the replay window's draw counts (max_reuse), saved at every generation's commit in
//     window/uses-NNNN.json and named by state.json;
//   - the random streams, which are all derived from the run seed and a number (game, generation),
//     never carried from one phase to the next.
//
// A generation commits when state.json is rewritten (after its metrics line); whatever a killed run
// wrote for the generation in flight after that is either kept (finished games) or dropped and redone
// (metrics and results lines, the candidate checkpoint, training steps).

// StateFormat is State.Format: the version of state.json this build writes (and the newest it
// reads). Format 2 adds the run manifest (see manifest.go); format 1 and earlier resume and are
// upgraded at their next commit.
const StateFormat = 2

const usesDir = "window"

func usesPath(g int) string { return filepath.Join(usesDir, fmt.Sprintf("uses-%04d.json", g)) }

// usesFile is the content of window/uses-NNNN.json.
type usesFile struct {
	Format     int                 `json:"format"` // 1
	Generation int                 `json:"generation"`
	Games      []datasets.GameUses `json:"games"`
}

// saveUses writes the window's draw counts after generation g and returns the file's path relative to
// the run directory.
func saveUses(dir string, g int, w *datasets.Window) (string, error) {
	b, err := json.Marshal(usesFile{Format: 1, Generation: g, Games: w.Uses()})
	if err != nil {
		return "", err
	}
	rel := usesPath(g)
	if err := os.MkdirAll(filepath.Join(dir, usesDir), 0o755); err != nil {
		return "", err
	}
	return rel, atomicfile.WriteFile(filepath.Join(dir, rel), b)
}

// loadUses restores draw counts saved by saveUses into w.
func loadUses(dir, rel string, w *datasets.Window, log *slog.Logger) error {
	path := filepath.Join(dir, rel)
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("resume: replay window draw counts: %w", err)
	}
	var u usesFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		return fmt.Errorf("resume: %s: %v", path, err)
	}
	if u.Format != 1 {
		return fmt.Errorf("resume: %s: format %d, this build reads 1", path, u.Format)
	}
	found, err := w.SetUses(u.Games)
	if err != nil {
		return fmt.Errorf("resume: %s: %w", path, err)
	}
	log.Info("replay window draw counts restored", "file", rel, "games", found, "saved", len(u.Games))
	return nil
}

// pruneUses removes the draw-count files of generations before keep.
func pruneUses(dir string, keep int) {
	files, _ := filepath.Glob(filepath.Join(dir, usesDir, "uses-*.json"))
	for _, f := range files {
		var g int
		if n, _ := fmt.Sscanf(filepath.Base(f), "uses-%04d.json", &g); n == 1 && g < keep {
			os.Remove(f)
		}
	}
}

// recorded is what the shards hold of one generation's self-play.
type recorded struct {
	done  map[int]bool // game numbers recorded
	stats SelfPlayStats
}

// recordedGames scans the shards for the games of generation g (generator GenName(g)), numbered
// first .. first+n-1, and returns which numbers are recorded, with their counts. A game recorded
// twice (by a build before exact resume) counts once; a game of g with an unknown seed is an error
// (the shards do not belong to this run's seed and numbering).
func recordedGames(gdir string, g int, seed uint64, first, n int, log *slog.Logger) (recorded, error) {
	index := make(map[uint64]int, n)
	for i := first; i < first+n; i++ {
		index[selfplay.GameSeed(seed, i)] = i
	}
	rec := recorded{done: map[int]bool{}}
	gen, dups := GenName(g), 0
	err := datasets.ScanDir(gdir, func(shard string, k int, r *datasets.Record) error {
		if r.Generator != gen {
			return nil
		}
		i, ok := index[r.ID]
		if !ok {
			return fmt.Errorf("resume: %s record %d: game id %d of %s is none of the seeds of its %d games (another seed or selfplay.games?)", shard, k+1, r.ID, gen, n)
		}
		if rec.done[i] {
			dups++
			return nil
		}
		rec.done[i] = true
		s := &rec.stats
		s.Games++
		s.Recovered++
		s.Positions += len(r.Actions)
		s.Targets += r.TrainingTargets()
		s.Results[r.Outcome]++
		return nil
	})
	if dups > 0 {
		log.Warn("games recorded twice in the shards (counted once)", "generation", g, "duplicates", dups)
	}
	return rec, err
}

// missing lists the numbers first .. first+n-1 not in done.
func missing(done map[int]bool, first, n int) []int {
	out := []int{}
	for i := first; i < first+n; i++ {
		if !done[i] {
			out = append(out, i)
		}
	}
	return out
}

// cleanTemps removes the temporary files a killed run left in the run directory and its checkpoint
// and window directories (a file being written atomically when the process died; the file it was to
// replace is intact). Temporary shards are not removed here: the shard writer recovers their games.
func cleanTemps(dir string, log *slog.Logger) error {
	for _, d := range []string{dir, filepath.Join(dir, ckptDir), filepath.Join(dir, usesDir), filepath.Join(dir, plotsDir)} {
		ents, err := os.ReadDir(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range ents {
			// every temporary name any build wrote (atomicfile.IsTemp), except shards: a temporary
			// shard's games are the shard writer's to recover
			if e.Type().IsRegular() && atomicfile.IsTemp(e.Name()) && !datasets.IsTempShard(e.Name()) {
				p := filepath.Join(d, e.Name())
				if err := os.Remove(p); err != nil {
					return err
				}
				log.Info("removed a temporary file left by a killed run", "file", p)
			}
		}
	}
	return nil
}

// fixedKeys are the config keys (dotted YAML paths; a trailing dot covers a whole section) that a
// resumed run must keep: changing them would mix incompatible data (another variant's games,
// another architecture's checkpoints) or renumber the games (the seed and games per generation
// name every game's seed).
var fixedKeys = []string{"variant", "seed", "net.", "selfplay.games"}

func isFixed(key string) bool {
	for _, f := range fixedKeys {
		if key == f || (strings.HasSuffix(f, ".") && strings.HasPrefix(key, f)) {
			return true
		}
	}
	return false
}

// ConfigChange is one key whose value differs between two configs.
type ConfigChange struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

// DiffConfigs lists the keys (dotted YAML paths) whose values differ, sorted.
func DiffConfigs(old, new Config) ([]ConfigChange, error) {
	a, err := flatConfig(old)
	if err != nil {
		return nil, err
	}
	b, err := flatConfig(new)
	if err != nil {
		return nil, err
	}
	var out []ConfigChange
	for k, v := range a {
		if b[k] != v {
			out = append(out, ConfigChange{Key: k, Old: v, New: b[k]})
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, ConfigChange{Key: k, New: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// flatConfig maps every leaf of the config's YAML to its value's YAML text (lists as flow text).
func flatConfig(c Config) (map[string]string, error) {
	y, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	return yamlLeaves(y)
}

// yamlLeaves maps every leaf of a YAML mapping, by its dotted key (selfplay.games), to its value's
// YAML text (lists and mappings' leaves as flow text); an empty map for an empty document.
func yamlLeaves(data []byte) (map[string]string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], prefix+n.Content[i].Value+".")
			}
			return
		}
		n.Style = yaml.FlowStyle
		b, _ := yaml.Marshal(n)
		out[strings.TrimSuffix(prefix, ".")] = strings.TrimSpace(string(b))
	}
	if len(root.Content) == 1 {
		walk(root.Content[0], "")
	}
	return out, nil
}

// ConfigHistoryFile records, one JSON line each, the config changes a resumed run accepted.
const ConfigHistoryFile = "config-history.jsonl"

// configHistoryEntry is one line of config-history.jsonl.
type configHistoryEntry struct {
	Time       string         `json:"time"`
	Generation int            `json:"generation"` // generations completed when the change was made
	Changes    []ConfigChange `json:"changes"`
}

// checkResumeConfig compares the config a run is resumed with (config.yaml, edited or not, or
// --config, with --set applied) against the one the run committed (saved: state.json's, or for a
// state.json before format 2 config.yaml's): a change to a fixed key is an error naming the key; the
// other changes are returned (recordConfigChanges logs them and appends them to
// config-history.jsonl).
func checkResumeConfig(o Options, saved *Config) ([]ConfigChange, error) {
	changes, err := DiffConfigs(*saved, o.Config)
	if err != nil {
		return nil, err
	}
	var fixed []string
	for _, c := range changes {
		if isFixed(c.Key) {
			fixed = append(fixed, fmt.Sprintf("%s (%s → %s)", c.Key, c.Old, c.New))
		}
	}
	if len(fixed) > 0 {
		return nil, fmt.Errorf("resume: the run in %s cannot change %s: it would mix incompatible games or checkpoints (state.json records the first value; an edit of config.yaml is held to the same rule as --set; start a new run instead)",
			o.Dir, strings.Join(fixed, ", "))
	}
	return changes, nil
}

// recordConfigChanges logs the accepted config changes and appends them to config-history.jsonl.
func recordConfigChanges(o Options, st *State, changes []ConfigChange) error {
	if len(changes) == 0 {
		return nil
	}
	for _, c := range changes {
		o.Log.Info("resume: config changed", "key", c.Key, "old", c.Old, "new", c.New)
	}
	return appendJSONLine(filepath.Join(o.Dir, ConfigHistoryFile), configHistoryEntry{
		Time: time.Now().UTC().Format(time.RFC3339), Generation: st.Generation, Changes: changes,
	})
}

// faultHook, when set (by the kill-and-resume test's child process), is called at the points where a
// run can be killed with something half done: after each self-play game recorded, each training
// step, each evaluation game, before and after a checkpoint or the state is written.
var faultHook func(point string)

func fault(point string) {
	if faultHook != nil {
		faultHook(point)
	}
}
