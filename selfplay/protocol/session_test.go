package protocol_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

func newSession(t testing.TB, mode string, extra ...string) *protocol.Session {
	t.Helper()
	argv, opts := fake(t, mode, extra...)
	ss, err := protocol.NewSession(context.Background(), argv, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ss
}

// game plays from start to the end: the session decides for the colours in engine, seeded random
// choices for the others. With observe, every action is passed to Observe.
type game struct {
	engine  [2]bool
	observe bool
	timeout time.Duration
}

func (g game) play(ss *protocol.Session, start *env.State, rng *rand.Rand) (*env.State, []env.Action, error) {
	s := start.Clone()
	var acts []env.Action
	var legal []env.Action
	for !s.IsTerminal() {
		var a env.Action
		if g.engine[s.CurrentPlayer()] {
			var err error
			if a, _, err = ss.Decide(s, g.timeout); err != nil {
				return s, acts, err
			}
		} else {
			legal = s.LegalActions(legal)
			a = legal[rng.IntN(len(legal))]
		}
		if err := s.ApplyAction(a); err != nil {
			return s, acts, err
		}
		acts = append(acts, a)
		if g.observe {
			ss.Observe(a)
		}
	}
	return s, acts, nil
}

func tokens(acts []env.Action) string {
	t := make([]string, len(acts))
	for i, a := range acts {
		t[i] = a.String()
	}
	return strings.Join(t, " ")
}

// checkMoves checks the engine's moves: the game's actions, or (found by the session's search, whose
// order of row removals may differ) actions that lead to the same final state.
func checkMoves(t *testing.T, ss *protocol.Session, start, final *env.State, acts []env.Action, exact bool) {
	t.Helper()
	if err := ss.Sync(final); err != nil {
		t.Fatal(err)
	}
	moves, err := ss.Client().Command(0, "moves")
	if err != nil {
		t.Fatal(err)
	}
	if exact {
		if moves != tokens(acts) {
			t.Fatalf("engine moves\n%s\nwant\n%s", moves, tokens(acts))
		}
		return
	}
	played, err := env.ParseTokens(moves)
	if err != nil {
		t.Fatal(err)
	}
	s := start.Clone()
	if err := env.Replay(s, played); err != nil || s.Hash() != final.Hash() || len(played) != len(acts) {
		t.Fatalf("engine moves %q (%v) do not reach the game's end; game %q", moves, err, tokens(acts))
	}
}

func TestSessionGames(t *testing.T) {
	leakCheck(t)
	ss := newSession(t, "real", "PROTOCOL_SEED=5")
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	for _, v := range []env.Variant{env.Blitz, env.Standard, env.Blitz, env.Standard} {
		for _, g := range []game{
			{engine: [2]bool{true, false}, observe: true},
			{engine: [2]bool{false, true}, observe: true},
			{engine: [2]bool{true, true}, observe: true},
			{engine: [2]bool{true, false}},
			{engine: [2]bool{false, true}},
		} {
			ss.NewGame(v)
			start := env.NewState(v)
			final, acts, err := g.play(ss, start, rng)
			if err != nil {
				t.Fatalf("%v %+v: %v", v, g, err)
			}
			checkMoves(t, ss, start, final, acts, g.observe)
			n += len(acts)
		}
	}
	if ss.Resyncs() != 0 || ss.Restarts() != 0 {
		t.Errorf("resyncs %d, restarts %d", ss.Resyncs(), ss.Restarts())
	}
	t.Logf("%d actions", n)
}

// randomState plays k random actions (fewer if the game ends) from the initial state.
func randomState(v env.Variant, k int, rng *rand.Rand) *env.State {
	s := env.NewState(v)
	var legal []env.Action
	for i := 0; i < k && !s.IsTerminal(); i++ {
		legal = s.LegalActions(legal)
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	return s
}

func TestSessionFromPosition(t *testing.T) {
	leakCheck(t)
	ss := newSession(t, "real", "PROTOCOL_SEED=6")
	rng := rand.New(rand.NewPCG(3, 4))
	for i, g := range []game{
		{engine: [2]bool{true, false}, observe: true},
		{engine: [2]bool{false, true}, observe: true},
		{engine: [2]bool{false, true}},
	} {
		mid := randomState(env.Blitz, 14+4*i, rng)
		start, err := env.ParsePosition(mid.Text(), env.Blitz)
		if err != nil {
			t.Fatal(err)
		}
		ss.NewGameFrom(start)
		final, acts, err := g.play(ss, start, rng)
		if err != nil {
			t.Fatal(err)
		}
		checkMoves(t, ss, start, final, acts, g.observe)
		if pos, _ := ss.Client().Command(0, "position"); pos != final.Text() {
			t.Errorf("engine position %q, want %q", pos, final.Text())
		}
	}
	if ss.Resyncs() != 0 {
		t.Errorf("%d resyncs", ss.Resyncs())
	}

	// Without NewGame, and with states that do not follow each other, Decide sets the engine up from
	// the state it is given.
	for i := range 3 {
		s := randomState(env.Standard, 30+17*i, rng)
		if s.IsTerminal() {
			continue
		}
		a, _, err := ss.Decide(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !s.IsLegal(a) {
			t.Fatalf("illegal %v", a)
		}
		next := *s
		next.ApplyAction(a)
		if pos, _ := ss.Client().Command(0, "position"); pos != next.Text() {
			t.Errorf("engine position %q, want %q", pos, next.Text())
		}
	}
	if ss.Resyncs() != 3 {
		t.Errorf("%d resyncs, want 3", ss.Resyncs())
	}
}

// TestSessionFaults: each fault loses the game with the right error, the process is gone, and the
// next game works on a restarted process.
func TestSessionFaults(t *testing.T) {
	leakCheck(t)
	for _, c := range []struct {
		mode string
		kind protocol.Kind
		want string // in the error message
	}{
		{"hang", protocol.KindTimeout, "timed out after 300ms (process killed); stderr: "},
		{"crash", protocol.KindExited, "crashing at genmove 3"},
		{"illegal", protocol.KindIllegal, `genmove_info: illegal action "`},
		{"garbage", protocol.KindProtocol, "hello, I am not an engine"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			once := filepath.Join(t.TempDir(), "fired")
			ss := newSession(t, c.mode, "PROTOCOL_N=3", "PROTOCOL_ONCE="+once)
			rng := rand.New(rand.NewPCG(7, 8))
			g := game{engine: [2]bool{true, false}, observe: true, timeout: 300 * time.Millisecond}
			ss.NewGame(env.Blitz)
			first := ss.Client()
			_, acts, err := g.play(ss, env.NewState(env.Blitz), rng)
			e := asError(t, err, c.kind)
			if !protocol.Forfeits(err) || !strings.Contains(err.Error(), c.want) || len(acts) != 4 {
				t.Fatalf("after %d actions: %v", len(acts), err)
			}
			if c.kind != protocol.KindIllegal && !strings.Contains(e.Stderr, "fake: ready mode="+c.mode) {
				t.Errorf("stderr %q", e.Stderr)
			}
			if c.kind == protocol.KindIllegal && !strings.Contains(e.Message, ": ") {
				t.Errorf("no reason in %q", e.Message)
			}
			reaped(t, first)

			// The same game: the session restarts once, and its new process works.
			ss.NewGame(env.Blitz)
			start := env.NewState(env.Blitz)
			final, acts, err := g.play(ss, start, rng)
			if err != nil {
				t.Fatal(err)
			}
			checkMoves(t, ss, start, final, acts, true)
			if ss.Restarts() != 1 || ss.Client() == first || ss.Resyncs() != 0 {
				t.Errorf("restarts %d, resyncs %d", ss.Restarts(), ss.Resyncs())
			}
		})
	}
}

// TestSessionRestartOncePerGame: an engine that always crashes is restarted at most once a game.
func TestSessionRestartOncePerGame(t *testing.T) {
	leakCheck(t)
	ss := newSession(t, "crash", "PROTOCOL_N=1")
	s := env.NewState(env.Standard)
	ss.NewGame(env.Standard)
	_, _, err := ss.Decide(s, 0)
	asError(t, err, protocol.KindExited)
	first := ss.Client()
	_, _, err2 := ss.Decide(s, 0) // the restart, whose process crashes too
	asError(t, err2, protocol.KindExited)
	if ss.Restarts() != 1 || ss.Client() == first {
		t.Fatalf("restarts %d", ss.Restarts())
	}
	second := ss.Client()
	start := time.Now()
	within(t, "third Decide in the game", 10*time.Second, func() {
		if _, _, err3 := ss.Decide(s, 0); err3 != err2 || ss.Restarts() != 1 {
			t.Errorf("third Decide in the game: %v, restarts %d", err3, ss.Restarts())
		}
	})
	timing(t, "third Decide in the game", time.Since(start), 100*time.Millisecond)
	reaped(t, first)
	reaped(t, second)
	ss.NewGame(env.Standard)
	if _, _, err := ss.Decide(s, 0); !errors.Is(err, protocol.ErrExited) || ss.Restarts() != 2 {
		t.Fatalf("next game: %v, restarts %d", err, ss.Restarts())
	}
	ss.Close()
	reaped(t, ss.Client())
	ss.NewGame(env.Standard)
	if _, _, err := ss.Decide(s, 0); !errors.Is(err, protocol.ErrClosed) || ss.Restarts() != 2 {
		t.Fatalf("after close: %v, restarts %d", err, ss.Restarts())
	}
}

// TestSessionFailedAnswer: a '?' answer to genmove_info is an error that keeps the process, and the
// game goes on.
func TestSessionFailedAnswer(t *testing.T) {
	leakCheck(t)
	ss := newSession(t, "refuse", "PROTOCOL_N=2")
	rng := rand.New(rand.NewPCG(5, 5))
	g := game{engine: [2]bool{true, false}, observe: true}
	ss.NewGame(env.Blitz)
	start := env.NewState(env.Blitz)
	s, acts, err := g.play(ss, start, rng)
	e := asError(t, err, protocol.KindFailed)
	if e.Message != "player fake: no idea" || !ss.Client().Alive() || !protocol.Forfeits(err) || len(acts) != 2 {
		t.Fatalf("%v after %v", err, acts)
	}
	// The caller may ask again (the fake answers this time) and play on.
	final, more, err := g.play(ss, s, rng)
	if err != nil {
		t.Fatal(err)
	}
	checkMoves(t, ss, start, final, append(acts, more...), true)
	if ss.Resyncs() != 0 || ss.Restarts() != 0 {
		t.Errorf("resyncs %d, restarts %d", ss.Resyncs(), ss.Restarts())
	}
}

// TestSessionWrongObserve: actions observed wrongly (a bogus one, one missing) are repaired by the
// search, without a new set-up.
func TestSessionWrongObserve(t *testing.T) {
	leakCheck(t)
	ss := newSession(t, "real")
	rng := rand.New(rand.NewPCG(9, 9))
	ss.NewGame(env.Standard)
	start := env.NewState(env.Standard)
	s := start.Clone()
	var acts, legal []env.Action
	for i := 0; !s.IsTerminal(); i++ {
		var a env.Action
		if s.CurrentPlayer() == env.White {
			var err error
			if a, _, err = ss.Decide(s, 0); err != nil {
				t.Fatal(err)
			}
		} else {
			legal = s.LegalActions(legal)
			a = legal[rng.IntN(len(legal))]
			switch i % 3 {
			case 0:
				ss.Observe(a)
			case 1:
				ss.Observe(env.PassAction) // wrong
			}
		}
		s.ApplyAction(a)
		acts = append(acts, a)
	}
	checkMoves(t, ss, start, s, acts, false)
	if ss.Resyncs() != 0 {
		t.Errorf("%d resyncs", ss.Resyncs())
	}
}
