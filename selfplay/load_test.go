package selfplay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// countingNet is a gonum network whose Close is counted.
type countingNet struct {
	*gonum.Net
	closed *int
}

func (n countingNet) Close() error { *n.closed++; return n.Net.Close() }

// TestPlayerOptionsLoad: a checkpoint player's network comes from PlayerOptions.Load (the backend)
// when it is set, and the factory's closer closes it.
func TestPlayerOptionsLoad(t *testing.T) {
	path := checkpointFile(t, t.TempDir(), 4)
	loads, closed := 0, 0
	load := func(p string) (model.Net, error) {
		loads++
		n, err := gonum.Load(p)
		return countingNet{n, &closed}, err
	}
	f, closer, err := OpenPlayer(path, PlayerOptions{Search: Search{Sims: 4}, Variant: env.Blitz, Load: load})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f(1)
	if err != nil {
		t.Fatal(err)
	}
	s := env.NewState(env.Blitz)
	if _, err := p.Decide(s); err != nil {
		t.Fatal(err)
	}
	if loads != 1 || closed != 0 {
		t.Fatalf("%d loads, %d closes before Close", loads, closed)
	}
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	if closed != 1 {
		t.Fatalf("network closed %d times by the factory's closer", closed)
	}
}

// TestCheckpointNeedsALoader: selfplay links no backend, so a checkpoint player without
// PlayerOptions.Load is refused, saying so; built-in players need none.
func TestCheckpointNeedsALoader(t *testing.T) {
	path := checkpointFile(t, t.TempDir(), 4)
	if _, _, err := OpenPlayer(path, PlayerOptions{Search: Search{Sims: 4}, Variant: env.Blitz}); err == nil ||
		!strings.Contains(err.Error(), "PlayerOptions.Load is nil") {
		t.Fatalf("a checkpoint without Load: %v", err)
	}
	if _, _, err := OpenPlayer("rollout:4", PlayerOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestSearchConfig: Search's simulations are a cap under a move time only when given, and its
// Validate is the mcts configuration's.
func TestSearchConfig(t *testing.T) {
	mt := 50 * time.Millisecond
	if n := (Search{Sims: 30, MoveTime: mt}).Config().Simulations; n != MaxSims {
		t.Errorf("a timed search without SimsSet: %d simulations, want %d", n, MaxSims)
	}
	if n := (Search{Sims: 30, SimsSet: true, MoveTime: mt}).Config().Simulations; n != 30 {
		t.Errorf("a timed search capped at 30: %d simulations", n)
	}
	for _, s := range []Search{{}, {Sims: 8, LeavesInFlight: 5000}, {Sims: 8, RolloutMix: 2}, {Sims: 8, MoveTime: -1}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v: valid", s)
		}
	}
	s := Search{Sims: 8, Gumbel: true, MoveTime: mt}
	cfg := s.Config()
	if got, want := fmt.Sprint(s.Validate()), fmt.Sprint(cfg.Validate()); got != want {
		t.Errorf("Search.Validate %s, mcts.Config.Validate %s", got, want)
	}
}
