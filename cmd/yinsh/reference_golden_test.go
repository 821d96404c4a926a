package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateReference = flag.Bool("update-reference", false, "rewrite testdata/reference-search.golden from the current output")

// TestReferenceSearchGolden pins what the reference network's search answers on positions of a
// real game (every 9th ply of a boardspace record); the file was checked equal to the output of the binary before the search-settings refactoring (d47d90f), over these and four more games' positions, with PUCT one leaf at a time, PUCT with 8
// leaves in flight and Gumbel: visits, priors, Q, PV and the best action. A refactoring of the
// search, the players' settings or the network code must leave them as they are (the timing at the
// end of the "search:" line is dropped).
func TestReferenceSearchGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("searches 30 positions with the reference network")
	}
	sgf := "testdata/reference-game.sgf" // shared/data/boardspace/Y-phiulbrich-BestBot-2026-03-21-2221.sgf
	out, errs, code := runCLI(t, "", "replay", "--legal-counts", sgf)
	if code != 0 {
		t.Fatalf("replay %s: %s", sgf, errs)
	}
	var tokens []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 {
			tokens = append(tokens, f[3])
		}
	}
	timing := regexp.MustCompile(` [0-9.]+s$`)
	var got strings.Builder
	for k := 0; k < len(tokens); k += 9 {
		moves := strings.Join(tokens[:k], " ")
		for _, extra := range [][]string{{"--leaves-in-flight", "1"}, {}, {"--gumbel"}} {
			args := append([]string{"search", "--checkpoint", "reference", "--sims", "64", "--top", "5", "--moves", moves}, extra...)
			out, errs, code := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("%v: %s", args, errs)
			}
			fmt.Fprintf(&got, "## ply %d %s\n", k, strings.Join(extra, " "))
			for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				got.WriteString(timing.ReplaceAllString(l, "") + "\n")
			}
		}
	}
	golden := "testdata/reference-search.golden"
	if *updateReference {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestReferenceSearchGolden -update-reference writes it)", err)
	}
	if got.String() != string(want) {
		gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s line %d:\n got %q\nwant %q", filepath.Base(golden), i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, want %d", filepath.Base(golden), len(gl), len(wl))
	}
}
