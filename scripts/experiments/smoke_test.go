// Package experiments holds the smoke test of the research programs in its subdirectories: each
// builds and runs on its smallest input (cd scripts/experiments && go test ./...).
package experiments

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgramsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three programs")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./...: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name string
		args []string
		fail bool   // the run is expected to exit non-zero
		want string // in its output
	}{
		{"openings", []string{"-pairs", "1", "-sims", "2", "-k", "0"}, false, "distinct"},
		{"placement", []string{"-games", "2", "-sims", "2"}, false, "prior uniform vs rollout:2: 2 games"},
		{"valuecheck", nil, true, "valuecheck:"}, // needs a checkpoint and games: refuses clearly
		{"valuecheck", []string{"-help"}, false, "-checkpoint"},
	} {
		out, err := exec.Command(filepath.Join(bin, tc.name), tc.args...).CombinedOutput()
		if (err != nil) != tc.fail || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s %v: error %v (want failure: %v), output lacks %q:\n%s", tc.name, tc.args, err, tc.fail, tc.want, out)
		}
	}
}
