package mcts

import (
	"math"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

func TestPrior16(t *testing.T) {
	for _, p := range []float32{1, 0.5, 1.0 / 3, 1.0 / 63, 1e-3, 1e-6, 1e-9} {
		got := encodePrior(p).float()
		if math.Abs(float64(got-p)) > float64(p)/4096 {
			t.Errorf("prior %v round-trips to %v", p, got)
		}
	}
	if encodePrior(0) != 0 || encodePrior(1e-12).float() != 0 {
		t.Error("tiny priors should encode as 0")
	}
}

// TestBackupArithmetic checks backup on a hand-built path whose player to act goes W W B B W.
func TestBackupArithmetic(t *testing.T) {
	var a arena
	who := []env.Color{env.White, env.White, env.Black, env.Black, env.White}
	for i, c := range who {
		a.nodes = append(a.nodes, node{parent: int32(i - 1), toAct: c, inflight: 1})
	}
	a.backup(4, 0.5, 0.25) // +0.5 for white
	want := []float32{0.5, 0.5, -0.5, -0.5, 0.5}
	for i, n := range a.nodes {
		if n.valueSum != want[i] || n.visits != 1 || n.inflight != 0 || n.drawSum != 0.25 {
			t.Errorf("node %d: %+v, want valueSum %v visits 1 inflight 0 drawSum 0.25", i, n, want[i])
		}
	}
	a.backup(2, 1, 0) // +1 for black from node 2 up: nodes 0,1 (white) get -1
	want = []float32{-0.5, -0.5, 0.5, -0.5, 0.5}
	for i, n := range a.nodes {
		if n.valueSum != want[i] {
			t.Errorf("after second backup node %d: valueSum %v, want %v", i, n.valueSum, want[i])
		}
	}
}
