package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

func TestPlayCommand(t *testing.T) {
	// the human (black) plays a few placements with a bad token and an illegal one in between, then quits
	input := "zz\nhelp\nlegal\ne5\nf6\nf7\nundo\nf7\nquit\n"
	out, errs, code := runCLI(t, input, "play", "--player", "heuristic", "--as", "black", "--variant", "blitz")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, want := range []string{"You play black against heuristic", "heuristic plays ", `cannot read "zz"`, "tokens: e5", "is not legal here", "game abandoned"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// without an agent: the reference network of the variant
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	out, errs, code = runCLI(t, "quit\n", "play", "--as", "black", "--sims", "8")
	if code != 0 || !strings.Contains(out, "against reference") || !strings.Contains(out, "reference plays ") {
		t.Fatalf("no agent, standard: code %d %q\n%s", code, errs, out)
	}
	out, errs, code = runCLI(t, "quit\n", "play", "--variant", "blitz", "--as", "black", "--sims", "8")
	if code != 0 || !strings.Contains(out, "against reference (blitz") || !strings.Contains(out, "reference plays ") {
		t.Fatalf("no agent, blitz: code %d %q\n%s", code, errs, out)
	}
	// --any-variant or not, reference is the game's variant's network: nothing to refuse
	for _, any := range []string{"--any-variant=false", "--any-variant"} {
		out, errs, code = runCLI(t, "quit\n", "play", "--player", "reference", "--variant", "blitz", "--as", "black", "--sims", "8", any)
		if code != 0 || !strings.Contains(out, "reference plays ") {
			t.Fatalf("the reference network in blitz (%s): code %d %q\n%s", any, code, errs, out)
		}
	}
}

func TestPlayWholeGame(t *testing.T) {
	// a scripted human mirrors the game from the agent's announced actions and always answers with
	// its first legal action, until the game ends
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	rec := filepath.Join(t.TempDir(), "game.txt")
	go func() {
		done <- playRun(&PlayOptions{In: inR, Out: outW, Player: "random", Search: selfplay.Search{Sims: 1}, As: env.White, Variant: env.Blitz, Seed: 3, Record: rec})
		outW.Close()
	}()
	s := env.NewState(env.Blitz)
	rd := bufio.NewReader(outR)
	var line strings.Builder
	result := ""
	for {
		b, err := rd.ReadByte()
		if err != nil {
			break
		}
		if b != '\n' {
			line.WriteByte(b)
			if l := line.String(); strings.HasPrefix(l, "your action (") && strings.HasSuffix(l, "): ") {
				a := s.LegalActions(nil)[0]
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintln(inW, a)
				line.Reset()
			}
			continue
		}
		l := line.String()
		line.Reset()
		if strings.HasPrefix(l, "random plays ") {
			a, err := env.ParseAction(strings.Fields(l)[2])
			if err != nil || s.ApplyAction(a) != nil {
				t.Fatalf("cannot follow %q", l)
			}
		}
		if strings.HasPrefix(l, "result: ") {
			result = strings.TrimPrefix(l, "result: ")
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !s.IsTerminal() || result != s.Outcome().String() {
		t.Fatalf("result %q, mirrored game %s (terminal %v)", result, s.Outcome(), s.IsTerminal())
	}
	// the --record file replays to the same end (its comment says blitz)
	out, errs, code := runCLI(t, "", "replay", rec)
	if code != 0 || lastLine(out) != "result: "+result || !strings.Contains(out, "position: "+s.Text()+"\n") {
		t.Fatalf("replay %s: code %d out %q err %q", rec, code, out, errs)
	}
	if b, _ := os.ReadFile(rec); !strings.HasSuffix(string(b), "# result: "+result+"\n") {
		t.Fatalf("record file:\n%s", b)
	}
}
