package main

import (
	"strconv"
	"strings"
	"testing"
)

// blitzWin is a blitz position where white's only winning move is d5-f5 (it flips e5 and completes
// the row e3-e7); see mcts/search_test.go winPosition.
const blitzWin = "W...W......B...........W......wwbww.....................B.......B........B......WB..W w 0-0"

func TestSearchCommandFindsWin(t *testing.T) {
	for _, args := range [][]string{
		{"--sims", "300", "--evaluator", "rollout:8"},
		{"--sims", "400", "--evaluator", "uniform"},
		{"--sims", "100", "--evaluator", "rollout:8", "--gumbel"},
	} {
		out, errs, code := runCLI(t, "", append([]string{"search", "--variant", "blitz", "--position", blitzWin}, args...)...)
		if code != 0 {
			t.Fatalf("%v: code %d err %q", args, code, errs)
		}
		if lastLine(out) != "best: d5-f5" || !strings.Contains(out, "\npv: d5-f5 xe3-e7 x") {
			t.Fatalf("%v: output\n%s", args, out)
		}
		// the table lists the winning move first, with Q near +1
		i := strings.Index(out, "\nd5-f5 ")
		if i < 0 {
			t.Fatalf("%v: table\n%s", args, out)
		}
		f := strings.Fields(out[i+1 : i+1+strings.Index(out[i+1:], "\n")])
		if q, err := strconv.ParseFloat(f[3], 64); len(f) != 5 || err != nil || q < 0.9 {
			t.Fatalf("%v: row %q, want action visits prior q policy with q > 0.9", args, f)
		}
	}
}

func TestSearchCommandDeterministic(t *testing.T) {
	strip := func(s string) string { // the search line holds the elapsed time
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "search:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	args := []string{"search", "--moves", "e5 f6 e6 f7 e7 f8 e8 f9 e9 f10", "--sims", "300", "--evaluator", "rollout:2", "--seed", "7"}
	a, _, c1 := runCLI(t, "", args...)
	b, _, c2 := runCLI(t, "", args...)
	if c1 != 0 || c2 != 0 || strip(a) != strip(b) {
		t.Fatalf("two runs with seed 7 differ:\n%s\n---\n%s", a, b)
	}
	if !strings.HasPrefix(a, "position: ") || !strings.Contains(a, "to act: white (move)") {
		t.Fatalf("output\n%s", a)
	}
}

func TestSearchCommandFlags(t *testing.T) {
	var got *SearchOptions
	cmd := newCmdSearch(func(o *SearchOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--variant", "blitz", "--moves", "e5 f6", "--sims", "64", "--evaluator", "rollout:3", "--gumbel", "--seed", "9", "--top", "4"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Sims != 64 || got.Evaluator != "rollout:3" || !got.Gumbel || got.Seed != 9 || got.Top != 4 || got.State.Ply() != 2 || got.State.Variant().String() != "blitz" {
		t.Fatalf("options %+v", got)
	}
}

func TestSearchCommandErrors(t *testing.T) {
	ended := "W...W......B...........W......wwbww.....................B.......B........B......WB..W w 0-0"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--evaluator", "net"}, "want uniform or rollout:N"},
		{[]string{"search", "--evaluator", "rollout:0"}, "rollout:N with N in 1..10000"},
		{[]string{"search", "--sims", "0"}, "--sims"},
		{[]string{"search", "--top", "0"}, "--top"},
		{[]string{"search", "--moves", "e5 e5"}, "--moves"},
		{[]string{"search", "--variant", "blitz", "--position", ended, "--moves", "d5-f5 xe3-e7 xa2"}, "terminal"},
	} {
		_, errs, code := runCLI(t, "", tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want it to mention %q", tc.args, code, errs, tc.want)
		}
	}
}

func TestBenchMCTSCommand(t *testing.T) {
	out, errs, code := runCLI(t, "", "bench", "mcts", "--sims", "100", "--positions", "3")
	if code != 0 {
		t.Fatalf("code %d err %q", code, errs)
	}
	last := lastLine(out)
	v, err := strconv.ParseFloat(strings.TrimPrefix(last, "sims/s: "), 64)
	if !strings.HasPrefix(last, "sims/s: ") || err != nil || v <= 0 {
		t.Fatalf("last line %q", last)
	}
	if !strings.Contains(out, "positions: 3\n") || !strings.Contains(out, "simulations: 300\n") || !strings.Contains(out, "bytes/node: ") {
		t.Fatalf("output\n%s", out)
	}
	if _, errs, code := runCLI(t, "", "bench", "mcts", "--positions", "0"); code == 0 || !strings.Contains(errs, "--positions") {
		t.Fatalf("--positions 0: code %d err %q", code, errs)
	}
}
