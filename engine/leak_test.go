package engine

import (
	"bytes"
	"fmt"
	"github.com/yinsh-zero/yinsh/selfplay"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// settle collects garbage until the heap stops shrinking and returns the goroutines and the heap
// in use. With want ≥ 0 it first waits (up to 5 s) for the goroutines to come down to want: closed
// batchers' collectors and finished analyses exit soon after they are told to, not at once.
func settle(want int) (goroutines int, heap uint64) {
	if want >= 0 {
		for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > want && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapInuse
}

// checkAnswer fails unless a is an answer of the protocol: Exec answers every command line.
func checkAnswer(t *testing.T, line string, answered bool, text string) {
	t.Helper()
	if !answered {
		t.Fatalf("%q: no answer", line)
	}
	if strings.Contains(text, "\n\n") {
		t.Fatalf("%q: an empty line inside the answer %q", line, text)
	}
}

// TestNoLeaks reconfigures an engine with a checkpoint player 1,000 times (set sims N, set player
// switching between the checkpoint, random and rollout:5, set movetime, with genmove, eval, policy and
// analyze in between, through Exec and Run) and plays 1,000 short blitz games with it: the goroutines
// come back to where they were (every rebuilt player's batcher and every analysis searcher's is
// stopped) and the heap stays bounded (the checkpoint is loaded once, not once per rebuild). -short
// runs 200 of each.
func TestNoLeaks(t *testing.T) {
	reconfigs, games := 1000, 1000
	if testing.Short() {
		reconfigs, games = 200, 200
	}
	ck := checkpointFile(t)
	g0, h0 := settle(-1)

	e := newEngine(t, Options{Player: ck, Search: selfplay.Search{Sims: 2}, Seed: 1, Variant: env.Blitz})
	exec := func(line string) (bool, string) {
		t.Helper()
		_, ok, text, answered := e.Exec(line)
		checkAnswer(t, line, answered, text)
		return ok, text
	}
	must := func(line string) string {
		t.Helper()
		ok, text := exec(line)
		if !ok {
			t.Fatalf("%q: %s", line, text)
		}
		return text
	}
	// Run with a streaming analysis that the next command stops, and one with a budget
	runStream := func(after string) {
		t.Helper()
		var out bytes.Buffer
		in := "analyze 10\n" + after + "\nanalyze 10 sims 4\n"
		if err := e.Run(strings.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		if as := answers(t, out.String()); len(as) != 3 {
			t.Fatalf("Run(%q): %d answers %+v", in, len(as), as)
		}
	}
	// one of each first, so that what is built once (the network, pools) is in the baseline
	must("genmove")
	must("analyze sims 4")
	must("policy")
	runStream("set sims 3")
	must("set sims 2")
	must("newgame")
	g1, h1 := settle(-1)
	start := time.Now()

	for i := range reconfigs {
		switch {
		case i%50 == 10:
			must("set player random")
		case i%50 == 20:
			must("set player rollout:5")
		case i%50 == 30 || i%50 == 40:
			must("set player " + ck)
		case i%10 == 7:
			must(fmt.Sprintf("set movetime %d", i%3)) // 0, 1 or 2 ms: bounds and unbounds the search by time
		default:
			must(fmt.Sprintf("set sims %d", 1+i%7))
		}
		if i%10 == 5 {
			must("genmove")
			exec("eval 3")
			exec("policy")
			if ok, text := exec("analyze 10 sims 3"); !ok && !strings.Contains(text, "does not search") {
				t.Fatalf("analyze: %s", text)
			}
			if e.spec == ck {
				runStream(fmt.Sprintf("set sims %d", 1+i%5))
			}
		}
		if i%25 == 0 {
			must("newgame")
		}
	}
	g2, h2 := settle(g1 + 2)
	t.Logf("%d reconfigurations in %v: goroutines %d -> %d, heap in use %.1f -> %.1f MB",
		reconfigs, time.Since(start).Round(time.Millisecond), g1, g2, mb(h1), mb(h2))

	must("set player " + ck)
	must("set movetime 0")
	must("set sims 2")
	start = time.Now()
	ended, moves := 0, 0
	for i := range games {
		must("newgame")
		limit := 6 // ring placements
		if i%50 == 0 {
			limit = 1000 // to the end
		}
		for range limit {
			ok, text := exec("genmove")
			if !ok {
				if !strings.HasPrefix(text, "the game is over") {
					t.Fatalf("game %d: genmove: %s", i, text)
				}
				ended++
				break
			}
			moves++
		}
		if i%100 == 75 {
			must("analyze sims 4")
			runStream("eval 2")
		}
	}
	g3, h3 := settle(g1 + 2)
	t.Logf("%d games (%d to the end, %d genmoves) in %v: goroutines %d -> %d, heap in use %.1f -> %.1f MB",
		games, ended, moves, time.Since(start).Round(time.Millisecond), g1, g3, mb(h1), mb(h3))

	for _, c := range []struct {
		what string
		g    int
		h    uint64
	}{{"reconfigurations", g2, h2}, {"games", g3, h3}} {
		if c.g > g1+2 {
			t.Errorf("after the %s: %d goroutines, %d before", c.what, c.g, g1)
		}
		if c.h > 2*h1+4<<20 {
			t.Errorf("after the %s: heap in use %.1f MB, %.1f MB before", c.what, mb(c.h), mb(h1))
		}
	}
	if ended == 0 {
		t.Error("no game ended")
	}

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	g4, h4 := settle(g0 + 1)
	t.Logf("closed: goroutines %d (%d before the engine), heap in use %.1f MB (%.1f before)", g4, g0, mb(h4), mb(h0))
	if g4 > g0+1 {
		buf := make([]byte, 1<<20)
		t.Errorf("after Close: %d goroutines, %d before the engine:\n%s", g4, g0, buf[:runtime.Stack(buf, true)])
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// The checkpoint is loaded once: set sims, set movetime, set seed, set player with the same file
// and the analysis reuse its network; a file rewritten since is loaded anew, and what is not a
// regular file is refused without being read.
func TestCheckpointLoadedOnce(t *testing.T) {
	ck := checkpointFile(t)
	e := newEngine(t, Options{Player: ck, Search: selfplay.Search{Sims: 2}, Variant: env.Blitz})
	defer e.Close()
	net := e.nets.net
	if net == nil {
		t.Fatal("no network cached")
	}
	for _, line := range []string{"set sims 3", "set movetime 1", "set seed 5", "set player random", "set player " + ck,
		"analyze sims 4", "policy", "newgame standard", "genmove"} {
		if _, ok, text, _ := e.Exec(line); !ok {
			t.Fatalf("%q: %s", line, text)
		}
		if e.nets.net != net {
			t.Fatalf("%q loaded the checkpoint again", line)
		}
	}
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	other, err := gonum.New(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(ck); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(ck, later, later); err != nil {
		t.Fatal(err)
	}
	if _, ok, text, _ := e.Exec("set sims 2"); !ok || e.nets.net == net {
		t.Fatalf("a rewritten checkpoint is not loaded again (%v %s)", ok, text)
	}
	for _, spec := range []string{t.TempDir(), os.DevNull} {
		if _, ok, text, _ := e.Exec("set player " + spec); ok || !strings.Contains(text, "not a regular file") {
			t.Errorf("set player %s: %v %q", spec, ok, text)
		}
	}
}
