package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// runCLI runs the CLI in-process and returns stdout, stderr and the exit code. The streams are
// SyncBuffers: a command writes to them from several goroutines (a training run's logs, its local
// workers' logs and its progress bars all go to stderr), as the real os.Stdout and os.Stderr allow.
func runCLI(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb testenv.SyncBuffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestPerftCommand(t *testing.T) {
	out, errs, code := runCLI(t, "", "perft", "--depth", "2", "--moves", "g2 e7 g3 e2 g4 g7 g5 e4 g6 c6")
	if code != 0 || lastLine(out) != "3825" {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	out, _, code = runCLI(t, "", "perft", "--depth", "1", "--divide")
	if code != 0 || lastLine(out) != "85" || !strings.HasPrefix(out, "a2: 1\n") {
		t.Fatalf("divide: %q", out)
	}
	_, errs, code = runCLI(t, "", "perft", "--depth", "1", "--moves", "e5 e5")
	if code == 0 || !strings.Contains(errs, `ply 2 "e5"`) || !strings.Contains(errs, "occupied") {
		t.Fatalf("illegal --moves: code %d err %q", code, errs)
	}
	_, errs, code = runCLI(t, "", "perft", "--position", "nonsense w 0-0")
	if code == 0 || !strings.Contains(errs, "--position") {
		t.Fatalf("bad --position: code %d err %q", code, errs)
	}
}

func TestReplayCommand(t *testing.T) {
	game := "# opening\ne5 f6 e6 f7 e7 f8\ne8 f9 e9 f10 # rings placed\ne5-e4\n"
	out, errs, code := runCLI(t, game, "replay", "--legal-counts", "-")
	if code != 0 {
		t.Fatalf("code %d err %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "1 w 85 e5" || lines[1] != "2 b 84 f6" || lastLine(out) != "result: ongoing" || len(lines) != 13 {
		t.Fatalf("output %q", out)
	}
	_, errs, code = runCLI(t, "e5 f6 e6 f7 e7 f8 e8 f9 e9 f10\n\ne5-e7\n", "replay", "-")
	if code == 0 || !strings.Contains(errs, `line 3: ply 11 "e5-e7"`) || !strings.Contains(errs, "illegal action") {
		t.Fatalf("illegal: code %d err %q", code, errs)
	}
	_, errs, code = runCLI(t, "e5 zz9\n", "replay", "-")
	if code == 0 || !strings.Contains(errs, `line 1: token "zz9"`) {
		t.Fatalf("malformed: code %d err %q", code, errs)
	}
}

func TestReplaySGF(t *testing.T) {
	files, _ := filepath.Glob("../../env/testdata/boardspace/*.sgf")
	if len(files) != 5 {
		t.Fatalf("%d records", len(files))
	}
	for _, f := range files {
		out, errs, code := runCLI(t, "", "replay", "--legal-counts", f)
		if code != 0 || !strings.HasPrefix(lastLine(out), "result: ") || lastLine(out) == "result: ongoing" {
			t.Fatalf("%s: code %d out %q err %q", f, code, out, errs)
		}
	}
	data, _ := os.ReadFile(files[0])
	bad := strings.Replace(string(data), "place wr  G 2", "place wr  Z 2", 1)
	_, errs, code := runCLI(t, bad, "replay", "--sgf", "-")
	if code == 0 || !strings.Contains(errs, "sgf line") {
		t.Fatalf("bad sgf: code %d err %q", code, errs)
	}
}

func TestShowCommand(t *testing.T) {
	out, _, code := runCLI(t, "", "show", "--moves", "e5")
	if code != 0 || !strings.Contains(out, "position: ") || !strings.Contains(out, "legal (84)") || !strings.Contains(out, "black to place a ring") {
		t.Fatalf("show: %q", out)
	}
}

func TestBenchPlayouts(t *testing.T) {
	out, errs, code := runCLI(t, "", "bench", "playouts", "--games", "200", "--seed", "3", "--variant", "blitz")
	if code != 0 {
		t.Fatalf("code %d err %q", code, errs)
	}
	keys := []string{"games/s: ", "actions/game: ", "white: ", "black: ", "draw: "}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(keys) {
		t.Fatalf("output %q", out)
	}
	for i, k := range keys {
		if !strings.HasPrefix(lines[i], k) {
			t.Fatalf("line %d %q, want prefix %q", i, lines[i], k)
		}
	}
	// same seed, same statistics
	out2, _, _ := runCLI(t, "", "bench", "playouts", "--games", "200", "--seed", "3", "--variant", "blitz")
	if strings.SplitN(out, "\n", 2)[1] != strings.SplitN(out2, "\n", 2)[1] {
		t.Fatal("not reproducible")
	}
}

func TestHelpListsCommands(t *testing.T) {
	out, _, code := runCLI(t, "", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, c := range []string{"perft", "replay", "show", "bench"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("help lacks %s", c)
		}
	}
}
