package main

import (
	"strings"
	"testing"
)

func TestBenchSelfplay(t *testing.T) {
	out, errs, code := runCLI(t, "", "bench", "selfplay", "--variant", "blitz", "--sims", "4", "--games", "2", "--parallel", "2", "--batch", "4", "--window", "2000", "--time", "200ms")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, k := range []string{"raw-positions/s: ", "selfplay-positions/s: ", "ratio: ", "games/hour: ", "mean-batch: ", "window-positions: ", "peak-rss-mib: "} {
		if !strings.Contains(out, k) {
			t.Errorf("output lacks %q: %q", k, out)
		}
	}
}
