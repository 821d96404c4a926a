package mcts

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"testing"
)

// goldenDigest hashes everything a search result reports, floats by their bits.
func goldenDigest(results []*Result) string {
	h := sha256.New()
	w := func(v any) { binary.Write(h, binary.LittleEndian, v) }
	for _, r := range results {
		w(uint16(r.Action))
		for _, p := range r.Policy {
			w(math.Float32bits(p))
		}
		for _, c := range r.Children {
			w(uint16(c.Action))
			w(int64(c.Visits))
			w(math.Float32bits(c.Prior))
			w(math.Float32bits(c.Q))
			w(math.Float32bits(c.Policy))
		}
		w(math.Float32bits(r.Value))
		for _, x := range r.WDL {
			w(math.Float32bits(x))
		}
		for _, a := range r.PV {
			w(uint16(a))
		}
		w(int64(r.Simulations))
		w(int64(r.Visits))
		w(r.Full)
		w(int64(r.Collisions))
		w(r.TimeUp)
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// TestGoldenSearches pins the results of untimed searches (PUCT and Gumbel, with noise, shuffling,
// the playout cap, leaves in flight and tree reuse) to digests recorded before the package was
// refactored: the same seed must keep giving the same search, bit for bit. Float results depend
// on the architecture's fused multiply-adds, so the digests are amd64's.
func TestGoldenSearches(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("digests recorded on amd64; %s may fuse multiply-adds differently", runtime.GOARCH)
	}
	for _, tc := range []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"puct", func(c *Config) {}, "469baaaabe697932abb5a849"},
		{"puct-seq", func(c *Config) { c.LeavesInFlight = 1 }, "1afae2e8df7d69093aa71c43"},
		{"puct-noise-shuffle-cap", func(c *Config) {
			c.DirichletFraction, c.ShuffleChildren, c.FullFraction, c.FastSimulations, c.Temperature = 0.25, true, 0.5, 40, 1
		}, "54c8806a06ab5e19e0cbca5e"},
		{"gumbel", func(c *Config) { c.Gumbel = true }, "738ea1cb2cb5e2733217c681"},
		{"gumbel-seq-8", func(c *Config) { c.Gumbel, c.LeavesInFlight, c.GumbelConsidered = true, 1, 8 }, "95ad56b1d2f5a683780eb864"},
		{"gumbel-deterministic", func(c *Config) { c.Gumbel, c.GumbelScale = true, 0 }, "f7fb78d6d435ba662f0c4509"},
		// changed on purpose: the temperature samples among visited actions only (was 0e8508c9f3933e18df46a0fd)
		{"gumbel-temperature", func(c *Config) { c.Gumbel, c.Temperature = true, 1 }, "c6096e728defceddd3cc1fc6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations = 300
			tc.set(&cfg)
			var results []*Result
			for pos := range 3 {
				s := midgame(t, uint64(40+pos), 8+6*pos)
				tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 7})
				tr.Reset(s)
				rng := seeded(uint64(pos))
				for range 3 { // tree reuse across the actions of a game
					if tr.Root().IsTerminal() {
						break
					}
					r, err := tr.Search(rng)
					if err != nil {
						t.Fatal(err)
					}
					results = append(results, r)
					if err := tr.Advance(r.Action); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := goldenDigest(results); got != tc.want {
				t.Errorf("digest %s, want %s", got, tc.want)
			}
		})
	}
}

// TestGoldenImprovedValue pins the results added after TestGoldenSearches' digests were recorded:
// ImprovedValue and ImprovedWDL of Gumbel searches with tree reuse, and the whole result with
// GumbelSigmaNewVisits (which changes the searches after the first of each game, where visits were
// kept). Recorded when they were introduced.
func TestGoldenImprovedValue(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("digests recorded on amd64; %s may fuse multiply-adds differently", runtime.GOARCH)
	}
	for _, tc := range []struct {
		name     string
		newSigma bool
		want     string
	}{
		{"gumbel", false, "0aee4bea3ccfd85081802de9"},
		{"gumbel-sigma-new-visits", true, "26d92d75d644a12d805fcf00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Simulations, cfg.Gumbel, cfg.GumbelSigmaNewVisits = 300, true, tc.newSigma
			h := sha256.New()
			w := func(v any) { binary.Write(h, binary.LittleEndian, v) }
			for pos := range 3 {
				s := midgame(t, uint64(40+pos), 8+6*pos)
				tr := newTree(t, cfg, Rollout{Playouts: 1, Seed: 7})
				tr.Reset(s)
				rng := seeded(uint64(pos))
				for range 3 {
					if tr.Root().IsTerminal() {
						break
					}
					r, err := tr.Search(rng)
					if err != nil {
						t.Fatal(err)
					}
					w([]byte(goldenDigest([]*Result{r})))
					w(math.Float32bits(r.ImprovedValue))
					for _, x := range r.ImprovedWDL {
						w(math.Float32bits(x))
					}
					if err := tr.Advance(r.Action); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := fmt.Sprintf("%x", h.Sum(nil)[:12]); got != tc.want {
				t.Errorf("digest %s, want %s", got, tc.want)
			}
		})
	}
}
