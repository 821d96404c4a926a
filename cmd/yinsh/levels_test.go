package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/nets"
)

// TestLevelsCommand: yinsh levels lists the ten levels with their recipes, the top level the full
// agent, and no Elo yet (not calibrated).
func TestLevelsCommand(t *testing.T) {
	out, errs, code := runCLI(t, "", "levels")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 || !strings.HasPrefix(lines[0], "level") {
		t.Fatalf("want a header and 10 levels:\n%s", out)
	}
	for i, l := range lines[1:] {
		if f := strings.Fields(l); f[0] != "level:"+strconv.Itoa(i+1) || !strings.Contains(l, "not calibrated") {
			t.Errorf("line %d: %q", i+1, l)
		}
	}
	if !strings.Contains(lines[10], "the full agent") || !strings.Contains(lines[1], "random legal move") {
		t.Errorf("level 10 / level 1:\n%s\n%s", lines[10], lines[1])
	}
}

// TestPlayLevel: play --level N plays level:N, in standard and in blitz games (each variant's
// reference network); bad levels are refused naming --level, as is --level with --player; a variant
// without a reference network (blitz, hidden by nets.Hide) refuses the levels and reference.
func TestPlayLevel(t *testing.T) {
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	out, errs, code := runCLI(t, "quit\n", "play", "--level", "3", "--as", "black")
	if code != 0 || !strings.Contains(out, "against level:3 (standard, network policy") || !strings.Contains(out, "level:3 plays ") {
		t.Fatalf("--level 3: code %d %q\n%s", code, errs, out)
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
