package web

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// newTestServer starts a server on loopback with opts (Player random unless given).
func newTestServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	if opts.Player == "" {
		opts.Player = "random"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// call sends a request with a JSON body (nil: none) and returns the status and the body.
func call(t testing.TB, c *http.Client, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c == nil {
		c = http.DefaultClient
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// callJSON is call with the answer decoded into out, failing unless the status is want.
func callJSON(t testing.TB, c *http.Client, method, url string, body any, want int, out any) {
	t.Helper()
	status, data := call(t, c, method, url, body)
	if status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, url, status, want, data)
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero() // no field left over from an earlier answer
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, data)
		}
	}
}

// wantError checks an error answer: the status and a JSON body {"error": ..., "status": ...}.
func wantError(t testing.TB, status int, data []byte, want int, contains string) {
	t.Helper()
	if status != want {
		t.Fatalf("status %d, want %d: %s", status, want, data)
	}
	var e apiError
	if err := json.Unmarshal(data, &e); err != nil || e.Error == "" || e.Status != want {
		t.Fatalf("not a JSON error answer (%v): %s", err, data)
	}
	if !strings.Contains(e.Error, contains) {
		t.Fatalf("error %q does not say %q", e.Error, contains)
	}
}

// playTokens applies tokens to a new state.
func playTokens(t testing.TB, v env.Variant, toks []string) *env.State {
	t.Helper()
	s := env.NewState(v)
	for i, tok := range toks {
		a, err := env.ParseAction(tok)
		if err == nil {
			err = s.ApplyAction(a)
		}
		if err != nil {
			t.Fatalf("ply %d %s: %v", i+1, tok, err)
		}
	}
	return s
}

// randomGame plays a random game to its end and returns it as a record.
func randomGame(rng *rand.Rand, id uint64, v env.Variant) *datasets.Record {
	s := env.NewState(v)
	r := &datasets.Record{ID: id, Variant: v, Generator: "test-random"}
	for !s.IsTerminal() && len(r.Actions) < 600 {
		legal := s.LegalActions(nil)
		a := legal[rng.IntN(len(legal))]
		r.Actions = append(r.Actions, a)
		r.Targets = append(r.Targets, datasets.Target{})
		s.ApplyAction(a)
	}
	r.Outcome = s.Outcome()
	return r
}

// makeRuns writes a runs directory: run "r1" with metrics, a finished shard of 3 games, a shard
// being written with 2 and an SGF file; and next to the runs directory a secret file and directory
// that no request may read.
func makeRuns(t testing.TB) (runs, secret string) {
	t.Helper()
	runs, secret, _ = makeRunsWriter(t)
	return runs, secret
}

// makeRunsWriter is makeRuns, also returning the writer of r1's shard in progress (games appended to
// it show up as a run's live games).
func makeRunsWriter(t testing.TB) (runs, secret string, w *datasets.Writer) {
	t.Helper()
	base := t.TempDir()
	runs = filepath.Join(base, "runs")
	secret = filepath.Join(base, "secret")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(runs, "r1", "games"), 0o755))
	must(os.MkdirAll(secret, 0o755))
	must(os.WriteFile(filepath.Join(secret, "metrics.jsonl"), []byte(`{"generation":1,"secret":"TOPSECRET"}`+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(secret, "x.sgf"), []byte("TOPSECRET"), 0o644))
	must(os.WriteFile(filepath.Join(base, "secret.sgf"), []byte("TOPSECRET"), 0o644))
	must(os.WriteFile(filepath.Join(runs, "r1", "metrics.jsonl"), []byte(metricsLine(1)+metricsLine(2)), 0o644))
	rng := rand.New(rand.NewPCG(1, 2))
	w, err := datasets.NewWriter(filepath.Join(runs, "r1", "games"), datasets.WriterOptions{GamesPerShard: 3,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(err)
	for i := range 5 { // 3 in a finished shard, 2 in the temporary one
		must(w.Append(randomGame(rng, uint64(100+i), env.Blitz)))
	}
	// leave the second shard unfinished: the writer is not closed (Close would finish it)
	data, err := os.ReadFile("../env/testdata/boardspace/Y-DrMih-Dumbot-2026-02-20-0858.sgf")
	must(err)
	must(os.WriteFile(filepath.Join(runs, "r1", "game.sgf"), data, 0o644))
	// links out of the runs directory
	must(os.Symlink(secret, filepath.Join(runs, "evil")))
	must(os.Symlink(filepath.Join(base, "secret.sgf"), filepath.Join(runs, "r1", "out.sgf")))
	return runs, secret, w
}

func metricsLine(gen int) string {
	return `{"generation":` + itoa(gen) + `,"time":"2026-12-01T10:00:00Z","selfplay":{"games":16,"mean_length":` + itoa(60+gen) +
		`,"games_per_hour":900},"train":{"steps":100,"loss":` + itoa(5-gen) + `.5,"loss_policy":3.1,"loss_value":0.9},` +
		`"eval":{"vs_best":0.6,"promoted":true,"baselines":{"random":0.9}},"best":"gen-000` + itoa(gen) +
		`","rating_anchor":"gen-0000","elo":{"value":` + itoa(30*gen) + `,"low":` + itoa(30*gen-40) + `,"high":` + itoa(30*gen+40) + `},"elapsed_s":600}` + "\n"
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeInto(data []byte, out any) error { return json.Unmarshal(data, out) }

// targetGame plays a random game to its end, as randomGame, with training targets: at every fifth
// position none (a fast search), elsewhere a policy of the played action (0.5) and up to three
// other legal actions sharing the rest, and a root WDL except at every seventh position (unknown).
func targetGame(rng *rand.Rand, id uint64, v env.Variant) *datasets.Record {
	r := randomGame(rng, id, v)
	r.Generator = "test-targets"
	s := env.NewState(v)
	for i, a := range r.Actions {
		t := &r.Targets[i]
		if i%5 != 4 {
			var others []env.Action
			for _, b := range s.LegalActions(nil) {
				if b != a && len(others) < 3 {
					others = append(others, b)
				}
			}
			t.Policy = []datasets.PolicyEntry{{Action: uint16(a), Prob: 1}}
			if len(others) > 0 {
				t.Policy[0].Prob = 0.5
				for _, b := range others {
					t.Policy = append(t.Policy, datasets.PolicyEntry{Action: uint16(b), Prob: 0.5 / float32(len(others))})
				}
			}
		}
		if i%7 != 0 {
			w := float32(i%10) / 10
			t.RootWDL = [3]float32{w, 0.1, 0.9 - w}
		}
		s.ApplyAction(a)
	}
	return r
}

// makeTargetRun writes run "t1" under runs: a finished shard of two games with training targets
// (targetGame) and a config.yaml whose training.value_q_mix is qmix.
func makeTargetRun(t testing.TB, runs string, qmix string) []*datasets.Record {
	t.Helper()
	dir := filepath.Join(runs, "t1")
	if err := os.MkdirAll(filepath.Join(dir, "games"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("variant: standard\ntraining:\n  batch_size: 256\n  value_q_mix: "+qmix+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := datasets.NewWriter(filepath.Join(dir, "games"), datasets.WriterOptions{GamesPerShard: 2,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	recs := []*datasets.Record{targetGame(rng, 201, env.Standard), targetGame(rng, 202, env.Blitz)}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return recs
}
