package train

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigDefaultsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c2, err := ParseConfig(nil, "empty", nil)
	if err != nil || c2.SelfPlay.Simulations != c.SelfPlay.Simulations {
		t.Fatalf("empty config: %v", err)
	}
}

func TestConfigOverridesAndErrors(t *testing.T) {
	src := []byte("variant: standard\nselfplay:\n  simulations: 100\n")
	c, err := ParseConfig(src, "x.yaml", []string{"selfplay.simulations=32", "training.optimizer.schedule.lr=0.01", "evaluation.baselines=[random, heuristic]", "seed=9"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Variant != "standard" || c.SelfPlay.Simulations != 32 || c.Training.Optimizer.Schedule.LR != 0.01 || len(c.Evaluation.Baselines) != 2 || c.Seed != 9 {
		t.Fatalf("%+v", c)
	}
	for _, tc := range []struct {
		yaml, override, want string
	}{
		{"selfplay:\n  simulatons: 3\n", "", "simulatons"},
		{"bogus: 1\n", "", "bogus"},
		{"", "selfplay.simulations=0", "selfplay.simulations"},
		{"", "selfplay.c_puct=-1", "selfplay.c_puct"},
		{"", "variant=chess", "variant"},
		{"", "evaluation.gate=maybe", "evaluation.gate"},
		{"", "evaluation.baselines=[rollout:x]", "evaluation.baselines[0]"},
		{"", "selfplay.opponents=[random, gnugo]", "selfplay.opponents[1]"},
		{"", "selfplay.opponent_fraction=0.5", "selfplay.opponents"},
		{"selfplay:\n  opponents: [rollout:8]\n", "selfplay.opponent_fraction=1.5", "selfplay.opponent_fraction"},
		{"selfplay:\n  opponents: [rollout:8]\n", "selfplay.opponent_fraction=0.5", ""},
		{"", "net.preset=huge", "net.preset"},
		{"", "training.optimizer.kind=rmsprop", "training.optimizer"},
		{"", "backend=gonum", ""},
		{"", "device=cuda", "device"},
		{"", "nokey", "key=value"},
		{"- a\n- b\n", "", "mapping"},
	} {
		var ov []string
		if tc.override != "" {
			ov = []string{tc.override}
		}
		_, err := ParseConfig([]byte(tc.yaml), "t.yaml", ov)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q %q: %v", tc.yaml, tc.override, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %q: error %v, want it to name %q", tc.yaml, tc.override, err, tc.want)
		}
	}
}

func TestShippedConfigsLoad(t *testing.T) {
	files, _ := filepath.Glob("../configs/*.yaml")
	n := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "net-") {
			continue // architecture files for `yinsh model init`
		}
		n++
		if _, err := LoadConfig(f, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		data, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(data), "\n") {
			l := strings.TrimSpace(line)
			if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "-") && strings.HasSuffix(l, ":") == false && !strings.Contains(line, "#") {
				t.Errorf("%s: field without a comment: %q", f, line)
			}
		}
	}
	if n == 0 {
		t.Fatal("no training configs in configs/")
	}
}
