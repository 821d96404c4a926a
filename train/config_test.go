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
		{"", "selfplay.root_value=mean", "selfplay.root_value"},
		{"", "selfplay.root_value=improved", ""},
		{"selfplay:\n  gumbel: false\n", "selfplay.root_value=improved", "selfplay.root_value"},
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

// TestConfigErrorsNameTheField: type errors and unknown keys name the line of the file (comments and
// blank lines counted) and the key's dotted path; values set by overrides are named as overrides; a
// file without keys is refused.
func TestConfigErrorsNameTheField(t *testing.T) {
	for _, c := range []struct{ yaml, set, want string }{
		{"# c\n\nvariant: blitz\n\n\nselfplay:\n  # x\n  simulations: abc\n", "", "f.yaml: line 8: selfplay.simulations: cannot unmarshal !!str `abc` into int"},
		{"selfplay:\n  simulatoins: 4\n", "", "line 2: selfplay.simulatoins: unknown key (selfplay has games,"},
		{"selfplay: 5\n", "", "line 1: selfplay is a section: want a mapping of keys, got !!int"},
		{"evaluation:\n  baselines: random\n", "", "line 2: evaluation.baselines: cannot unmarshal !!str `random` into []string"},
		{"training:\n  optimizer:\n    schedule:\n      lr: [1]\n", "", "line 4: training.optimizer.schedule.lr: cannot unmarshal !!seq into float64"},
		{"variant: blitz\n", "selfplay.games=many", "override selfplay.games: cannot unmarshal !!str `many` into int"},
		{"variant: blitz\n", "nosuch.key=1", "override nosuch: unknown key (the top level has variant,"},
	} {
		path := filepath.Join(t.TempDir(), "f.yaml")
		os.WriteFile(path, []byte(c.yaml), 0o644)
		var sets []string
		if c.set != "" {
			sets = []string{c.set}
		}
		_, err := LoadConfig(path, sets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q --set %q: %v\nwant %q", c.yaml, c.set, err, c.want)
		}
	}
	for _, empty := range []string{"", "# only a comment\n", "{}\n"} {
		path := filepath.Join(t.TempDir(), "empty.yaml")
		os.WriteFile(path, []byte(empty), 0o644)
		if _, err := LoadConfig(path, nil); err == nil || !strings.Contains(err.Error(), "empty (no keys)") {
			t.Errorf("empty config %q: %v", empty, err)
		}
	}
}

// FuzzParseConfig: any YAML text and override neither panics nor yields a config that does not
// validate; an accepted config written out as YAML parses back to the same config.
func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../configs/quickstart.yaml", "../configs/small.yaml"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "selfplay.simulations=16")
		}
	}
	f.Add([]byte("variant: blitz\nselfplay: {games: 3}\n"), "evaluation.baselines=[random, heuristic]")
	f.Add([]byte("a: &x 1\nb: *x\n"), "x.y.z=1")
	f.Add([]byte("training:\n  optimizer:\n    kind: sgd\n"), "training.optimizer.schedule.lr=0.1")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		var sets []string
		if set != "" {
			sets = []string{set}
		}
		cfg, err := ParseConfig(data, "fuzz", sets)
		if err != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("accepted config does not validate: %v", err)
		}
		y, err := cfg.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(y, "round trip", nil)
		if err != nil {
			t.Fatalf("written config does not parse: %v\n%s", err, y)
		}
		if d, _ := DiffConfigs(cfg, back); len(d) > 0 {
			t.Fatalf("round trip changed %v", d)
		}
	})
}

// TestSelfPlayFixedSettings: the self-play search settings that are not config keys have the values
// SelfPlayConfig's documentation (and configs/*.yaml) state, and the default Gumbel search plays
// the sequential-halving winner (no temperature: Gumbel-top-k's noise explores), as every shipped
// config does.
func TestSelfPlayFixedSettings(t *testing.T) {
	c := DefaultConfig()
	sc := c.SelfPlaySettings("gen").Search
	if sc.RootFPUReduction != 0.1 || sc.VirtualLoss != 1 || sc.GumbelScale != 1 || sc.GumbelCVisit != 50 {
		t.Errorf("fixed settings: root FPU %g, virtual loss %g, Gumbel scale %g, c_visit %g; documented 0.1, 1, 1, 50",
			sc.RootFPUReduction, sc.VirtualLoss, sc.GumbelScale, sc.GumbelCVisit)
	}
	if !c.SelfPlay.Gumbel || c.SelfPlay.TemperatureActions != 0 {
		t.Errorf("default self-play: gumbel %v with temperature_actions %d, want Gumbel without temperature",
			c.SelfPlay.Gumbel, c.SelfPlay.TemperatureActions)
	}
	for _, p := range []string{"quickstart", "small", "standard", "full"} {
		data, err := os.ReadFile(filepath.Join("..", "configs", p+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "temperature_actions:") {
			t.Errorf("configs/%s.yaml does not state temperature_actions (its behaviour would follow the default)", p)
		}
		if !strings.Contains(string(data), "root FPU reduction 0.1") {
			t.Errorf("configs/%s.yaml does not document the fixed search settings", p)
		}
	}
}

// TestSelfPlaySettingsRootValue: root_value and gumbel_sigma_new_visits reach the self-play and search
// configurations.
func TestSelfPlaySettingsRootValue(t *testing.T) {
	c, err := ParseConfig(nil, "t.yaml", []string{"selfplay.root_value=improved", "selfplay.gumbel_sigma_new_visits=true"})
	if err != nil {
		t.Fatal(err)
	}
	s := c.SelfPlaySettings("g")
	if !s.ImprovedValue || !s.Search.GumbelSigmaNewVisits {
		t.Fatalf("improved %v, sigma new visits %v", s.ImprovedValue, s.Search.GumbelSigmaNewVisits)
	}
	d := DefaultConfig()
	if s := d.SelfPlaySettings("g"); s.ImprovedValue || s.Search.GumbelSigmaNewVisits {
		t.Fatalf("defaults: improved %v, sigma new visits %v", s.ImprovedValue, s.Search.GumbelSigmaNewVisits)
	}
}
