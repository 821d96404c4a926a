package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
)

// The engine tests drive the real binary, built once into a temporary directory on first use.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "yinsh-engine-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// yinshBinary builds cmd/yinsh (once per test run) and returns its path.
func yinshBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "yinsh")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// engineProc is a running `yinsh engine` process.
type engineProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
}

func startEngine(t *testing.T, args ...string) *engineProc {
	t.Helper()
	p := &engineProc{t: t, cmd: exec.Command(yinshBinary(t), append([]string{"engine"}, args...)...)}
	p.cmd.Stderr = &p.stderr
	var err error
	if p.in, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(stdout)
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.in.Close()
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// send writes one command line and reads its answer.
func (p *engineProc) send(line string) engine.Answer {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("%q: %v", line, err)
	}
	a, err := engine.ReadAnswer(p.out)
	if err != nil {
		p.t.Fatalf("%q: %v (stderr %q)", line, err, p.stderr.String())
	}
	return a
}

// must sends a command that has to succeed and returns its result.
func (p *engineProc) must(line string) string {
	p.t.Helper()
	a := p.send(line)
	if !a.OK {
		p.t.Fatalf("%q: ? %s", line, a.Text)
	}
	return a.Text
}

// quit ends the process with quit and waits for a clean exit.
func (p *engineProc) quit() {
	p.t.Helper()
	p.must("quit")
	if err := p.cmd.Wait(); err != nil {
		p.t.Fatalf("engine exit: %v (stderr %q)", err, p.stderr.String())
	}
}

// TestEngineBinarySession pipes a scripted session through the binary and checks every answer,
// byte for byte where the answer is fixed.
func TestEngineBinarySession(t *testing.T) {
	script := strings.Join([]string{
		"protocol_version",
		"1 name",
		"2 version",
		"known_command showboard",
		"# a comment line",
		"",
		"3 known_command castle",
		"x1 name",
		"12a name",
		"5",
		"castle",
		"newgame standard",
		"play e5 f6 e6 f7 e7 f8 e8 f9 e9 f10",
		"4 turn",
		"play e5-e7",   // illegal: passes over the ring on e6
		"play xe5",     // wrong phase
		"play e11",     // malformed token
		"position w b", // bad position text
		"undo",
		"moves",
		"result",
		"quit",
		"name", // not answered: the engine has quit
	}, "\n") + "\n"
	cmd := exec.Command(yinshBinary(t), "engine", "--player", "random", "--seed", "1")
	cmd.Stdin = strings.NewReader(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	want := "= " + engine.ProtocolVersion + "\n\n" +
		"=1 YINSH Zero\n\n" +
		"=2 " + engine.Version + "\n\n" +
		"= true\n\n" +
		"=3 false\n\n" +
		"? unknown command \"x1\" (list_commands lists them)\n\n" +
		"? malformed id \"12a\" (want an integer of at most 18 digits)\n\n" +
		"?5 missing command after the id\n\n" +
		"? unknown command \"castle\" (list_commands lists them)\n\n" +
		"= \n\n" +
		"= \n\n" +
		"=4 w move\n\n" +
		"? illegal action \"e5-e7\": the ring would pass over the ring on e6\n\n" +
		"? illegal action \"xe5\": xe5 is a ring removal action but white must move a ring\n\n" +
		"? bad action \"e11\": \"e11\" is not a point of the board\n\n" +
		"? position: want 3 or 4 space-separated fields (points, side, W-B[, flags]), got 2\n\n" +
		"= \n\n" +
		"= e5 f6 e6 f7 e7 f8 e8 f9 e9\n\n" +
		"= ongoing\n\n" +
		"= \n\n"
	if string(out) != want {
		t.Errorf("session output:\n%s\nwant:\n%s", out, want)
	}
}

// TestEngineBinaryCommands runs every command of the table through the binary at least once.
func TestEngineBinaryCommands(t *testing.T) {
	p := startEngine(t, "--player", "heuristic", "--seed", "3", "--variant", "blitz")
	if got := p.must("list_commands"); got != strings.Join(engine.Commands(), "\n") {
		t.Fatalf("list_commands: %q", got)
	}
	used := map[string]bool{}
	for _, line := range []string{
		"protocol_version", "name", "version", "list_commands", "known_command play", "help genmove",
		"set", "set sims 10", "set seed 3", "set player heuristic", "newgame blitz", "position", "turn", "legal",
		"play e5", "undo", "genmove", "genmove_info", "eval 3", "moves", "showboard", "result",
		"time_settings 0 1 1", "time_left w 1 1", "set movetime 0",
		"policy", "boardsize 19", "komi 7.5", "clear_board", "set player rollout:5", "analyze sims 20", "set player heuristic",
	} {
		a := p.send(line)
		used[strings.Fields(line)[0]] = true
		if !a.OK {
			t.Errorf("%q: ? %s", line, a.Text)
		}
	}
	if got := p.must("set"); got != "player heuristic\nsims 10\nseed 3\nvariant blitz\nmovetime 0" {
		t.Errorf("set: %q", got)
	}
	if got := p.must("showboard"); !strings.HasPrefix(got, "\n11 ") || !strings.Contains(got, "blitz, rings removed 0-0") {
		t.Errorf("showboard: %q", got)
	}
	p.quit()
	used["quit"] = true
	for _, name := range engine.Commands() {
		if !used[name] {
			t.Errorf("command %s not exercised", name)
		}
	}
	// genmove logs its time to stderr; stdout holds only the protocol.
	if logs := p.stderr.String(); strings.Count(logs, "msg=genmove") != 2 || !strings.Contains(logs, " ms=") {
		t.Errorf("stderr: %q", logs)
	}
}

// TestEngineBinaryGame plays a whole game between two engine processes through a small driver that
// relays each genmove answer to the other engine as a play command.
func TestEngineBinaryGame(t *testing.T) {
	white := startEngine(t, "--player", "heuristic", "--seed", "1")
	black := startEngine(t, "--player", "heuristic", "--seed", "2")
	res, moves := relayGame(t, white, black, 400)
	if res == "ongoing" {
		t.Fatalf("game not finished after %d actions", len(moves))
	}
	if white.must("position") != black.must("position") || black.must("result") != res {
		t.Fatal("the engines disagree on the final position")
	}
	// The relayed record replays through the rules engine to the same result.
	acts, err := env.ParseTokens(strings.Join(moves, " "))
	s := env.NewState(env.Standard)
	if err == nil {
		err = env.Replay(s, acts)
	}
	if err != nil || s.Outcome().String() != res || s.Text() != white.must("position") {
		t.Fatalf("replay: %v, outcome %s, engines say %s", err, s.Outcome(), res)
	}
	white.quit()
	black.quit()
	t.Logf("heuristic vs heuristic: %s after %d actions", res, len(moves))
}

// relayGame drives a game: the engine of the side to act generates an action, the other plays it.
// It returns the result and the actions.
func relayGame(t *testing.T, white, black *engineProc, maxActions int) (string, []string) {
	t.Helper()
	var moves []string
	for len(moves) < maxActions {
		turn := white.must("turn")
		if turn == "- over" {
			break
		}
		mover, other := white, black
		if turn[0] == 'b' {
			mover, other = black, white
		}
		if got := other.must("turn"); got != turn {
			t.Fatalf("action %d: engines disagree on the turn: %q vs %q", len(moves)+1, turn, got)
		}
		mv := mover.must("genmove")
		other.must("play " + mv)
		moves = append(moves, mv)
	}
	return white.must("result"), moves
}

// TestEngineBinaryDeterministic checks that a fixed seed fixes genmove across processes.
func TestEngineBinaryDeterministic(t *testing.T) {
	game := func(seed string) string {
		p := startEngine(t, "--player", "random", "--seed", seed, "--variant", "blitz")
		var acts []string
		for i := 0; i < 30 && p.must("result") == "ongoing"; i++ {
			acts = append(acts, p.must("genmove"))
		}
		p.quit()
		return strings.Join(acts, " ")
	}
	a, b, c := game("7"), game("7"), game("8")
	if a != b {
		t.Errorf("seed 7 twice:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 give the same actions: %s", a)
	}
}

// TestEngineBinaryEOF checks that the engine exits cleanly at the end of its input, without quit.
func TestEngineBinaryEOF(t *testing.T) {
	p := startEngine(t)
	p.must("genmove")
	p.in.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit at EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("engine did not exit at end of input")
	}
}

func TestEngineFlags(t *testing.T) {
	var got *EngineOptions
	cmd := newCmdEngine(func(o *EngineOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--player", "random", "--sims", "50", "--seed", "9", "--variant", "blitz"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Player != "random" || got.Sims != 50 || got.Seed != 9 || got.Variant != env.Blitz || got.Log == nil {
		t.Errorf("options %+v", got)
	}
	cmd = newCmdEngine(func(o *EngineOptions) error { got = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil || got.Player != engine.DefaultPlayer(env.Standard) || got.Sims != engine.DefaultSims || got.Seed != 1 || got.Variant != env.Standard {
		t.Errorf("defaults %+v %v", got, err)
	}
	cmd = newCmdEngine(func(o *EngineOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--variant", "blitz"})
	if err := cmd.Execute(); err != nil || got.Player != "reference" {
		t.Errorf("blitz's default player %q (want reference: blitz has its own network), %v", got.Player, err)
	}
	t.Setenv("YINSH_CACHE_DIR", t.TempDir())
	if out, errs, code := runCLI(t, "set\ngenmove\n", "engine", "--player", "reference", "--variant", "blitz", "--sims", "4"); code != 0 || !strings.Contains(out, "variant blitz") {
		t.Errorf("the reference network in a blitz engine: code %d stdout %q stderr %q", code, out, errs)
	}
	for _, args := range [][]string{
		{"--variant", "chess"}, {"--sims", "0"}, {"--log-level", "loud"}, {"--player", "rollout:0"}, {"extra"},
	} {
		_, errs, code := runCLI(t, "", append([]string{"engine"}, args...)...)
		if code == 0 || errs == "" {
			t.Errorf("%v: code %d stderr %q", args, code, errs)
		}
	}
	// In-process run through the real command, as the binary does.
	out, errs, code := runCLI(t, "1 genmove\n2 moves\n", "engine", "--player", "random", "--log-level", "warn")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "=1 ") || !strings.HasSuffix(out, "\n\n") || strings.Count(out, "\n\n") != 2 {
		t.Errorf("in-process: code %d out %q err %q", code, out, errs)
	}
}

// TestEngineDocExample replays the example session of docs/engine-protocol.md through the binary and
// compares the output byte for byte (apart from decision times), so the reference cannot drift.
func TestEngineDocExample(t *testing.T) {
	data, err := os.ReadFile("../../docs/engine-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "## Example session")
	if i < 0 {
		t.Fatal("no example session in the doc")
	}
	block := doc[i:]
	start := strings.Index(block, "```\n") + 4
	block = block[start : start+strings.Index(block[start:], "```\n")]
	var input, want strings.Builder
	for _, l := range strings.SplitAfter(block, "\n") {
		if cmd, ok := strings.CutPrefix(l, "> "); ok {
			input.WriteString(cmd)
		} else {
			want.WriteString(l)
		}
	}
	if input.Len() == 0 {
		t.Fatal("the example session has no commands")
	}
	cmd := exec.Command(yinshBinary(t), "engine", "--player", "heuristic", "--seed", "1")
	cmd.Stdin = strings.NewReader(input.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	mask := func(s string) string {
		lines := strings.Split(s, "\n")
		for k, l := range lines {
			if strings.HasPrefix(l, "time_ms ") {
				lines[k] = "time_ms X"
			}
		}
		return strings.Join(lines, "\n")
	}
	if got, w := mask(string(out)), mask(want.String()); got != w {
		t.Errorf("the binary's output differs from the doc's example session:\n%s\nwant:\n%s", got, w)
	}
}

// TestDeviceFlag: every command that runs a network takes --device; the gonum backend runs on cpu
// only and refuses another device naming the flag, and a device that is not cpu, cuda or cuda:N is
// refused as such.
func TestDeviceFlag(t *testing.T) {
	if _, err := (BackendFlags{Backend: "gonum", Device: "cpu"}).backend(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"cuda", "cuda:1", "gpu", "cuda:", "cuda:-1", "cuda:01"} {
		if _, err := (BackendFlags{Backend: "gonum", Device: d}).backend(); err == nil || !strings.Contains(err.Error(), "--device") {
			t.Errorf("gonum on %s: %v", d, err)
		}
	}
	ck := filepath.Join(t.TempDir(), "none.ckpt")
	for _, args := range [][]string{
		{"arena", "--a", ck, "--b", "random", "--games", "2", "--results", ""},
		{"play", "--player", ck},
		{"engine", "--player", ck, "--any-variant"},
		{"analyze", "--json", "--player", ck, "--any-variant"},
		{"serve", "--player", ck, "--any-variant"},
		{"search", "--checkpoint", ck, "--any-variant"},
	} {
		args = append(args, "--device", "cuda:0")
		if _, errs, code := runCLI(t, "", args...); code == 0 || !strings.Contains(errs, "--device cuda:0") {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}
