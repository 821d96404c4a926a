package main

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// TestGoClient runs the example as docs/clients.md shows it and checks what it prints: numbered
// actions that replay legally to a finished game, the result that game has, and the network's view.
func TestGoClient(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, 3, 1); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("too little output:\n%s", out.String())
	}
	var actions []env.Action
	num := regexp.MustCompile(`^(\d+)\. (\S+)$`)
	for i, l := range lines[:len(lines)-2] {
		m := num.FindStringSubmatch(l)
		if m == nil || m[1] != itoa(i+1) {
			t.Fatalf("line %d %q is not action %d", i+1, l, i+1)
		}
		a, err := env.ParseAction(m[2])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		actions = append(actions, a)
	}
	s := env.NewState(env.Standard)
	if err := env.Replay(s, actions); err != nil {
		t.Fatal(err)
	}
	if s.Outcome() == env.Ongoing {
		t.Fatalf("the printed actions leave the game unfinished")
	}
	if want := "result: " + s.Outcome().String() + " "; !strings.HasPrefix(lines[len(lines)-2], want) {
		t.Errorf("result line %q, want it to start %q", lines[len(lines)-2], want)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "before the last action the network preferred ") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
