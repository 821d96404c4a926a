package mcts

import (
	"math"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Config){
		"Simulations":       func(c *Config) { c.Simulations = 0 },
		"CPUCT":             func(c *Config) { c.CPUCT = math.NaN() },
		"DirichletFraction": func(c *Config) { c.DirichletFraction = 1.5 },
		"DirichletAlpha":    func(c *Config) { c.DirichletFraction, c.DirichletAlpha = 0.25, 0 },
		"LeavesInFlight":    func(c *Config) { c.LeavesInFlight = 0 },
		"Temperature":       func(c *Config) { c.Temperature = -1 },
		"GumbelConsidered":  func(c *Config) { c.Gumbel, c.GumbelConsidered = true, 0 },
		"FullFraction":      func(c *Config) { c.FullFraction = -0.1 },
	} {
		c := DefaultConfig()
		mut(&c)
		err := c.Validate()
		if err == nil || !contains(err.Error(), name) {
			t.Errorf("%s: err %v, want one naming the field", name, err)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
