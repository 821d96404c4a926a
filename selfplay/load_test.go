package selfplay

import (
	"testing"

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
	f, closer, err := OpenPlayer(path, PlayerOptions{Sims: 4, Variant: env.Blitz, Load: load})
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
