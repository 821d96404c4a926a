package engine

import (
	"github.com/yinsh-zero/yinsh/selfplay"
	"os"
	"path/filepath"
	"testing"

	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// loadGonum is the backend of the tests' checkpoint players (the engine links none).
func loadGonum(path string) (model.Net, error) { return gonum.Load(path) }

type countingNet struct {
	*gonum.Net
	closed *int
}

func (n countingNet) Close() error { *n.closed++; return n.Net.Close() }

// TestEngineLoadBackend: checkpoint players and analysis get their network from Options.Load (the
// backend), loaded once per file; a network replaced in the cache is closed once no player uses it,
// and Close closes the last.
func TestEngineLoadBackend(t *testing.T) {
	a := checkpointFile(t)
	b := filepath.Join(t.TempDir(), "b.ckpt")
	data, _ := os.ReadFile(a)
	os.WriteFile(b, data, 0o644)
	loads, closed := 0, 0
	load := func(p string) (model.Net, error) {
		loads++
		n, err := gonum.Load(p)
		return countingNet{n, &closed}, err
	}
	e, err := New(Options{Player: a, Search: selfplay.Search{Sims: 4}, Load: load})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"set sims 5", "genmove", "analyze sims 8", "set sims 6", "policy"} {
		if _, ok, text, _ := e.Exec(line); !ok {
			t.Fatalf("%s: %s", line, text)
		}
	}
	if loads != 1 || closed != 0 {
		t.Fatalf("one file: %d loads, %d closes", loads, closed)
	}
	if _, ok, text, _ := e.Exec("set player " + b); !ok {
		t.Fatal(text)
	}
	if loads != 2 || closed != 1 {
		t.Fatalf("after switching files: %d loads, %d closes (want 2, 1)", loads, closed)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if closed != 2 {
		t.Fatalf("after Close: %d closes, want 2", closed)
	}
}
