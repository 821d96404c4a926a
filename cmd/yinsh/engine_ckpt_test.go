package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEngineWithCheckpoint drives the engine with a network player: genmove and eval report values and
// visits from the search.
func TestEngineWithCheckpoint(t *testing.T) {
	ck := filepath.Join(t.TempDir(), "net.ckpt")
	if _, errs, code := runCLI(t, "", "model", "init", "--net", "tiny", "--seed", "3", "--out", ck); code != 0 {
		t.Fatalf("model init: %s", errs)
	}
	out, errs, code := runCLI(t, "genmove_info\neval 2\nresult\nquit\n", "engine", "--player", ck, "--sims", "16", "--variant", "blitz")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, want := range []string{"= action ", "\nwdl ", " visits ", "\n= ongoing\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("engine output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "wdl unknown") {
		t.Errorf("a network player must report its value:\n%s", out)
	}
}
