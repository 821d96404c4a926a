package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestArenaAndRatings(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "results.jsonl")
	out, errs, code := runCLI(t, "", "arena", "--a", "heuristic", "--b", "random", "--games", "6", "--variant", "blitz", "--results", res)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, want := range []string{"wins: ", "draws: ", "losses: ", "score: ", "pairs: ", "elo: ", "gsprt: ", "time per move: "} {
		if !strings.Contains(out, "\n"+want) {
			t.Errorf("arena output lacks %q: %q", want, out)
		}
	}
	for _, pair := range [][2]string{{"rollout:8", "random"}, {"heuristic", "rollout:8"}} {
		if _, errs, code := runCLI(t, "", "arena", "--a", pair[0], "--b", pair[1], "--games", "4", "--variant", "blitz", "--results", res); code != 0 {
			t.Fatalf("%v: code %d: %s", pair, code, errs)
		}
	}
	out, errs, code = runCLI(t, "", "ratings", dir)
	if code != 0 || !strings.Contains(out, "heuristic") || !strings.Contains(out, "rollout:8") || !strings.Contains(out, "random") {
		t.Fatalf("ratings: code %d out %q err %q", code, out, errs)
	}
	// a cut last line (a crash in the middle of a write) is skipped, and said
	full, _ := os.ReadFile(res)
	os.WriteFile(res, full[:len(full)-10], 0o644)
	out, errs, code = runCLI(t, "", "ratings", dir)
	if code != 0 || !strings.Contains(errs, "results.jsonl: line 3 is cut short") || !strings.Contains(out, ", 2 results") {
		t.Fatalf("cut results: code %d out %q err %q", code, out, errs)
	}
	os.WriteFile(res, full, 0o644)
	// a corrupt line is reported with file and line
	f, _ := os.OpenFile(res, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json}\n")
	f.Close()
	_, errs, code = runCLI(t, "", "ratings", dir)
	if code == 0 || !strings.Contains(errs, "results.jsonl: line 4") {
		t.Fatalf("corrupt results: code %d err %q", code, errs)
	}
}

func TestArenaBadPlayers(t *testing.T) {
	for _, args := range [][]string{
		{"arena", "--a", "rollout:x", "--b", "random", "--results", ""},
		{"arena", "--a", "random", "--b", "/no/such/checkpoint", "--results", ""},
		{"arena", "--a", "random", "--results", ""},
		{"arena", "--a", "random", "--b", "random", "--games", "0", "--results", ""},
		{"arena", "--a", "random", "--b", "random", "--leaves-in-flight", "0", "--results", ""},
	} {
		_, errs, code := runCLI(t, "", args...)
		if code == 0 || errs == "" {
			t.Errorf("%v: code %d err %q", args, code, errs)
		}
	}
}

// --openings gives the pairs their starts in order; --movetime bounds the searching player by time.
func TestArenaOpeningsAndMoveTime(t *testing.T) {
	dir := t.TempDir()
	book := filepath.Join(dir, "book.txt")
	if err := os.WriteFile(book, []byte("# two openings\ne5 f6\na2 a3 a4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec.txt")
	res := filepath.Join(dir, "res.jsonl")
	out, errs, code := runCLI(t, "", "arena", "--a", "rollout:1000000", "--b", "random", "--games", "6", "--variant", "blitz",
		"--openings", book, "--movetime", "5", "--record", rec, "--results", res)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	m := regexp.MustCompile(`time per move: rollout:1000000@5ms mean ([0-9.]+) ms, max ([0-9.]+) ms`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no time line for the timed player:\n%s", out)
	}
	if mean, _ := strconv.ParseFloat(m[1], 64); mean < 4 || mean > 40 {
		t.Errorf("mean %v ms a move at --movetime 5", mean)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	// games are recorded as they finish: put them in game order
	starts := make([]string, 6)
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Fields(l)
		n := regexp.MustCompile(`game=(\d+)`).FindStringSubmatch(l)
		if n == nil {
			t.Fatalf("record line without game=: %q", l)
		}
		k, _ := strconv.Atoi(n[1])
		starts[k-1] = strings.Join(f[:2], " ")
	}
	want := []string{"e5 f6", "e5 f6", "a2 a3", "a2 a3", "e5 f6", "e5 f6"}
	if strings.Join(starts, ",") != strings.Join(want, ",") {
		t.Errorf("games start %v, want %v", starts, want)
	}
	// the record replays; a second run refuses to overwrite it
	if out, errs, code := runCLI(t, "", "replay", rec); code != 0 || !strings.Contains(out, "games: 6") {
		t.Errorf("replay: %d %q %q", code, out, errs)
	}
	if _, errs, code := runCLI(t, "", "arena", "--a", "random", "--b", "random", "--games", "2", "--record", rec, "--results", ""); code == 0 || !strings.Contains(errs, "--force") {
		t.Errorf("overwrite: %d %q", code, errs)
	}
	rs, err := os.ReadFile(res)
	if err != nil || !strings.Contains(string(rs), `"a":"rollout:1000000@5ms"`) || !strings.Contains(string(rs), `"movetime_ms":5`) || !strings.Contains(string(rs), `"pairs":[`) {
		t.Errorf("results %s %v", rs, err)
	}
	for _, bad := range [][]string{
		{"--openings", filepath.Join(dir, "none.txt")},
		{"--opening-plies", "11"},
		{"--movetime", "-1"},
		{"--leaves-in-flight", "0"},
	} {
		args := append([]string{"arena", "--a", "random", "--b", "random", "--games", "2", "--results", ""}, bad...)
		if _, errs, code := runCLI(t, "", args...); code == 0 || errs == "" {
			t.Errorf("%v: code %d err %q", bad, code, errs)
		}
	}
}

// TestArenaSPRTStop: heuristic against random with --sprt-stop ends long before its 400 games once
// the GSPRT accepts H1, and says so; every game is in a complete pair.
func TestArenaSPRTStop(t *testing.T) {
	out, errs, code := runCLI(t, "", "arena", "--a", "heuristic", "--b", "random", "--games", "400", "--variant", "blitz", "--sprt-stop", "--results", "")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	m := regexp.MustCompile(`stopped by the GSPRT: H1 accepted \(stronger\) after (\d+) of 400 games`).FindStringSubmatch(out)
	total := regexp.MustCompile(`: (\d+) games in `).FindStringSubmatch(out)
	if m == nil || total == nil {
		t.Fatalf("no early stop with H1: %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	all, _ := strconv.Atoi(total[1])
	if n >= 100 || all%2 != 0 || all < n || all > n+2 {
		t.Errorf("stopped after %d games, %d in all: want well under 400, complete pairs, at most a pair in flight more (--parallel 2)", n, all)
	}
}

// TestRatingsSteps: --steps prints each player's Elo over the one before with the interval of the
// difference, which is the fit re-anchored at the one before (checked against --anchor), and says
// whether the interval is above 0.
func TestRatingsSteps(t *testing.T) {
	dir := t.TempDir()
	lines := `{"a":"p1","b":"p0","wins":30,"draws":0,"losses":10}
{"a":"p2","b":"p1","wins":21,"draws":0,"losses":19}
{"a":"p2","b":"p0","wins":32,"draws":0,"losses":8}
`
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := runCLI(t, "", "ratings", dir, "--anchor", "p0", "--steps", "p0,p1,p2")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	row := func(text, prefix string) []string {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.Fields(strings.NewReplacer("[", " ", "]", " ", ",", " ").Replace(strings.TrimPrefix(l, prefix)))
			}
		}
		t.Fatalf("no line %q in %q", prefix, text)
		return nil
	}
	for _, c := range []struct{ lo, hi, sep string }{{"p0", "p1", "yes"}, {"p1", "p2", "no"}} {
		step := row(out, c.hi+" over "+c.lo)
		ref, errs, code := runCLI(t, "", "ratings", dir, "--anchor", c.lo)
		if code != 0 {
			t.Fatalf("--anchor %s: code %d: %s", c.lo, code, errs)
		}
		want := row(ref, c.hi)
		if len(step) != 4 || len(want) < 3 || step[0] != want[0] || step[1] != want[1] || step[2] != want[2] || step[3] != c.sep {
			t.Errorf("step %s over %s: %q, want %q and separated %s", c.hi, c.lo, step, want, c.sep)
		}
	}
	if _, errs, code := runCLI(t, "", "ratings", dir, "--anchor", "p0", "--steps", "p0,nobody"); code == 0 || !strings.Contains(errs, `"nobody"`) {
		t.Errorf("unknown player: code %d err %q", code, errs)
	}
	if _, errs, code := runCLI(t, "", "ratings", dir, "--anchor", "p0", "--steps", "p0"); code == 0 || !strings.Contains(errs, "at least two") {
		t.Errorf("one player: code %d err %q", code, errs)
	}
}
