package protocol_test

import (
	"math/rand/v2"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// BenchmarkGenmoveRandom measures the protocol's cost per engine decision: a Session on the real
// engine with the random player (which decides in microseconds) plays white against in-process random
// choices for black; one op is one Decide, i.e. the play command carrying black's observed actions
// plus genmove_info, both round trips through the pipes, with the parsing on both sides. Game set-ups
// (newgame at each game's first decision) are included, amortised.
func BenchmarkGenmoveRandom(b *testing.B) {
	ss := newSession(b, "real", "PROTOCOL_SEED=1")
	rng := rand.New(rand.NewPCG(1, 1))
	var legal []env.Action
	s := env.NewState(env.Standard)
	ss.NewGame(env.Standard)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for s.CurrentPlayer() != env.White || s.IsTerminal() {
			if s.IsTerminal() {
				s = env.NewState(env.Standard)
				ss.NewGame(env.Standard)
				continue
			}
			legal = s.LegalActions(legal)
			a := legal[rng.IntN(len(legal))]
			s.ApplyAction(a)
			ss.Observe(a)
		}
		a, _, err := ss.Decide(s, 0)
		if err != nil {
			b.Fatal(err)
		}
		s.ApplyAction(a)
		ss.Observe(a)
	}
	b.StopTimer()
	if ss.Resyncs() != 0 {
		b.Fatalf("%d resyncs", ss.Resyncs())
	}
}
