package mcts

import (
	"math"
	"reflect"
	"testing"
)

func TestNoiseIsRemovedAfterSearch(t *testing.T) {
	s := midgame(t, 9, 12)
	cfg := DefaultConfig()
	cfg.Simulations, cfg.DirichletFraction, cfg.DirichletAlpha = 200, 0.5, 0.3
	tr := newTree(t, cfg, Uniform{})
	tr.Reset(s)
	res, err := tr.Search(seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	u := 1 / float32(len(res.Children))
	for _, c := range res.Children {
		if math.Abs(float64(c.Prior-u)) > 1e-3*float64(u) {
			t.Fatalf("prior of %s is %v after search, want the clean %v", c.Action, c.Prior, u)
		}
	}
	// the noise changed the search: visits are not what a noiseless search gives
	cfg.DirichletFraction = 0
	tr2 := newTree(t, cfg, Uniform{})
	tr2.Reset(s)
	res2, _ := tr2.Search(seeded(1))
	if reflect.DeepEqual(res.Policy, res2.Policy) {
		t.Fatal("noise had no effect on the visits")
	}
}
