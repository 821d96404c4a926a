//go:build unix

package web

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// guardClient fails a request that hangs instead of waiting forever: a guard, not a timing
// assertion (every answer here comes at once).
var guardClient = &http.Client{Timeout: 20 * time.Second}

// getGuarded is a GET through guardClient that fails the test on a hang.
func getGuarded(t *testing.T, url string) (int, []byte) {
	t.Helper()
	res, err := guardClient.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return res.StatusCode, data
}

// TestRunFilesLinksOut: files of a run that are symbolic links out of --runs (metrics.jsonl, a
// shard, an SGF file) are neither served nor counted, whether the link is absolute or relative, in
// a listed run or in one whose only content is the link.
func TestRunFilesLinksOut(t *testing.T) {
	runs, secret := makeRuns(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// outside the runs directory: a long metrics file, a valid shard and an SGF record
	var lines strings.Builder
	for i := range 40 {
		lines.WriteString(metricsLine(i + 1))
	}
	outMetrics := filepath.Join(secret, "passwd.jsonl")
	must(os.WriteFile(outMetrics, []byte(strings.ReplaceAll(lines.String(), `"time"`, `"TOPSECRET":1,"time"`)), 0o644))
	outShards := filepath.Join(secret, "shards")
	w, err := datasets.NewWriter(outShards, datasets.WriterOptions{GamesPerShard: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(err)
	g := randomGame(rand.New(rand.NewPCG(7, 7)), 4242, env.Blitz)
	g.Generator = "TOPSECRET"
	must(w.Append(g))
	must(w.Close())
	outShard := filepath.Join(outShards, datasets.ShardName(1))
	sgf := mustRead(t, filepath.Join(runs, "r1", "game.sgf"))
	outSGF := filepath.Join(secret, "game.sgf")
	must(os.WriteFile(outSGF, append([]byte("(;GN[TOPSECRET]"), sgf[2:]...), 0o644))

	// r1 (a run) gets its metrics replaced by a link out, a linked shard and a linked SGF file
	r1 := filepath.Join(runs, "r1")
	must(os.Rename(filepath.Join(r1, "metrics.jsonl"), filepath.Join(r1, "metrics.old")))
	must(os.Symlink(outMetrics, filepath.Join(r1, "metrics.jsonl")))
	must(os.Symlink(outShard, filepath.Join(r1, "games", datasets.ShardName(7))))
	rel, err := filepath.Rel(r1, outSGF)
	must(err)
	must(os.Symlink(rel, filepath.Join(r1, "linked.sgf"))) // relative, out through ..
	// r2's only file is a link out: no run
	must(os.MkdirAll(filepath.Join(runs, "r2"), 0o755))
	must(os.Symlink(outMetrics, filepath.Join(runs, "r2", "metrics.jsonl")))
	// r3's metrics link inside --runs: followed
	must(os.MkdirAll(filepath.Join(runs, "r3"), 0o755))
	must(os.Symlink(filepath.Join(r1, "metrics.old"), filepath.Join(runs, "r3", "metrics.jsonl")))

	_, ts := newTestServer(t, Options{Runs: runs})
	noSecret := func(p string, data []byte) {
		t.Helper()
		if strings.Contains(string(data), "TOPSECRET") {
			t.Fatalf("%s leaked the secret: %s", p, data)
		}
	}
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs", nil, 200, &list)
	got := map[string]runSummary{}
	for _, r := range list.Runs {
		got[r.Name] = r
	}
	if len(got) != 2 || got["r1"].Generations != 0 || got["r1"].Shards != 1 || got["r1"].SGF != 1 || got["r3"].Generations != 2 {
		t.Fatalf("runs %+v: want r1 with no generations (its metrics link out), 1 shard and 1 SGF file, r3 with 2 generations, no r2", list.Runs)
	}
	for _, p := range []string{"/api/runs/r1/metrics", "/api/runs/r2/metrics"} {
		status, data := getGuarded(t, ts.URL+p)
		noSecret(p, data)
		wantError(t, status, data, 404, "metrics.jsonl")
	}
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs/r3/metrics", nil, 200, nil)
	for _, p := range []string{
		"/api/runs/r1/games/games~" + datasets.ShardName(7) + "/0",
		"/api/runs/r1/sgf/linked.sgf",
	} {
		status, data := getGuarded(t, ts.URL+p)
		noSecret(p, data)
		wantError(t, status, data, 404, "no such")
	}
	status, data := getGuarded(t, ts.URL+"/api/runs/r1/games")
	noSecret("games", data)
	if status != 200 {
		t.Fatalf("games: %d %s", status, data)
	}
	// the event stream of r1 sends no metrics lines
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/api/runs/r1/events", nil)
	res, err := http.DefaultClient.Do(req)
	must(err)
	buf := make([]byte, 4096)
	var ev strings.Builder
	for !strings.Contains(ev.String(), "event: games") {
		n, err := res.Body.Read(buf)
		ev.Write(buf[:n])
		if err != nil {
			t.Fatalf("events: %v after %q", err, ev.String())
		}
	}
	res.Body.Close()
	noSecret("events", []byte(ev.String()))
	if !strings.Contains(ev.String(), `"lines":[]`) {
		t.Fatalf("events of r1 with its metrics linked out: %q", ev.String())
	}
}

// TestRunFilesSpecial: files that are not regular files are refused at once: a FIFO named x.sgf or
// metrics.jsonl (whose open would block forever), a shard that is a FIFO, a metrics.jsonl linked to
// /dev/urandom (whose read never ends). Nothing hangs and no goroutine is left reading.
func TestRunFilesSpecial(t *testing.T) {
	if _, err := os.Stat("/dev/urandom"); err != nil {
		t.Skip("no /dev/urandom")
	}
	runs, _ := makeRuns(t)
	r1 := filepath.Join(runs, "r1")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(filepath.Join(r1, "x.sgf"), 0o644))
	must(syscall.Mkfifo(filepath.Join(r1, "games", datasets.ShardName(5)), 0o644))
	must(os.MkdirAll(filepath.Join(runs, "r2", "games"), 0o755))
	must(syscall.Mkfifo(filepath.Join(runs, "r2", "metrics.jsonl"), 0o644))
	must(os.MkdirAll(filepath.Join(runs, "r3", "games"), 0o755))
	must(os.Symlink("/dev/urandom", filepath.Join(runs, "r3", "metrics.jsonl")))
	// a link inside the run to the FIFO (followed, then refused)
	must(os.Symlink("x.sgf", filepath.Join(r1, "y.sgf")))

	_, ts := newTestServer(t, Options{Runs: runs})
	runtime.GC()
	before := runtime.NumGoroutine()
	var list struct {
		Runs []runSummary `json:"runs"`
	}
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs", nil, 200, &list)
	if len(list.Runs) != 1 || list.Runs[0].Name != "r1" || list.Runs[0].Shards != 1 || list.Runs[0].SGF != 1 {
		t.Fatalf("runs %+v: want r1 alone, its FIFOs not counted", list.Runs)
	}
	for _, p := range []string{"/api/runs/r1/sgf/x.sgf", "/api/runs/r1/sgf/y.sgf", "/api/runs/r1/games/games~" + datasets.ShardName(5) + "/0"} {
		status, data := getGuarded(t, ts.URL+p)
		wantError(t, status, data, 404, "not a regular file")
	}
	for _, p := range []string{"/api/runs/r2/metrics", "/api/runs/r3/metrics"} {
		status, data := getGuarded(t, ts.URL+p)
		wantError(t, status, data, 404, "metrics.jsonl")
	}
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs/r1/games", nil, 200, nil)
	// every handler has returned: the goroutines settle back (idle connections closed first)
	guardClient.CloseIdleConnections()
	ts.CloseClientConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= before {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the requests:\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunFilesLimits: a file read past its deadline is a 503 (and a listing cut short caches
// nothing, so the next one has the shards' games); an SGF file over the size limit is a 422 naming
// the limit; a 404 names the file under --runs, never where --runs is.
func TestRunFilesLimits(t *testing.T) {
	runs, _ := makeRuns(t)
	s, ts := newTestServer(t, Options{Runs: runs})
	s.runs.timeout.Store(int64(-time.Second)) // every read is past its deadline
	status, data := getGuarded(t, ts.URL+"/api/runs/r1/sgf/game.sgf")
	wantError(t, status, data, 503, "deadline")
	var games struct {
		Games []gameSummary `json:"games"`
	}
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	if len(games.Games) != 0 {
		t.Fatalf("%d games read past the deadline", len(games.Games))
	}
	s.runs.timeout.Store(int64(fileTimeout))
	callJSON(t, guardClient, "GET", ts.URL+"/api/runs/r1/games", nil, 200, &games)
	if len(games.Games) != 5 {
		t.Fatalf("%d games after a listing cut short, want 5", len(games.Games))
	}
	big := append(mustRead(t, filepath.Join(runs, "r1", "game.sgf")), make([]byte, maxSGFBytes)...)
	if err := os.WriteFile(filepath.Join(runs, "r1", "big.sgf"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	status, data = getGuarded(t, ts.URL+"/api/runs/r1/sgf/big.sgf")
	wantError(t, status, data, 422, "more than the 4194304")
	status, data = getGuarded(t, ts.URL+"/api/runs/r1/sgf/none.sgf")
	wantError(t, status, data, 404, "no such")
	if strings.Contains(string(data), runs) || strings.Contains(string(data), filepath.Dir(runs)) {
		t.Fatalf("a 404 names the runs directory: %s", data)
	}
}
