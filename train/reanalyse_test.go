package train

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
)

func TestGenerationOf(t *testing.T) {
	for _, c := range []struct {
		in     string
		g      int
		re, ok bool
	}{
		{"gen-0007", 7, false, true}, {"reanalyse:gen-0012", 12, true, true}, {"gen-12345", 12345, false, true},
		{"expert:rollout:200-vs-rollout:200", 0, false, false}, {"gen-", 0, false, false}, {"gen--1", 0, false, false},
		{"reanalyse:", 0, false, false}, {"", 0, false, false}, {"gen-x1", 0, false, false},
	} {
		g, re, ok := generationOf(c.in)
		if g != c.g || re != c.re || ok != c.ok {
			t.Errorf("generationOf(%q) = %d, %v, %v; want %d, %v, %v", c.in, g, re, ok, c.g, c.re, c.ok)
		}
	}
}

// A run with Reanalyse: from generation 2 on, each generation adds reanalyse.games copies of
// earlier self-play games (same actions and outcome, targets searched again by the best network)
// to the games and the window; the copies are the same in two runs of one seed, and the metrics
// count what was searched.
func TestTrainReanalyse(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	run := func() (string, []*datasets.Record, []Metrics, string) {
		dir := filepath.Join(t.TempDir(), "run")
		cfg := tinyConfig(t, 3)
		cfg.Evaluation.Games, cfg.Evaluation.Gate, cfg.Evaluation.BaselineGames = 0, "none", 0
		cfg.Reanalyse = ReanalyseConfig{Games: 3, Generations: 1}
		var out bytes.Buffer
		if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend, Out: &out}); err != nil {
			t.Fatal(err)
		}
		checkRun(t, dir)
		var recs []*datasets.Record
		if err := datasets.ScanDir(filepath.Join(dir, gamesDir), func(_ string, _ int, r *datasets.Record) error {
			recs = append(recs, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
		if err != nil {
			t.Fatal(err)
		}
		return dir, recs, ms, out.String()
	}
	dir, recs, ms, out := run()
	byID := map[uint64]*datasets.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	copies := map[string]int{}
	for _, r := range recs {
		g, re, ok := generationOf(r.Generator)
		if !ok {
			t.Fatalf("record %d: generator %q", r.ID, r.Generator)
		}
		if !re {
			continue
		}
		copies[r.Generator]++
		// the original: a self-play game of the generation before, whose ID maps to this one
		var orig *datasets.Record
		for _, o := range recs {
			if og, ore, _ := generationOf(o.Generator); !ore && og == g-1 && reanalysedID(o.ID, g) == r.ID {
				orig = o
			}
		}
		if orig == nil {
			t.Fatalf("reanalysed game %d of %s: no original in generation %d", r.ID, r.Generator, g-1)
		}
		if !reflect.DeepEqual(orig.Actions, r.Actions) || orig.Outcome != r.Outcome || orig.TrainingTargets() != r.TrainingTargets() {
			t.Fatalf("reanalysed game %d differs from its original beyond the targets", r.ID)
		}
		if reflect.DeepEqual(orig.Targets, r.Targets) {
			t.Errorf("reanalysed game %d: targets identical to the original's (another network searched them)", r.ID)
		}
	}
	if copies["reanalyse:gen-0002"] != 3 || copies["reanalyse:gen-0003"] != 3 || len(copies) != 2 {
		t.Fatalf("reanalysed games by generator %v, want 3 each for generations 2 and 3", copies)
	}
	if ms[0].Reanalyse != nil {
		t.Errorf("generation 1 reanalysed %+v: nothing before it", ms[0].Reanalyse)
	}
	for _, m := range ms[1:] {
		r := m.Reanalyse
		if r == nil || r.Games != 3 || r.Candidates != 4 || r.Searches == 0 || r.PolicyChange <= 0 || r.PolicyChange > 1 || r.Seconds <= 0 {
			t.Fatalf("generation %d: reanalyse metrics %+v", m.Generation, r)
		}
	}
	if !strings.Contains(out, "; reanalysed 3 games") {
		t.Errorf("summary lines without the reanalyse phase:\n%s", out)
	}
	if err := VerifyRun(dir).Err(); err != nil {
		t.Errorf("runs check: %v", err)
	}

	_, recs2, ms2, _ := run()
	if len(recs2) != len(recs) {
		t.Fatalf("second run: %d records, first %d", len(recs2), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(recs[i], recs2[i]) {
			t.Fatalf("record %d (%s) differs between two runs of one seed", i, recs[i].Generator)
		}
	}
	for i := range ms {
		if ms[i].Train.LossTotal != ms2[i].Train.LossTotal {
			t.Fatalf("generation %d: loss %v vs %v", i+1, ms[i].Train.LossTotal, ms2[i].Train.LossTotal)
		}
	}
}

// The generator of a record comes from a shard on disk: any string parses without a panic, and the
// names the loop writes read back.
func FuzzGenerationOf(f *testing.F) {
	for _, s := range []string{"gen-0001", "reanalyse:gen-0042", "gen-", "reanalyse:", "expert:rollout:200-vs-rollout:200", "gen-99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, re, ok := generationOf(s)
		if !ok {
			return
		}
		if g < 0 {
			t.Fatalf("generationOf(%q) = %d", s, g)
		}
		name := GenName(g)
		if re {
			name = ReanalysePrefix + name
		}
		if g2, re2, ok2 := generationOf(name); !ok2 || g2 != g || re2 != re {
			t.Fatalf("%q → %d %v → %q → %d %v %v", s, g, re, name, g2, re2, ok2)
		}
	})
}
