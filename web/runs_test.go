package web

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

func TestRuns(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Runs: runs})
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs", nil, 200, &list)
	// "evil" links out of the runs directory: not listed
	if len(list.Runs) != 1 || list.Runs[0].Name != "r1" || list.Runs[0].Generations != 2 || list.Runs[0].Shards != 1 ||
		list.Runs[0].Live != 1 || list.Runs[0].SGF != 1 {
		t.Fatalf("runs %+v", list.Runs)
	}
	var m struct {
		Metrics []map[string]any `json:"metrics"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/metrics", nil, 200, &m)
	if len(m.Metrics) != 2 || m.Metrics[1]["generation"].(float64) != 2 {
		t.Fatalf("metrics %+v", m.Metrics)
	}
	var games struct {
		Games  []gameSummary `json:"games"`
		SGF    []string      `json:"sgf"`
		Shards int           `json:"shards"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	if len(games.Games) != 5 || games.Shards != 2 || len(games.SGF) != 1 || games.SGF[0] != "game.sgf" {
		t.Fatalf("games %+v", games)
	}
	live := 0
	for _, g := range games.Games {
		if g.Live {
			live++
		}
	}
	if live != 2 {
		t.Fatalf("%d live games, want the 2 of the shard being written", live)
	}
	for _, g := range games.Games {
		var rec recordAnswer
		callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games/"+g.Shard+"/"+itoa(g.Index), nil, 200, &rec)
		if len(rec.Moves) != g.Length || rec.ID != g.ID || rec.Recorded != g.Result || rec.Result != g.Result || len(rec.Plies) != g.Length+1 {
			t.Fatalf("game %+v: %d moves, id %s, result %s", g, len(rec.Moves), rec.ID, rec.Recorded)
		}
	}
	// a listing after a new shard is written has its games (the listing's cache sees the change)
	w, err := datasets.NewWriter(filepath.Join(runs, "r1", "games"), datasets.WriterOptions{GamesPerShard: 1,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(randomGame(rand.New(rand.NewPCG(4, 4)), 999, env.Blitz)); err != nil {
		t.Fatal(err)
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	found := 0
	for _, g := range games.Games {
		if g.ID == "999" && !g.Live {
			found++
		}
	}
	if len(games.Games) != 6 || found != 1 {
		t.Fatalf("after a new shard: %+v", games.Games)
	}
	var rec recordAnswer
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/sgf/game.sgf", nil, 200, &rec)
	if len(rec.Moves) < 50 || rec.Generator != "sgf:game.sgf" {
		t.Fatalf("sgf game %d moves", len(rec.Moves))
	}
	status, data := call(t, nil, "GET", ts.URL+"/api/runs/r1/games/"+games.Games[0].Shard+"/99", nil)
	wantError(t, status, data, 404, "no game 99")
	status, data = call(t, nil, "GET", ts.URL+"/api/runs/r1/games/"+games.Games[0].Shard+"/x", nil)
	wantError(t, status, data, 400, "index")
}

// TestRunsTraversal tries to read outside --runs: dot-dot names (plain and encoded), absolute
// paths, and symbolic links out of the directory. Every attempt is a 404 that shows nothing of the
// secret files.
func TestRunsTraversal(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Runs: runs})
	for _, p := range []string{
		"/api/runs/../secret/metrics",
		"/api/runs/%2e%2e/metrics",
		"/api/runs/..%2fsecret/metrics",
		"/api/runs/%2e%2e%2fsecret/metrics",
		"/api/runs/r1%2f..%2f..%2fsecret/metrics",
		"/api/runs/%2fetc/metrics",
		"/api/runs/.%2e/games",
		"/api/runs/evil/metrics",
		"/api/runs/evil/games",
		"/api/runs/evil/sgf/x.sgf",
		"/api/runs/evil/events",
		"/api/runs/r1/sgf/..%2f..%2fsecret.sgf",
		"/api/runs/r1/sgf/%2e%2e%2f%2e%2e%2fsecret.sgf",
		"/api/runs/r1/sgf/out.sgf",
		"/api/runs/r1/sgf/metrics.jsonl",
		"/api/runs/r1/sgf/.hidden.sgf",
		"/api/runs/r1/games/..~..~secret~x.sgf/0",
		"/api/runs/r1/games/games~..~..~secret.sgf/0",
		"/api/runs/r1/games/%2e%2e%2f%2e%2e%2fsecret.sgf/0",
		"/api/runs/r1/games/metrics.jsonl/0",
		"/api/runs/r1/games/games~shard-000009.yz/0",
		"/api/runs/r1%00/metrics",
		"/api/runs/" + strings.Repeat("a", 300) + "/metrics",
	} {
		status, data := call(t, nil, "GET", ts.URL+p, nil)
		if strings.Contains(string(data), "TOPSECRET") {
			t.Fatalf("%s leaked the secret: %s", p, data)
		}
		if status == http.StatusMovedPermanently || status == http.StatusTemporaryRedirect {
			continue // the mux cleans a literal /../ by redirecting: the target is checked below
		}
		if status != 404 && status != 400 {
			t.Fatalf("%s: status %d: %s", p, status, data)
		}
	}
	// a link inside the runs directory that points inside it is followed
	if err := os.Symlink(filepath.Join(runs, "r1"), filepath.Join(runs, "alias")); err != nil {
		t.Fatal(err)
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/alias/metrics", nil, 200, nil)
	// a shard linked from outside is refused
	secretShard := filepath.Join(filepath.Dir(runs), "secret", "shard-000009.yz")
	os.WriteFile(secretShard, []byte("TOPSECRET"), 0o644)
	os.Symlink(secretShard, filepath.Join(runs, "r1", "games", "shard-000009.yz"))
	status, data := call(t, nil, "GET", ts.URL+"/api/runs/r1/games/games~shard-000009.yz/0", nil)
	if status != 404 || strings.Contains(string(data), "TOPSECRET") {
		t.Fatalf("linked shard: %d %s", status, data)
	}
}

// TestEvents follows a run: the metrics so far, then each line appended, then a new game.
func TestEvents(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Runs: runs, Poll: 20 * time.Millisecond})
	res, err := http.Get(ts.URL + "/api/runs/r1/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	events := make(chan [2]string, 16)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev string
		for sc.Scan() {
			l := sc.Text()
			if v, ok := strings.CutPrefix(l, "event: "); ok {
				ev = v
			} else if v, ok := strings.CutPrefix(l, "data: "); ok {
				events <- [2]string{ev, v}
			}
		}
		close(events)
	}()
	next := func(want string) map[string]any {
		t.Helper()
		for {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatal("stream ended")
				}
				if e[0] != want {
					continue
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(e[1]), &v); err != nil {
					t.Fatal(err)
				}
				return v
			case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
				t.Fatalf("no %s event", want)
			}
		}
	}
	if m := next("metrics"); len(m["lines"].([]any)) != 2 {
		t.Fatalf("first metrics event %v", m)
	}
	if g := next("games"); g["count"].(float64) != 5 {
		t.Fatalf("games event %v", g)
	}
	f, err := os.OpenFile(filepath.Join(runs, "r1", "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// (that a line being written is not sent until it is complete is TestReadMetricsPartialLine's)
	half := metricsLine(3)
	f.WriteString(half[:20])
	f.WriteString(half[20:])
	f.Close()
	m := next("metrics")
	lines := m["lines"].([]any)
	if len(lines) != 1 || lines[0].(map[string]any)["generation"].(float64) != 3 {
		t.Fatalf("appended metrics event %v", m)
	}
}

// TestRunsSelf: --runs naming one run directory lists that run under its own name.
func TestRunsSelf(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Runs: filepath.Join(runs, "r1")})
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs", nil, 200, &list)
	if len(list.Runs) != 1 || list.Runs[0].Name != "r1" || list.Runs[0].Generations != 2 || list.Runs[0].Shards != 1 {
		t.Fatalf("runs %+v", list.Runs)
	}
	var games struct {
		Games []gameSummary `json:"games"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	if len(games.Games) != 5 {
		t.Fatalf("%d games", len(games.Games))
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games/"+games.Games[0].Shard+"/0", nil, 200, nil)
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/sgf/game.sgf", nil, 200, nil)
	for _, p := range []string{"/api/runs/r1/sgf/..%2fsecret.sgf", "/api/runs/..%2fr1/metrics", "/api/runs/r1/sgf/out.sgf"} {
		status, data := call(t, nil, "GET", ts.URL+p, nil)
		if status != 404 || strings.Contains(string(data), "TOPSECRET") {
			t.Fatalf("%s: %d %s", p, status, data)
		}
	}
}

// TestRunsShardNames: only the names the shard readers read are listed as shards (datasets'
// ParseShardName and IsTempShard), and a temporary shard's dot-name is readable only when it lies
// inside the runs directory.
func TestRunsShardNames(t *testing.T) {
	runs, secret := makeRuns(t)
	games := filepath.Join(runs, "r1", "games")
	for _, n := range []string{"shard-7.yz", "shard-000005.yz.bak", "shard-0000005.yz", ".hidden.yz"} {
		if err := os.WriteFile(filepath.Join(games, n), []byte("garbage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(secret, ".shard-000008.yz.tmp-1")
	if err := os.WriteFile(outside, []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(games, ".shard-000008.yz.tmp-1")); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{Runs: runs})
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs", nil, 200, &list)
	if len(list.Runs) != 1 || list.Runs[0].Shards != 1 || list.Runs[0].Live != 1 {
		t.Fatalf("runs %+v", list.Runs)
	}
	for _, n := range []string{"shard-7.yz", "shard-0000005.yz", ".hidden.yz", ".shard-000008.yz.tmp-1"} {
		status, data := call(t, nil, "GET", ts.URL+"/api/runs/r1/games/games~"+n+"/0", nil)
		if status != 404 || strings.Contains(string(data), "TOPSECRET") {
			t.Fatalf("%s: %d %s", n, status, data)
		}
	}
}

// TestRunsCacheConcurrentListers: a listing that runs while another is in progress (here: one
// complete listing between the other's reading and its pruning, the interleaving that made them
// reset each other's cache) leaves the cache whole, so that a later listing of unchanged shards
// reads none of them.
func TestRunsCacheConcurrentListers(t *testing.T) {
	runs, _ := makeRuns(t)
	s, _ := newTestServer(t, Options{Runs: runs})
	dir, err := s.runs.resolve("r1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listHook = nil })
	games, shards := s.runGames(context.Background(), dir)
	if len(games) != 5 || shards != 2 {
		t.Fatalf("%d games in %d shards", len(games), shards)
	}
	nested := false
	listHook = func() {
		if !nested {
			nested = true
			s.runGames(context.Background(), dir) // another lister, complete, in the middle of this one
		}
	}
	before := s.runs.cache.readCount()
	if games, _ := s.runGames(context.Background(), dir); len(games) != 5 {
		t.Fatalf("%d games", len(games))
	}
	listHook = nil
	if games, _ := s.runGames(context.Background(), dir); len(games) != 5 {
		t.Fatalf("%d games", len(games))
	}
	if n := s.runs.cache.readCount() - before; n != 0 {
		t.Fatalf("%d shards read again though none changed: the listers reset each other's cache", n)
	}
}

// TestRunsCachePrune: the entry of a temporary shard is dropped once the shard is finalised (its
// file renamed), by any listing.
func TestRunsCachePrune(t *testing.T) {
	runs, _, w := makeRunsWriter(t)
	s, _ := newTestServer(t, Options{Runs: runs})
	dir, err := s.runs.resolve("r1")
	if err != nil {
		t.Fatal(err)
	}
	s.runGames(context.Background(), dir)
	entries := func() (n int, temps int) {
		s.runs.cache.mu.Lock()
		defer s.runs.cache.mu.Unlock()
		for p := range s.runs.cache.entries {
			n++
			if datasets.IsTempShard(filepath.Base(p)) {
				temps++
			}
		}
		return n, temps
	}
	if n, temps := entries(); n != 2 || temps != 1 {
		t.Fatalf("%d entries, %d of temporary shards; want 2, 1", n, temps)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if games, shards := s.runGames(context.Background(), dir); len(games) != 5 || shards != 2 {
		t.Fatalf("%d games in %d shards", len(games), shards)
	}
	if n, temps := entries(); n != 2 || temps != 0 {
		t.Fatalf("%d entries, %d of temporary shards; want 2, 0", n, temps)
	}
}

// TestRunsCacheRace lists a run from several goroutines while games are appended to it (run with
// -race): no listing has a game twice or a game never written (a shard renamed while a listing runs
// may be missing from it: the next has it), and the listing after the writer is done has them all.
func TestRunsCacheRace(t *testing.T) {
	runs, _, w := makeRunsWriter(t)
	s, _ := newTestServer(t, Options{Runs: runs})
	dir, err := s.runs.resolve("r1")
	if err != nil {
		t.Fatal(err)
	}
	const listers, rounds, extra = 4, 20, 6
	done := make(chan error, listers)
	for range listers {
		go func() {
			for range rounds {
				games, _ := s.runGames(context.Background(), dir)
				ids := map[string]bool{}
				for _, g := range games {
					if ids[g.ID] {
						done <- errors.New("game " + g.ID + " listed twice")
						return
					}
					ids[g.ID] = true
				}
				if len(games) > 5+extra {
					done <- errors.New("listing of " + itoa(len(games)) + " games")
					return
				}
			}
			done <- nil
		}()
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range extra {
		if err := w.Append(randomGame(rng, uint64(200+i), env.Blitz)); err != nil {
			t.Fatal(err)
		}
	}
	for range listers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if games, _ := s.runGames(context.Background(), dir); len(games) != 5+extra {
		t.Fatalf("%d games after the writer closed, want %d", len(games), 5+extra)
	}
}

// TestReadMetricsPartialLine: a metrics line being written is left for the next read, which returns
// it once complete; a file rewritten shorter starts again from the first line.
func TestReadMetricsPartialLine(t *testing.T) {
	dir := t.TempDir()
	rd, err := openRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	path := filepath.Join(rd.root, "metrics.jsonl")
	full := metricsLine(1) + metricsLine(2)
	third := metricsLine(3)
	if err := os.WriteFile(path, []byte(full+third[:20]), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, off, reset, err := rd.readMetrics(context.Background(), path, 0)
	if err != nil || len(lines) != 2 || off != int64(len(full)) || reset {
		t.Fatalf("%d lines, offset %d (want %d), reset %v, %v", len(lines), off, len(full), reset, err)
	}
	if lines, off2, _, err := rd.readMetrics(context.Background(), path, off); err != nil || len(lines) != 0 || off2 != off {
		t.Fatalf("the partial line: %d lines, offset %d, %v", len(lines), off2, err)
	}
	if err := os.WriteFile(path, []byte(full+third), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, off2, _, err := rd.readMetrics(context.Background(), path, off)
	if err != nil || len(lines) != 1 || off2 != int64(len(full+third)) {
		t.Fatalf("the completed line: %d lines, offset %d, %v", len(lines), off2, err)
	}
	var m map[string]any
	if err := json.Unmarshal(lines[0], &m); err != nil || m["generation"].(float64) != 3 {
		t.Fatalf("line %s: %v", lines[0], err)
	}
	if err := os.WriteFile(path, []byte(metricsLine(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, _, reset, err := rd.readMetrics(context.Background(), path, off2); err != nil || !reset || len(lines) != 1 {
		t.Fatalf("after a rewrite: %d lines, reset %v, %v", len(lines), reset, err)
	}
}

// TestRunGameTargets: a record's game answers its training targets, one per move: the policy target
// (tokens and probabilities as recorded, empty where the position is no target), the root WDL (null
// where unknown) and the outcome z, each for the side to act, and the run's value_q_mix from its
// config.yaml (absent without one that reads); an SGF file has no targets.
func TestRunGameTargets(t *testing.T) {
	runs, _ := makeRuns(t)
	recs := makeTargetRun(t, runs, "0.25")
	_, ts := newTestServer(t, Options{Runs: runs})
	var games struct {
		Games []gameSummary `json:"games"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/t1/games", nil, 200, &games)
	if len(games.Games) != len(recs) {
		t.Fatalf("%d games listed, want %d", len(games.Games), len(recs))
	}
	for k, g := range games.Games {
		rec := recs[k]
		var ans recordAnswer
		callJSON(t, nil, "GET", ts.URL+"/api/runs/t1/games/"+g.Shard+"/"+itoa(g.Index), nil, 200, &ans)
		if ans.ValueQMix == nil || *ans.ValueQMix != 0.25 {
			t.Fatalf("game %d: value_q_mix %v, want 0.25", k, ans.ValueQMix)
		}
		if len(ans.Targets) != len(rec.Actions) {
			t.Fatalf("game %d: %d targets for %d moves", k, len(ans.Targets), len(rec.Actions))
		}
		s := env.NewState(rec.Variant)
		for i, tg := range ans.Targets {
			want := rec.Targets[i]
			if tg.Side != colorName(s.CurrentPlayer()) || tg.Side != ans.Plies[i].ToAct {
				t.Fatalf("game %d ply %d: side %q, to act %q", k, i, tg.Side, ans.Plies[i].ToAct)
			}
			if len(tg.Policy) != len(want.Policy) || (tg.Policy == nil) {
				t.Fatalf("game %d ply %d: policy %v, recorded %v", k, i, tg.Policy, want.Policy)
			}
			for j, e := range tg.Policy {
				if e.Action != env.Action(want.Policy[j].Action).String() || e.Prob != want.Policy[j].Prob {
					t.Fatalf("game %d ply %d: policy %v, recorded %v", k, i, tg.Policy, want.Policy)
				}
			}
			if i%5 == 4 && len(tg.Policy) != 0 {
				t.Fatalf("game %d ply %d: a policy where the record has none", k, i)
			}
			switch {
			case want.RootWDL == [3]float32{} && tg.RootWDL != nil:
				t.Fatalf("game %d ply %d: root WDL %v where the record has none", k, i, *tg.RootWDL)
			case want.RootWDL != [3]float32{} && (tg.RootWDL == nil || *tg.RootWDL != want.RootWDL):
				t.Fatalf("game %d ply %d: root WDL %v, recorded %v", k, i, tg.RootWDL, want.RootWDL)
			}
			v := datasets.ValueFor(rec.Outcome, s.CurrentPlayer())
			if tg.Z == nil || *tg.Z != v[0]-v[2] {
				t.Fatalf("game %d ply %d: z %v, want %v (outcome %s, %s to act)", k, i, tg.Z, v[0]-v[2], rec.Outcome, tg.Side)
			}
			s.ApplyAction(rec.Actions[i])
		}
	}
	// the targets are in the JSON as documented: null where unknown, [] where no target
	var raw struct {
		Targets []map[string]any `json:"targets"`
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/t1/games/"+games.Games[0].Shard+"/0", nil, 200, &raw)
	if p, ok := raw.Targets[4]["policy"].([]any); !ok || len(p) != 0 {
		t.Errorf("a position without a policy target: %v, want \"policy\": []", raw.Targets[4])
	}
	if w, ok := raw.Targets[0]["root_wdl"]; !ok || w != nil {
		t.Errorf("a position without a root WDL: %v, want \"root_wdl\": null", raw.Targets[0])
	}
	// r1 has no config.yaml; its games carry no policy; an SGF file has no targets
	t1 := ts.URL + "/api/runs/t1/games/" + games.Games[0].Shard + "/0"
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	var ans recordAnswer
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/games/"+games.Games[0].Shard+"/0", nil, 200, &ans)
	if ans.ValueQMix != nil || len(ans.Targets) != len(ans.Moves) || len(ans.Targets[0].Policy) != 0 || ans.Targets[0].RootWDL != nil {
		t.Fatalf("r1's game: value_q_mix %v, %d targets for %d moves, first %+v", ans.ValueQMix, len(ans.Targets), len(ans.Moves), ans.Targets[0])
	}
	callJSON(t, nil, "GET", ts.URL+"/api/runs/r1/sgf/game.sgf", nil, 200, &ans)
	if ans.Targets != nil || ans.ValueQMix != nil {
		t.Fatalf("an SGF game has targets %v, value_q_mix %v", ans.Targets, ans.ValueQMix)
	}
	// a value_q_mix out of range or not a number is no mix
	for _, bad := range []string{"2", "x"} {
		os.WriteFile(filepath.Join(runs, "t1", "config.yaml"), []byte("training:\n  value_q_mix: "+bad+"\n"), 0o644)
		callJSON(t, nil, "GET", t1, nil, 200, &ans)
		if ans.ValueQMix != nil {
			t.Fatalf("value_q_mix %s read as %v", bad, *ans.ValueQMix)
		}
	}
}
