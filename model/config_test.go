package model

import (
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func configsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "configs")
}

func TestPresetFilesMatchPresets(t *testing.T) {
	for _, name := range PresetNames() {
		want, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadConfig(filepath.Join(configsDir(), "net-"+name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("configs/net-%s.yaml = %+v, preset %+v", name, got, want)
		}
		if err := want.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		if r, err := ResolveConfig(name); err != nil || r != want {
			t.Errorf("ResolveConfig(%q) = %+v, %v", name, r, err)
		}
	}
	if c, _ := Preset("small"); c.Blocks != 6 || c.Channels != 64 {
		t.Fatalf("small preset is %+v, want 6 blocks x 64 channels", c)
	}
	if _, err := Preset("huge"); err == nil || !strings.Contains(err.Error(), "huge") {
		t.Fatalf("unknown preset: %v", err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"channels: 16\nblocks: 2\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\nchanels: 3\n", "chanels"},
		{"channels: 0\nblocks: 2\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n", "channels = 0"},
		{"channels: 8\nblocks: -1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n", "blocks = -1"},
		{"channels: 8\nblocks: 1\npolicy_channels: 65\nvalue_channels: 1\nvalue_hidden: 8\n", "policy_channels = 65"},
		{"channels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 0\nvalue_hidden: 8\n", "value_channels = 0"},
		{"channels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 5000\n", "value_hidden = 5000"},
		{"input_planes: 14\nchannels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n", "input_planes = 14"},
		{"channels: [1]\n", "line 1"},
		{"", "empty"},
	} {
		_, err := ParseConfig(strings.NewReader(c.yaml), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "x.yaml") {
			t.Errorf("%q: error %v, want one naming %q and the file", c.yaml, err, c.want)
		}
	}
	c, err := ParseConfig(strings.NewReader("channels: 8\nblocks: 1\npolicy_channels: 2\nvalue_channels: 1\nvalue_hidden: 8\n"), "ok.yaml")
	if err != nil || c.InputPlanes != 15 {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ResolveConfig("/nonexistent/net.yaml"); err == nil {
		t.Fatal("missing file resolved")
	}
}

func TestFLOPs(t *testing.T) {
	c, _ := Preset("small")
	// stem 2·64·15·9·121 + 12 convs 2·64·64·9·121 + heads
	want := int64(2*64*15*9*121 + 12*2*64*64*9*121 + 2*64*6*121 + 2*4*121*2142 + 2*2*121*64 + 2*64*3)
	if got := c.FLOPsPerPosition(); got != want {
		t.Fatalf("FLOPs %d, want %d", got, want)
	}
}

func TestSchedules(t *testing.T) {
	const eps = 1e-12
	for _, c := range []struct {
		s    ScheduleConfig
		t    int64
		want float64
	}{
		{ScheduleConfig{Kind: "constant", LR: 0.1}, 0, 0.1},
		{ScheduleConfig{Kind: "constant", LR: 0.1}, 1e6, 0.1},
		{ScheduleConfig{Kind: "step", LR: 0.1, StepSize: 10, Gamma: 0.5}, 9, 0.1},
		{ScheduleConfig{Kind: "step", LR: 0.1, StepSize: 10, Gamma: 0.5}, 10, 0.05},
		{ScheduleConfig{Kind: "step", LR: 0.1, StepSize: 10, Gamma: 0.5}, 35, 0.0125},
		{ScheduleConfig{Kind: "cosine", LR: 0.1, TotalSteps: 100, MinLR: 0.01}, 0, 0.1},
		{ScheduleConfig{Kind: "cosine", LR: 0.1, TotalSteps: 100, MinLR: 0.01}, 50, 0.055},
		{ScheduleConfig{Kind: "cosine", LR: 0.1, TotalSteps: 100, MinLR: 0.01}, 100, 0.01},
		{ScheduleConfig{Kind: "cosine", LR: 0.1, TotalSteps: 100, MinLR: 0.01}, 1000, 0.01},
		{ScheduleConfig{Kind: "constant", LR: 0.1, WarmupSteps: 4}, 0, 0.02},
		{ScheduleConfig{Kind: "constant", LR: 0.1, WarmupSteps: 4}, 3, 0.08},
		{ScheduleConfig{Kind: "constant", LR: 0.1, WarmupSteps: 4}, 4, 0.1},
	} {
		if err := c.s.Validate(); err != nil {
			t.Fatalf("%+v: %v", c.s, err)
		}
		if got := c.s.At(c.t); math.Abs(got-c.want) > eps {
			t.Errorf("%+v at %d = %g, want %g", c.s, c.t, got, c.want)
		}
	}
	for _, c := range []struct {
		s    ScheduleConfig
		want string
	}{
		{ScheduleConfig{Kind: "linear", LR: 0.1}, "kind"},
		{ScheduleConfig{Kind: "constant", LR: 0}, "lr"},
		{ScheduleConfig{Kind: "step", LR: 0.1, Gamma: 0.5}, "step_size"},
		{ScheduleConfig{Kind: "step", LR: 0.1, StepSize: 1, Gamma: 2}, "gamma"},
		{ScheduleConfig{Kind: "cosine", LR: 0.1}, "total_steps"},
		{ScheduleConfig{Kind: "cosine", LR: 0.1, TotalSteps: 5, MinLR: 0.2}, "min_lr"},
		{ScheduleConfig{Kind: "constant", LR: 0.1, WarmupSteps: -1}, "warmup_steps"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %s", c.s, err, c.want)
		}
	}
}

func TestOptimizerValidate(t *testing.T) {
	for _, o := range []OptimizerConfig{DefaultSGD(), DefaultAdamW()} {
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	bad := []struct {
		f    func(*OptimizerConfig)
		want string
	}{
		{func(o *OptimizerConfig) { o.Kind = "adam" }, "kind"},
		{func(o *OptimizerConfig) { o.Momentum = 1 }, "momentum"},
		{func(o *OptimizerConfig) { o.WeightDecay = -1 }, "weight_decay"},
		{func(o *OptimizerConfig) { o.ValueWeight = 0 }, "value_weight"},
		{func(o *OptimizerConfig) { o.Schedule.LR = -1 }, "lr"},
	}
	for _, b := range bad {
		o := DefaultSGD()
		b.f(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("error %v, want one naming %s", err, b.want)
		}
	}
	a := DefaultAdamW()
	a.Eps = 0
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "eps") {
		t.Errorf("eps: %v", err)
	}
	for name, want := range map[string]bool{
		"stem.conv.weight": true, "tower.3.conv2.weight": true, "policy.fc.weight": true,
		"stem.bn.weight": false, "tower.0.bn1.weight": false, "policy.fc.bias": false, "value.bn.running_var": false,
	} {
		if IsDecayed(name) != want {
			t.Errorf("IsDecayed(%s) = %v", name, !want)
		}
	}
}

func TestSoftmax(t *testing.T) {
	inf := float32(math.Inf(-1))
	x := []float32{0, float32(math.Log(3)), inf, inf, inf, inf}
	Softmax(x, 3)
	want := []float32{0.25, 0.75, 0, 0, 0, 0}
	for i := range x {
		if math.Abs(float64(x[i]-want[i])) > 1e-6 {
			t.Fatalf("Softmax = %v, want %v", x, want)
		}
	}
}
