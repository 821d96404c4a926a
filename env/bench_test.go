package env

import (
	"math/rand/v2"
	"testing"
)

// midgameStates returns states from random games, 20 actions after placement.
func midgameStates(n int) []*State {
	r := rand.New(rand.NewPCG(3, 4))
	var out []*State
	var buf []Action
	for len(out) < n {
		s := NewState(Standard)
		for i := 0; i < 30 && !s.IsTerminal(); i++ {
			buf = s.LegalActions(buf)
			s.apply(buf[r.IntN(len(buf))])
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}

func BenchmarkLegalActions(b *testing.B) {
	states := midgameStates(64)
	buf := make([]Action, 0, 256)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = states[i%len(states)].LegalActions(buf)
		i++
	}
}

func BenchmarkApplyAction(b *testing.B) {
	states := midgameStates(64)
	legal := make([][]Action, len(states))
	for i, s := range states {
		legal[i] = s.LegalActions(nil)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k := i % len(states)
		s := *states[k]
		if err := s.ApplyAction(legal[k][i%len(legal[k])]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkRandomPlayout(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]Action, 0, 256)
	root := NewState(Standard)
	b.ReportAllocs()
	for b.Loop() {
		s := *root
		RandomPlayout(&s, r, buf)
	}
}

func BenchmarkObservation(b *testing.B) {
	states := midgameStates(64)
	dst := make([]float32, ObservationSize)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		states[i%len(states)].Observation(dst)
		i++
	}
}

func BenchmarkLegalMask(b *testing.B) {
	states := midgameStates(64)
	mask := make([]bool, NumActions)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		states[i%len(states)].LegalMask(mask)
		i++
	}
}
