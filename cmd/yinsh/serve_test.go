package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func TestServeFlags(t *testing.T) {
	parse := func(args ...string) (*ServeOptions, error) {
		var got *ServeOptions
		cmd := newCmdServe(func(o *ServeOptions) error { got = o; return nil })
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		return got, err
	}
	t.Setenv("YINSH_CACHE_DIR", filepath.Join(t.TempDir(), "cache"))
	o, err := parse()
	if err == nil && (o.GamesDir != filepath.Join(os.Getenv("YINSH_CACHE_DIR"), "games") || o.SavedGames != 1000) {
		t.Fatalf("games dir %q, saved games %d: want the cache directory's games, 1000", o.GamesDir, o.SavedGames)
	}
	if err != nil || o.Addr != "127.0.0.1:8080" || o.Player != "reference" || o.Runs != "" || o.AllowRemote {
		t.Fatalf("defaults: %+v %v", o, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--addr", "0.0.0.0:8080"}, "--allow-remote"},
		{[]string{"--addr", ":8080"}, "--allow-remote"},
		{[]string{"--addr", "8080"}, "HOST:PORT"},
		{[]string{"--runs", "/does/not/exist"}, "not a directory"},
		{[]string{"--sims", "0"}, "--sims"},
		{[]string{"--searches", "0"}, "--searches"},
		{[]string{"--max-sims", "0"}, "--max-sims"},
		{[]string{"--max-movetime", "0"}, "--max-movetime"},
		{[]string{"--max-stream", "0"}, "--max-stream"},
		{[]string{"--variant", "speed"}, "variant"},
		{[]string{"--log-level", "loud"}, "--log-level"},
		{[]string{"--players", "random,,heuristic"}, "--players"},
		{[]string{"--saved-games", "0"}, "--saved-games"},
	} {
		if _, err := parse(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.args, err, c.want)
		}
	}
	if o, err := parse("--addr", "0.0.0.0:0", "--allow-remote", "--player", "rollout:50", "--runs", t.TempDir(), "--variant", "blitz"); err != nil ||
		!o.AllowRemote || o.Player != "rollout:50" || o.Variant.String() != "blitz" {
		t.Fatalf("explicit flags: %+v %v", o, err)
	}
	if o.Offer != nil {
		t.Fatalf("no --players: offer %q, want nil (the server's default)", o.Offer)
	}
	if o, err := parse("--players", "level:2, heuristic,rollout:8"); err != nil || strings.Join(o.Offer, "|") != "level:2|heuristic|rollout:8" {
		t.Fatalf("--players: %+v %v", o, err)
	}
}

// serveFor runs serveRun until the test ends and returns the base URL and what it printed.
func serveFor(t *testing.T, opts *ServeOptions) (string, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	opts.Out = &out
	opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	if opts.Sims == 0 {
		opts.Sims, opts.LeavesInFlight, opts.Searches, opts.MaxSims, opts.MaxMoveTime = 200, 8, 2, 1000, time.Second
	}
	ready := make(chan net.Addr, 1)
	opts.Ready = func(a net.Addr) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-ready:
		_, port, _ := net.SplitHostPort(a.String())
		return "http://127.0.0.1:" + port, &out
	case err := <-done:
		done <- nil // the cleanup reads done too: without this a server that failed to start hung the test until its timeout
		t.Fatalf("serve ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	return "", nil
}

// TestServePlaysAndReplays serves on loopback, plays a blitz game through the API and checks that
// yinsh replay reads both downloads (tokens and SGF) to the same result.
func TestServePlaysAndReplays(t *testing.T) {
	url, out := serveFor(t, &ServeOptions{Addr: "127.0.0.1:0", Player: "random", Variant: env.Blitz})
	if strings.Contains(out.String(), "WARNING") || !strings.Contains(out.String(), "yinsh serve: http://127.0.0.1:") {
		t.Fatalf("startup lines %q", out)
	}
	g := playServed(t, url, `{"color":"black"}`, false)
	if g.Variant != "blitz" {
		t.Fatalf("--variant blitz not the default: %+v", g)
	}
	dir := t.TempDir()
	for _, kind := range []string{"tokens", "sgf"} {
		res, err := http.Get(url + "/api/games/" + g.ID + "/" + kind)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		file := filepath.Join(dir, "game."+map[string]string{"tokens": "txt", "sgf": "sgf"}[kind])
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, errs, code := runCLI(t, "", "replay", file)
		if code != 0 || lastLine(stdout) != "result: "+g.Result {
			t.Fatalf("yinsh replay %s: code %d, last line %q (want result: %s): %s\n%s", kind, code, lastLine(stdout), g.Result, errs, data)
		}
	}
}

// TestServeRemoteWarns: a non-loopback address with --allow-remote serves, with a warning.
func TestServeRemoteWarns(t *testing.T) {
	url, out := serveFor(t, &ServeOptions{Addr: "0.0.0.0:0", AllowRemote: true, Player: "random", Runs: t.TempDir()})
	if !strings.HasPrefix(out.String(), "WARNING: serving on ") || !strings.Contains(out.String(), "no authentication") {
		t.Fatalf("no warning: %q", out)
	}
	res, err := http.Get(url + "/api/info")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("info: %d", res.StatusCode)
	}
}

type servedView struct {
	ID       string   `json:"id"`
	Legal    []string `json:"legal"`
	Moves    []string `json:"moves"`
	YourTurn bool     `json:"your_turn"`
	Result   string   `json:"result"`
	Variant  string   `json:"variant"`
}

// playServed creates a game with body and plays it to its end through the API: random legal
// actions for the human, the agent endpoint for the agent; with undo, it takes back one turn once
// the rings are placed.
func playServed(t *testing.T, url, body string, undo bool) servedView {
	t.Helper()
	post := func(path string, body string, v any) {
		t.Helper()
		res, err := http.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode >= 300 {
			data, _ := io.ReadAll(res.Body)
			t.Fatalf("%s: %d %s", path, res.StatusCode, data)
		}
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	var g servedView
	post("/api/games", body, &g)
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 0; g.Result == "ongoing"; n++ {
		if n > 2000 {
			t.Fatal("the game does not end")
		}
		prev := g
		g = servedView{}
		switch {
		case undo && prev.YourTurn && len(prev.Moves) > 14:
			post("/api/games/"+prev.ID+"/undo", ``, &g)
			if len(g.Moves) >= len(prev.Moves) {
				t.Fatalf("undo: %d moves, %d before", len(g.Moves), len(prev.Moves))
			}
			undo = false
		case prev.YourTurn:
			post("/api/games/"+prev.ID+"/play", `{"action":"`+prev.Legal[rng.IntN(len(prev.Legal))]+`"}`, &g)
		default:
			post("/api/games/"+prev.ID+"/agent", ``, &g)
		}
	}
	return g
}

// TestServeExternalEngine: the agent is another program speaking the engine protocol (yinsh engine
// itself, one process per game): it plays whole games through the API, an undo included.
func TestServeExternalEngine(t *testing.T) {
	url, _ := serveFor(t, &ServeOptions{Addr: "127.0.0.1:0", Player: engineSpec(t, "--player heuristic"), Variant: env.Blitz})
	for _, color := range []string{"white", "black"} {
		g := playServed(t, url, `{"color":"`+color+`"}`, true)
		if g.Result == "ongoing" || len(g.Moves) < 10 {
			t.Fatalf("%s: %+v", color, g)
		}
	}
}

// TestServeCheckpoint: a network agent plays and analyses; its analysis reports the network's
// policy (not uniform) over every legal action.
func TestServeCheckpoint(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "net.ckpt")
	if _, errs, code := runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "3", "--variant", "blitz", "--out", ck); code != 0 {
		t.Fatalf("model init: %s", errs)
	}
	url, _ := serveFor(t, &ServeOptions{Addr: "127.0.0.1:0", Player: ck, Variant: env.Blitz, Search: selfplay.Search{Sims: 16, LeavesInFlight: 8}, Searches: 2,
		MaxSims: 64, MaxMoveTime: time.Second})
	g := playServed(t, url, `{"color":"white"}`, false)
	if g.Result == "ongoing" {
		t.Fatalf("%+v", g)
	}
	res, err := http.Post(url+"/api/analyze", "application/json", strings.NewReader(`{"moves":["e5","f6"],"sims":32,"top":3}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a struct {
		Player   string     `json:"player"`
		Searched bool       `json:"searched"`
		Sims     int        `json:"sims"`
		WDL      [3]float64 `json:"wdl"`
		Policy   []struct {
			Prior float64 `json:"prior"`
		} `json:"policy"`
	}
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil || res.StatusCode != 200 {
		t.Fatalf("analyze: %d %v", res.StatusCode, err)
	}
	if !a.Searched || a.Sims != 32 || a.Player != "net" || len(a.Policy) != 83 {
		t.Fatalf("analysis %+v", a)
	}
	lo, hi, sum := 1.0, 0.0, 0.0
	for _, p := range a.Policy {
		lo, hi, sum = min(lo, p.Prior), max(hi, p.Prior), sum+p.Prior
	}
	if hi-lo < 1e-4 || sum < 0.99 || sum > 1.01 {
		t.Fatalf("priors in [%g, %g], sum %g: not the network's policy", lo, hi, sum)
	}
}

// TestServeShutdownEndsStreams: an event stream open at shutdown ends with it.
func TestServeShutdownEndsStreams(t *testing.T) {
	runs := t.TempDir()
	os.MkdirAll(filepath.Join(runs, "r"), 0o755)
	os.WriteFile(filepath.Join(runs, "r", "metrics.jsonl"), []byte(`{"generation":1}`+"\n"), 0o644)
	var out bytes.Buffer
	opts := &ServeOptions{Addr: "127.0.0.1:0", Player: "random", Runs: runs, Out: &out, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Search: selfplay.Search{Sims: 200, LeavesInFlight: 8}, Searches: 2, MaxSims: 100, MaxMoveTime: time.Second}
	ready := make(chan net.Addr, 1)
	opts.Ready = func(a net.Addr) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	a := <-ready
	c := &http.Client{Timeout: 6 * time.Second} // a stream the shutdown leaves open fails the test, not hangs it
	res, err := c.Get("http://" + a.String() + "/api/runs/r/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	start := time.Now()
	cancel()
	io.Copy(io.Discard, res.Body) // ends when the server closes the stream
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %v with a stream open", el)
	}
}
