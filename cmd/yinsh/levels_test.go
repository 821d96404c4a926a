package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/nets"
)

// TestLevelsCommand: yinsh levels lists the ten levels with their recipes and their calibrated Elo
// with its interval, rising with the level, in each variant (--variant); the top level is the full
// agent.
func TestLevelsCommand(t *testing.T) {
	for _, v := range []string{"standard", "blitz"} {
		out, errs, code := runCLI(t, "", "levels", "--variant", v)
		if code != 0 {
			t.Fatalf("%s: code %d: %s", v, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 11 || !strings.HasPrefix(lines[0], "level") || !strings.Contains(lines[0], "Elo, "+v+" (random = 0)") {
			t.Fatalf("%s: want a header and 10 levels:\n%s", v, out)
		}
		prev := 0.0
		for i, l := range lines[1:] {
			var elo, lo, hi float64
			f := strings.Fields(l)
			if f[0] != "level:"+strconv.Itoa(i+1) {
				t.Errorf("%s line %d: %q", v, i+1, l)
				continue
			}
			if n, err := fmt.Sscanf(strings.Join(f[1:4], " "), "%g [%g, %g]", &elo, &lo, &hi); n != 3 || err != nil || lo >= elo || elo >= hi || elo <= prev {
				t.Errorf("%s line %d: want Elo [low, high] above %v: %q (%v)", v, i+1, prev, l, err)
			}
			prev = elo
		}
		if !strings.Contains(lines[10], "the full agent") || !strings.Contains(lines[1], "random legal move") {
			t.Errorf("level 10 / level 1:\n%s\n%s", lines[10], lines[1])
		}
	}
	if _, errs, code := runCLI(t, "", "levels", "--variant", "x"); code == 0 || !strings.Contains(errs, `--variant: unknown variant "x"`) {
		t.Errorf("--variant x: code %d %q", code, errs)
	}
}

// TestPlayLevel: play --level N plays level:N, in standard and in blitz games (each variant's
// reference network); bad levels are refused naming --level, as is --level with --player; a variant
// without a reference network (blitz, hidden by nets.Hide) refuses the levels and reference.
func TestPlayLevel(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	out, errs, code := runCLI(t, "quit\n", "play", "--level", "2", "--as", "black")
	if code != 0 || !strings.Contains(out, "against level:2 (standard, network policy") || !strings.Contains(out, "level:2 plays ") {
		t.Fatalf("--level 2: code %d %q\n%s", code, errs, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--level", "0"}, "--level must be in [1, 10], got 0"},
		{[]string{"--level", "11"}, "--level must be in [1, 10], got 11"},
		{[]string{"--level", "x"}, "--level"},
		{[]string{"--level", "2", "--player", "random"}, "give one of --level, --checkpoint and --player"},
		{[]string{"--player", "level:11"}, `"level:11": level: want level:N with N in [1, 10]`},
	} {
		if _, errs, code := runCLI(t, "quit\n", append([]string{"play"}, c.args...)...); code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d %q, want %q", c.args, code, errs, c.want)
		}
	}
	// blitz has its own reference network: its levels play without --any-variant
	out, errs, code = runCLI(t, "quit\n", "play", "--level", "2", "--variant", "blitz", "--as", "black")
	if code != 0 || !strings.Contains(out, "against level:2 (blitz") || !strings.Contains(out, "level:2 plays ") {
		t.Errorf("blitz --level 2: code %d %q\n%s", code, errs, out)
	}
	nets.Hide(t, env.Blitz)
	for _, c := range []struct {
		args []string
		spec string
	}{
		{[]string{"--level", "2", "--variant", "blitz"}, "level:2"},
		{[]string{"--level", "2", "--variant", "blitz", "--any-variant"}, "level:2"},
		{[]string{"--player", "reference", "--variant", "blitz"}, "reference"},
	} {
		want := c.spec + " plays the reference network of --variant, and blitz has none"
		if _, errs, code := runCLI(t, "quit\n", append([]string{"play"}, c.args...)...); code == 0 || !strings.Contains(errs, want) {
			t.Errorf("%v without a blitz network: code %d %q, want %q", c.args, code, errs, want)
		}
	}
}

// TestArenaLevel: arena accepts level:N players (and refuses bad ones naming the field).
func TestArenaLevel(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	res := filepath.Join(t.TempDir(), "r.jsonl")
	out, errs, code := runCLI(t, "", "arena", "--a", "level:2", "--b", "random", "--games", "2", "--results", res)
	if code != 0 || !strings.Contains(out, "level:2") {
		t.Fatalf("code %d %q\n%s", code, errs, out)
	}
	if _, errs, code := runCLI(t, "", "arena", "--a", "level:0", "--b", "random", "--games", "2", "--results", ""); code == 0 || !strings.Contains(errs, "level:N with N in [1, 10]") {
		t.Errorf("level:0: code %d %q", code, errs)
	}
}
