package env

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

type perftCase struct {
	tokens []string
	depth  int
	leaves uint64
}

func loadPerft(t testing.TB) []perftCase {
	f, err := os.Open("testdata/perft.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []perftCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			t.Fatalf("perft.txt: bad line %q", line)
		}
		d, err1 := strconv.Atoi(parts[1])
		n, err2 := strconv.ParseUint(parts[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("perft.txt: bad line %q", line)
		}
		cases = append(cases, perftCase{strings.Fields(parts[0]), d, n})
	}
	return cases
}

func stateAfter(t testing.TB, v Variant, tokens []string) *State {
	s := NewState(v)
	for i, tok := range tokens {
		a, err := ParseAction(tok)
		if err != nil {
			t.Fatalf("ply %d: %v", i+1, err)
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatalf("ply %d %s: %v", i+1, tok, err)
		}
	}
	return s
}

func TestPerft(t *testing.T) {
	for _, c := range loadPerft(t) {
		if testing.Short() && c.leaves > 1_000_000 {
			continue
		}
		s := stateAfter(t, Standard, c.tokens)
		if got := Perft(s, c.depth); got != c.leaves {
			t.Errorf("perft(%v, %d) = %d, want %d", c.tokens, c.depth, got, c.leaves)
		}
	}
}

func BenchmarkPerft4(b *testing.B) {
	s := stateAfter(b, Standard, strings.Fields("g2 e7 g3 e2 g4 g7 g5 e4 g6 c6"))
	for b.Loop() {
		if Perft(s, 4) != 13632316 {
			b.Fatal("wrong count")
		}
	}
}
