package main

import (
	"os"
	"path/filepath"
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
