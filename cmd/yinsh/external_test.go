package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// engineSpec returns the player spec of `yinsh engine` run as an external program with args.
func engineSpec(t *testing.T, args ...string) string {
	return `engine:"` + yinshBinary(t) + " engine --log-level warn " + strings.Join(args, " ") + `"`
}

// An external engine (yinsh engine itself, as a separate process) plays a whole match through the
// protocol; its games are recorded and replay.
func TestArenaWithExternalEngine(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "games.txt")
	spec := engineSpec(t, "--player heuristic")
	out, errs, code := runCLI(t, "", "arena", "--a", spec, "--b", "random", "--games", "8", "--variant", "blitz",
		"--record", rec, "--results", "")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	m := regexp.MustCompile(`wins: (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no wins line: %s", out)
	}
	if w, _ := strconv.Atoi(m[1]); w < 6 {
		t.Errorf("the heuristic engine won %d of 8 against random:\n%s", w, out)
	}
	if !strings.Contains(out, "time per move: "+spec+" mean ") || strings.Contains(out, "forfeits") {
		t.Errorf("output:\n%s", out)
	}
	out, errs, code = runCLI(t, "", "replay", rec)
	if code != 0 || !strings.Contains(out, "games: 8") {
		t.Fatalf("replay: code %d out %q err %q", code, out, errs)
	}
}

// An engine that overruns its time loses each game by forfeit, reported with its stderr, and is
// restarted for the next game; a program that does not start stops the arena with a clear error.
func TestArenaExternalEngineFaults(t *testing.T) {
	spec := engineSpec(t, "--player rollout:10000000")
	out, errs, code := runCLI(t, "", "arena", "--a", spec, "--b", "random", "--games", "4", "--variant", "blitz",
		"--engine-timeout", "50ms", "--results", "")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	if !strings.Contains(out, "losses: 4") || !strings.Contains(out, "forfeits: "+spec+" 4, random 0") {
		t.Errorf("output:\n%s", out)
	}
	if n := strings.Count(errs, "loses by forfeit"); n != 4 || !strings.Contains(errs, "timed out after 50ms") {
		t.Errorf("%d forfeits reported:\n%s", n, errs)
	}
	_, errs, code = runCLI(t, "", "arena", "--a", `engine:"/no/such/engine"`, "--b", "random", "--games", "2", "--results", "")
	if code == 0 || !strings.Contains(errs, "/no/such/engine") {
		t.Errorf("missing program: code %d err %q", code, errs)
	}
	_, errs, code = runCLI(t, "", "arena", "--a", `engine:"unterminated`, "--b", "random", "--games", "2", "--results", "")
	if code == 0 || !strings.Contains(errs, "quote") {
		t.Errorf("bad spec: code %d err %q", code, errs)
	}
}

// yinsh engine can itself play through an external engine: a GTP-style relay.
func TestEngineRelaysToExternalEngine(t *testing.T) {
	p := startEngine(t, "--player", engineSpec(t, "--player heuristic"), "--variant", "blitz", "--log-level", "warn")
	p.must("newgame blitz")
	for i := 0; i < 12; i++ {
		a := p.send("genmove")
		if !a.OK {
			t.Fatalf("genmove %d: %s", i, a.Text)
		}
	}
	// time controls reach the external engine (time_settings through the protocol)
	p.must("time_settings 0 1 10")
	if a := p.send("genmove"); !a.OK {
		t.Fatalf("genmove under a clock: %s", a.Text)
	}
	p.must("time_left b 1 5")
	if a := p.send("genmove"); !a.OK {
		t.Fatalf("genmove after time_left: %s", a.Text)
	}
	p.must("undo 3")
	if a := p.send("genmove_info"); !a.OK || !strings.HasPrefix(a.Text, "action ") {
		t.Fatalf("genmove_info after undo: %+v", a)
	}
	p.quit()
	if _, err := os.Stat(yinshBinary(t)); err != nil {
		t.Fatal(err)
	}
}
