package train

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The corruption test. A finished 2-generation run is built once; each variant copies it, damages
// one file of it (a deletion, a truncation, a flipped byte, one valid file substituted by another of
// this run or of another run, a duplicate, an edit of one state.json field or of config.yaml) and
// then checks it with VerifyRun (what yinsh runs check does). A variant VerifyRun refuses must name
// a file of the run, and resuming it (Train) must be refused too, with nothing in the directory
// changed. A variant VerifyRun accepts must be harmless: resumed for a third generation, the run
// must end structurally equal to the untouched run resumed the same way (the same game ids once
// each, equal counters, one metrics line per generation, the same results), or, for a config.yaml
// change to a key that is not fixed, the change must be recorded in config-history.jsonl.

// variantOutcome is what the run check and resume made of one variant (checkVariant).
type variantOutcome int

const (
	variantFailed variantOutcome = iota // a check failed (reported on the subtest)
	variantRefused
	variantHarmless
	variantApplied
)

type variant struct {
	class, name string
	mutate      func(t *testing.T, dir string)
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// snapshot maps every file of dir to its size, mode and modification time: any write to a file
// (in place, or a new file renamed over it) changes its modification time, so two equal snapshots
// mean nothing was written. Cheaper than hashing every file around each of TestCorruption's
// refused resumes.
func snapshot(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				out[p] = fmt.Sprint(fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
			}
		}
		return nil
	})
	return out
}

func runFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustWrite(t *testing.T, p string, b []byte) {
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editState rewrites state.json after fn edits its decoded JSON object (the checksum is kept, so a
// tool that edits one field is what the test plays).
func editState(fn func(m map[string]any)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, StateFile)
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(mustRead(t, p)))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, _ := json.MarshalIndent(m, "", "  ")
		mustWrite(t, p, b)
	}
}

// editStateResealed edits a field and recomputes the checksum, as a careful forger would: the
// cross-checks must still catch it.
func editStateResealed(fn func(st *State)) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, StateFile)
		var st State
		if err := json.Unmarshal(mustRead(t, p), &st); err != nil {
			t.Fatal(err)
		}
		fn(&st)
		st.Checksum = stateChecksum(&st)
		b, _ := json.MarshalIndent(&st, "", "  ")
		mustWrite(t, p, b)
	}
}

func TestCorruption(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and resumes runs; skipped in -short")
	}
	root := t.TempDir()
	build := func(name string, cfg Config, seed uint64) string {
		dir := filepath.Join(root, name)
		cfg.Seed = seed
		if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Log: slog.New(slog.DiscardHandler)}); err != nil {
			t.Error(err) // not Fatal: build runs in its own goroutine
		}
		return dir
	}
	var base, other string
	var wg sync.WaitGroup
	cfg1, cfg2 := resumeTestConfig(t, 2), resumeTestConfig(t, 2)
	wg.Go(func() { base = build("base", cfg1, 1) })
	wg.Go(func() { other = build("other", cfg2, 2) })
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	resume := func(dir string) error {
		cfg, err := LoadConfig(filepath.Join(dir, ConfigFile), []string{"generations=3"})
		if err != nil {
			return err
		}
		return Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Resume: true, Log: slog.New(slog.DiscardHandler)})
	}
	ref := filepath.Join(root, "ref")
	copyTree(t, base, ref)
	if err := resume(ref); err != nil {
		t.Fatal(err)
	}
	want := summarise(t, ref)

	files := runFiles(t, base)
	var vs []variant
	add := func(class, name string, fn func(t *testing.T, dir string)) {
		vs = append(vs, variant{class, name, fn})
	}
	of := func(prefix string) []string {
		var out []string
		for _, f := range files {
			if strings.HasPrefix(f, prefix) {
				out = append(out, f)
			}
		}
		return out
	}
	for _, f := range files {
		if strings.HasPrefix(f, plotsDir+"/") && f != "plots/losses.png" && f != "plots/rating.png" {
			continue // the plots are written, never read: two of them stand for all
		}
		f := f
		add("deletion", f, func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, f)) })
		add("truncation", f+" to 0 bytes", func(t *testing.T, dir string) { mustWrite(t, filepath.Join(dir, f), nil) })
		add("truncation", f+" to half", func(t *testing.T, dir string) {
			b := mustRead(t, filepath.Join(dir, f))
			mustWrite(t, filepath.Join(dir, f), b[:len(b)/2])
		})
		add("truncation", f+" less its last byte", func(t *testing.T, dir string) {
			b := mustRead(t, filepath.Join(dir, f))
			mustWrite(t, filepath.Join(dir, f), b[:len(b)-1])
		})
		if f == ConfigFile {
			continue // config.yaml edits are their own class below
		}
		for _, frac := range []float64{0.3, 0.7} {
			frac := frac
			add("byte flip", fmt.Sprintf("%s at %.0f%%", f, frac*100), func(t *testing.T, dir string) {
				b := mustRead(t, filepath.Join(dir, f))
				b[int(float64(len(b))*frac)] ^= 0x01
				mustWrite(t, filepath.Join(dir, f), b)
			})
		}
	}
	// substitutions: one valid file by another of the run, or by the same file of another run
	ckpts, shards := of("checkpoints/"), of("games/")
	for _, a := range ckpts {
		for _, b := range ckpts {
			if a != b {
				a, b := a, b
				add("substitution", a+" by "+b, func(t *testing.T, dir string) {
					mustWrite(t, filepath.Join(dir, a), mustRead(t, filepath.Join(dir, b)))
				})
			}
		}
	}
	for i, a := range shards {
		for _, b := range []string{shards[(i+1)%len(shards)], shards[(i+3)%len(shards)]} {
			a, b := a, b
			add("substitution", a+" by "+b, func(t *testing.T, dir string) {
				mustWrite(t, filepath.Join(dir, a), mustRead(t, filepath.Join(dir, b)))
			})
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f, plotsDir+"/") && f != "plots/losses.png" {
			continue
		}
		if _, err := os.Stat(filepath.Join(other, f)); err == nil {
			f := f
			add("substitution", f+" by another run's", func(t *testing.T, dir string) {
				mustWrite(t, filepath.Join(dir, f), mustRead(t, filepath.Join(other, f)))
			})
		}
	}
	// duplicates: a shard under a new number, a checkpoint under the next generation's name, lines
	// repeated, a stray results file
	for i, s := range shards {
		s, i := s, i
		add("duplicate", s+" as shard-0001"+fmt.Sprint(i)+"0", func(t *testing.T, dir string) {
			mustWrite(t, filepath.Join(dir, "games", fmt.Sprintf("shard-0001%d0.yz", i)), mustRead(t, filepath.Join(dir, s)))
		})
	}
	for _, c := range ckpts {
		c := c
		add("duplicate", c+" as gen-0003.ckpt (the next candidate's name)", func(t *testing.T, dir string) {
			mustWrite(t, filepath.Join(dir, ckptPath(3)), mustRead(t, filepath.Join(dir, c)))
		})
	}
	for _, f := range []string{MetricsFile, ResultsFileName} {
		lines := strings.SplitAfter(string(mustRead(t, filepath.Join(base, f))), "\n")
		for i := range lines {
			if lines[i] == "" {
				continue
			}
			f, i := f, i
			add("duplicate", fmt.Sprintf("%s line %d repeated in place", f, i+1), func(t *testing.T, dir string) {
				ls := strings.SplitAfter(string(mustRead(t, filepath.Join(dir, f))), "\n")
				ls = append(ls[:i+1], ls[i:]...)
				mustWrite(t, filepath.Join(dir, f), []byte(strings.Join(ls, "")))
			})
			add("duplicate", fmt.Sprintf("%s line %d appended at the end (after the commit)", f, i+1), func(t *testing.T, dir string) {
				ls := strings.SplitAfter(string(mustRead(t, filepath.Join(dir, f))), "\n")
				mustWrite(t, filepath.Join(dir, f), []byte(strings.Join(ls, "")+ls[i]))
			})
			add("deletion", fmt.Sprintf("%s line %d", f, i+1), func(t *testing.T, dir string) {
				ls := strings.SplitAfter(string(mustRead(t, filepath.Join(dir, f))), "\n")
				mustWrite(t, filepath.Join(dir, f), []byte(strings.Join(append(ls[:i:i], ls[i+1:]...), "")))
			})
		}
		f := f
		add("truncation", f+" with a cut line appended (a kill after the commit)", func(t *testing.T, dir string) {
			b := mustRead(t, filepath.Join(dir, f))
			mustWrite(t, filepath.Join(dir, f), append(b, []byte(`{"generation":3,"sel`)...))
		})
	}
	add("duplicate", "results.jsonl copied as results-arena.jsonl with a bad line", func(t *testing.T, dir string) {
		mustWrite(t, filepath.Join(dir, "results-arena.jsonl"), append(mustRead(t, filepath.Join(dir, ResultsFileName)), []byte("{\"a\":1}\n")...))
	})
	add("addition", "a temporary state.json of a killed write", func(t *testing.T, dir string) {
		mustWrite(t, filepath.Join(dir, ".state.json.tmp-77"), []byte(`{"format":2,`))
	})
	add("addition", "an unrelated file", func(t *testing.T, dir string) {
		mustWrite(t, filepath.Join(dir, "notes.txt"), []byte("my run\n"))
	})
	// state.json: the whole file, then each field
	for name, text := range map[string]string{
		"{}": "{}", "empty": "", "null": "null", "[]": "[]", "only format": `{"format":2}`,
		"an unknown field": strings.Replace(string(mustRead(t, filepath.Join(base, StateFile))), "{", `{"extra":1,`, 1),
	} {
		text := text
		add("state.json edit", "state.json "+name, func(t *testing.T, dir string) { mustWrite(t, filepath.Join(dir, StateFile), []byte(text)) })
	}
	add("state.json edit", "state.json reformatted (same fields)", func(t *testing.T, dir string) {
		var buf bytes.Buffer
		json.Compact(&buf, mustRead(t, filepath.Join(dir, StateFile)))
		mustWrite(t, filepath.Join(dir, StateFile), buf.Bytes())
	})
	set := func(key string, v any) func(m map[string]any) {
		return func(m map[string]any) { m[key] = v }
	}
	for _, e := range []struct {
		name string
		fn   func(m map[string]any)
	}{
		{"generation 2→9", set("generation", 9)}, {"generation 2→1", set("generation", 1)}, {"generation 2→0", set("generation", 0)},
		{"generation 2→-1", set("generation", -1)}, {"generation a string", set("generation", "2")},
		{"format 2→1", set("format", 1)}, {"format 2→3", set("format", 3)}, {"format 2→0", set("format", 0)},
		{"best gen-0002→gen-0001", set("best", "checkpoints/gen-0001.ckpt")}, {"best outside the run", set("best", "../../../etc/passwd")},
		{"best absolute", set("best", "/etc/passwd")}, {"best gen-0003", set("best", "checkpoints/gen-0003.ckpt")},
		{"current gen-0001", set("current", "checkpoints/gen-0001.ckpt")}, {"current outside", set("current", "../x/checkpoints/gen-0002.ckpt")},
		{"step 6→30", set("step", 30)}, {"step 6→0", set("step", 0)}, {"games 8→24", set("games", 24)}, {"games 8→7", set("games", 7)},
		{"samples_trained 48→96", set("samples_trained", 96)}, {"samples_trained -1", set("samples_trained", -1)},
		{"window_uses another file", set("window_uses", "window/uses-0001.json")}, {"window_uses outside", set("window_uses", "../../uses.json")},
		{"window_uses removed", func(m map[string]any) { delete(m, "window_uses") }},
		{"window_uses_sha256", set("window_uses_sha256", strings.Repeat("0", 64))},
		{"checksum", set("checksum", strings.Repeat("0", 64))}, {"checksum removed", func(m map[string]any) { delete(m, "checksum") }},
		{"config removed", func(m map[string]any) { delete(m, "config") }},
		{"config.yaml text seed", func(m map[string]any) {
			c := m["config"].(map[string]any)
			c["yaml"] = strings.Replace(c["yaml"].(string), "seed: 1", "seed: 5", 1)
		}},
		{"config.sha256", func(m map[string]any) { m["config"].(map[string]any)["sha256"] = strings.Repeat("a", 64) }},
		{"metrics.lines", func(m map[string]any) { m["metrics"].(map[string]any)["lines"] = 5 }},
		{"metrics.bytes", func(m map[string]any) { m["metrics"].(map[string]any)["bytes"] = 10 }},
		{"metrics.sha256", func(m map[string]any) { m["metrics"].(map[string]any)["sha256"] = strings.Repeat("b", 64) }},
		{"results.bytes", func(m map[string]any) { m["results"].(map[string]any)["bytes"] = 1 }},
		{"results.sha256", func(m map[string]any) { m["results"].(map[string]any)["sha256"] = strings.Repeat("c", 64) }},
		{"results removed", func(m map[string]any) { delete(m, "results") }},
		{"checkpoints emptied", set("checkpoints", []any{})}, {"shards emptied", set("shards", []any{})},
		{"shards one dropped", func(m map[string]any) { m["shards"] = m["shards"].([]any)[1:] }},
		{"checkpoints one dropped", func(m map[string]any) { m["checkpoints"] = m["checkpoints"].([]any)[1:] }},
	} {
		add("state.json edit", "state.json "+e.name, editState(e.fn))
	}
	for i := 0; i < 3; i++ {
		i := i
		for _, fld := range []struct {
			name string
			v    any
		}{{"sha256", strings.Repeat("d", 64)}, {"run_id", "other"}, {"generation", 7}, {"step", 99}, {"path", "checkpoints/../../x.ckpt"}} {
			fld := fld
			add("state.json edit", fmt.Sprintf("state.json checkpoints[%d].%s", i, fld.name), editState(func(m map[string]any) {
				m["checkpoints"].([]any)[i].(map[string]any)[fld.name] = fld.v
			}))
		}
	}
	for _, i := range []int{0, 5} {
		i := i
		for _, fld := range []struct {
			name string
			v    any
		}{{"sha256", strings.Repeat("e", 64)}, {"records", 3}, {"min_id", 1}, {"path", "games/shard-000099.yz"}} {
			fld := fld
			add("state.json edit", fmt.Sprintf("state.json shards[%d].%s", i, fld.name), editState(func(m map[string]any) {
				m["shards"].([]any)[i].(map[string]any)[fld.name] = fld.v
			}))
		}
	}
	// resealed edits: the checksum recomputed, the cross-checks must catch them
	for _, e := range []struct {
		name string
		fn   func(st *State)
	}{
		{"games 8→24", func(st *State) { st.Games = 24 }}, {"step 6→30", func(st *State) { st.Step = 30 }},
		{"generation 2→9", func(st *State) { st.Generation = 9 }}, {"best gen-0000", func(st *State) { st.Best = ckptPath(0) }},
		{"metrics.lines 2→1", func(st *State) { st.Metrics.Lines = 1 }},
		{"a shard dropped from the manifest", func(st *State) { st.Shards = st.Shards[1:] }},
		{"a checkpoint dropped from the manifest", func(st *State) { st.Checkpoints = st.Checkpoints[1:] }},
	} {
		add("state.json edit (checksum recomputed)", "state.json "+e.name, editStateResealed(e.fn))
	}
	// config.yaml edits
	for _, e := range []struct{ from, to string }{
		{"seed: 1", "seed: 2"}, {"variant: blitz", "variant: standard"}, {"    games: 4\n    parallel", "    games: 6\n    parallel"},
		{"channels: 4", "channels: 8"}, {"preset: tiny", "preset: small"},
		{"simulations: 4", "simulations: 5"}, {"    parallel: 4", "    parallel: 2"}, {"lr: 0.001", "lr: 0.002"},
		{"seed: 1", "sed: 1"}, {"seed: 1", "seed: [1"}, {"variant: blitz", "variant: blits"},
	} {
		e := e
		add("config.yaml edit", fmt.Sprintf("config.yaml %q → %q", e.from, e.to), func(t *testing.T, dir string) {
			p := filepath.Join(dir, ConfigFile)
			b := mustRead(t, p)
			if !bytes.Contains(b, []byte(e.from)) {
				t.Fatalf("config.yaml has no %q", e.from)
			}
			mustWrite(t, p, bytes.Replace(b, []byte(e.from), []byte(e.to), 1))
		})
	}

	prepared := filepath.Join(root, "prepared")
	copyTree(t, base, prepared)
	if cfg, err := LoadConfig(filepath.Join(prepared, ConfigFile), []string{"generations=3"}); err != nil {
		t.Fatal(err)
	} else if _, err := openRun(Options{Dir: prepared, Config: cfg, Resume: true, Out: io.Discard, Log: slog.New(slog.DiscardHandler)}); err != nil {
		t.Fatal(err)
	}
	wantInputs := trainInputs(t, prepared)
	// Each variant is checked in a parallel subtest of its own (its own copy of the run); the
	// outcomes are tallied afterwards in variant order, and the first accepted variant of each
	// class (in that order, so the choice does not depend on scheduling) is resumed to the end.
	outcomes := make([]variantOutcome, len(vs))
	dirs := make([]string, len(vs))
	t.Run("variants", func(t *testing.T) {
		for i, v := range vs {
			i, v := i, v
			dir := filepath.Join(root, fmt.Sprintf("v%03d", i))
			dirs[i] = dir
			t.Run(fmt.Sprintf("%03d", i), func(t *testing.T) {
				t.Parallel()
				outcomes[i] = checkVariant(t, v, dir, base, wantInputs, resume)
			})
		}
	})
	type tally struct{ refused, harmless, applied int }
	table := map[string]*tally{}
	var classes []string
	sampled := map[string]bool{}
	resumed := 0
	for i, v := range vs {
		if table[v.class] == nil {
			table[v.class] = &tally{}
			classes = append(classes, v.class)
		}
		switch outcomes[i] {
		case variantRefused:
			table[v.class].refused++
		case variantApplied:
			table[v.class].applied++
		case variantHarmless:
			table[v.class].harmless++
			if !sampled[v.class] {
				sampled[v.class] = true
				resumed++
				label := v.class + ": " + v.name
				if err := resume(dirs[i]); err != nil {
					t.Errorf("%s: runs check accepts it, resume fails: %v", label, err)
					break
				}
				got := summarise(t, dirs[i])
				if fmt.Sprint(got.State, got.Games, got.Metrics, got.Results, got.UsesSum) != fmt.Sprint(want.State, want.Games, want.Metrics, want.Results, want.UsesSum) {
					t.Errorf("%s: accepted but the resumed run differs from the untouched one:\n got %+v\nwant %+v", label, got, want)
				}
			}
		}
		os.RemoveAll(dirs[i])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d variants of a finished 2-generation run (%d files); accepted ones have the untouched run's training inputs after resume's preparation, and %d of them (one per class) were resumed to the end and compared:\n", len(vs), len(files), resumed)
	fmt.Fprintf(&b, "| variant class | variants | refused naming the file | harmless (resumed, equal) | applied and recorded |\n|---|---|---|---|---|\n")
	var tot tally
	for _, c := range classes {
		x := table[c]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", c, x.refused+x.harmless+x.applied, x.refused, x.harmless, x.applied)
		tot.refused, tot.harmless, tot.applied = tot.refused+x.refused, tot.harmless+x.harmless, tot.applied+x.applied
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d |\n", len(vs), tot.refused, tot.harmless, tot.applied)
	t.Log("\n" + b.String())
	if len(vs) < 200 {
		t.Errorf("%d variants, want at least 200", len(vs))
	}
}

// trainInputs is a digest of every file a resumed run reads before it writes it: state.json's
// fields, config.yaml, the committed checkpoints, the shards, the window's draw counts, the metrics
// and every results file (the plots, config-history.jsonl, the next candidate's checkpoint and
// files that are not the run's are not read).
func trainInputs(t *testing.T, dir string) string {
	var b strings.Builder
	var st State
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, StateFile)), &st); err != nil {
		t.Fatal(err)
	}
	sj, _ := json.Marshal(&st)
	fmt.Fprintf(&b, "state %x\n", sha256.Sum256(sj))
	for _, f := range runFiles(t, dir) {
		read := f == ConfigFile || f == MetricsFile || strings.HasPrefix(f, "results") || strings.HasPrefix(f, gamesDir+"/") ||
			strings.HasPrefix(f, usesDir+"/") || (strings.HasPrefix(f, ckptDir+"/") && f != ckptPath(3))
		if read {
			fmt.Fprintf(&b, "%s %x\n", f, sha256.Sum256(mustRead(t, filepath.Join(dir, f))))
		}
	}
	return b.String()
}

// checkVariant applies one variant to a fresh copy of the base run in dir and says what the run
// check and resume made of it: refused (naming a file, and resume refused too without writing), a
// config change applied and recorded, or harmless (resume's preparation leaves the files training
// reads equal to the untouched run's, wantInputs). It reports failures on t and answers
// variantFailed for them.
func checkVariant(t *testing.T, v variant, dir, base, wantInputs string, resume func(string) error) variantOutcome {
	const failed, refused, harmless, applied = variantFailed, variantRefused, variantHarmless, variantApplied
	copyTree(t, base, dir)
	v.mutate(t, dir)
	label := v.class + ": " + v.name
	t.Log(label)
	chk := VerifyRun(dir)
	if len(chk.Problems) > 0 {
		p := chk.Problems[0]
		if p.File == "" || !strings.Contains(chk.Err().Error(), filepath.Join(dir, p.File)) {
			t.Errorf("%s: refused without naming a file: %v", label, chk.Err())
			return failed
		}
		before := snapshot(t, dir)
		err := resume(dir)
		var re *RunError
		if err == nil || (!errors.As(err, &re) && !strings.Contains(err.Error(), ConfigFile) && !strings.Contains(err.Error(), "no "+StateFile)) {
			t.Errorf("%s: runs check refuses (%v) but resume says %v", label, p, err)
			return failed
		}
		if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("%s: resume refused but wrote to the run directory", label)
			return failed
		}
		return refused
	}
	// accepted: what resume does before training (openRun: config changes recorded, the
	// uncommitted tails dropped, temporary files removed), then the files training reads must be
	// the untouched run's, byte for byte (training is deterministic in them)
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile), []string{"generations=3"})
	if err == nil {
		_, err = openRun(Options{Dir: dir, Config: cfg, Resume: true, Out: io.Discard, Log: slog.New(slog.DiscardHandler)})
	}
	if err != nil {
		t.Errorf("%s: runs check accepts it, resume fails: %v", label, err)
		return failed
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigHistoryFile)); err == nil && v.class == "config.yaml edit" {
		return applied // a change to a key that is not fixed: applied and recorded
	}
	if in := trainInputs(t, dir); in != wantInputs {
		t.Errorf("%s: accepted, but the files training reads differ from the untouched run's:\n%s\n%s", label, in, wantInputs)
		return failed
	}
	return harmless
}
