package engine

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

func newEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	if opts.Load == nil {
		opts.Load = loadGonum
	}
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// run feeds input to the engine's protocol loop and returns the raw output.
func run(t testing.TB, e *Engine, input string) string {
	t.Helper()
	var out bytes.Buffer
	if err := e.Run(strings.NewReader(input), &out); err != nil {
		t.Fatalf("Run(%q): %v", input, err)
	}
	return out.String()
}

// answers parses every answer of a raw output.
func answers(t testing.TB, raw string) []Answer {
	t.Helper()
	r := bufio.NewReader(strings.NewReader(raw))
	var out []Answer
	for {
		a, err := ReadAnswer(r)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("output %q: %v", raw, err)
		}
		out = append(out, a)
	}
}

// ask runs one command line through the protocol loop and returns its single answer.
func ask(t testing.TB, e *Engine, line string) Answer {
	t.Helper()
	as := answers(t, run(t, e, line+"\n"))
	if len(as) != 1 {
		t.Fatalf("%q: %d answers %+v", line, len(as), as)
	}
	return as[0]
}

// terminalText returns the position text of a finished random blitz game.
func terminalText(t testing.TB) (string, env.Outcome) {
	s := env.NewState(env.Blitz)
	env.RandomPlayout(s, rand.New(rand.NewPCG(1, 2)), nil)
	return s.Text(), s.Outcome()
}

func TestFraming(t *testing.T) {
	e := newEngine(t, Options{})
	for _, c := range []struct{ in, out string }{
		{"name\n", "= YINSH Zero\n\n"},
		{"1 name\n", "=1 YINSH Zero\n\n"},
		{"007 name\n", "=007 YINSH Zero\n\n"},
		{"NAME\n", "= YINSH Zero\n\n"}, // command names are case-insensitive
		{"  \n# only a comment\n\t\n\r\n", ""},
		{"2 name # trailing comment\r\n", "=2 YINSH Zero\n\n"},
		{"na\x01me\x7f\n", "= YINSH Zero\n\n"}, // control characters are dropped
		{"\tknown_command\tplay\n", "= true\n\n"},
		{"name", "= YINSH Zero\n\n"}, // no newline before the end of input
		{"newgame\n", "= \n\n"},      // an empty result keeps the space
		{"12a name\n", "? malformed id \"12a\" (want an integer of at most 18 digits)\n\n"},
		{"1234567890123456789 name\n", "? malformed id \"1234567890123456789\" (want an integer of at most 18 digits)\n\n"},
		{"5\n", "?5 missing command after the id\n\n"},
		{"frobnicate\n", "? unknown command \"frobnicate\" (list_commands lists them)\n\n"},
		{"3 frobnicate x\n", "?3 unknown command \"frobnicate\" (list_commands lists them)\n\n"},
		{"4 name extra\n", "?4 usage: name\n\n"},
		{"play\n", "? usage: play [COLOR] TOKEN [TOKEN...]\n\n"},
		{"quit\nname\n", "= \n\n"}, // nothing after quit is read
		{"name\nquit\n", "= YINSH Zero\n\n= \n\n"},
	} {
		if got := run(t, e, c.in); got != c.out {
			t.Errorf("%q: got %q, want %q", c.in, got, c.out)
		}
	}
	// An overlong line is answered and skipped; the loop goes on.
	got := run(t, e, strings.Repeat("x", protocol.MaxLine)+"\n9 name\n"+strings.Repeat(" ", protocol.MaxLine-5)+"name\n")
	if want := "? line too long (at most 65535 bytes)\n\n=9 YINSH Zero\n\n= YINSH Zero\n\n"; got != want {
		t.Errorf("long line: got %q", got)
	}
	// Multi-line answers never hold an empty line (that would end the answer early).
	raw := run(t, e, "showboard\nhelp\nlist_commands\n")
	if as := answers(t, raw); len(as) != 3 || strings.Count(raw, "\n\n") != 3 {
		t.Errorf("multi-line answers: %d answers, raw %q", len(as), raw)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

func TestRunIOErrors(t *testing.T) {
	e := newEngine(t, Options{})
	if err := e.Run(strings.NewReader("name\n"), failWriter{}); err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("write error: %v", err)
	}
	if err := e.Run(failReader{}, io.Discard); err == nil || !strings.Contains(err.Error(), "read failed") {
		t.Errorf("read error: %v", err)
	}
	if err := e.Run(strings.NewReader(""), io.Discard); err != nil {
		t.Errorf("empty input: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(Options{Player: "rollout:zero"}); err == nil {
		t.Error("bad player spec accepted")
	}
	if _, err := New(Options{Search: selfplay.Search{Sims: -1}}); err == nil {
		t.Error("negative sims accepted")
	}
	e := newEngine(t, Options{})
	if got := ask(t, e, "set").Text; !strings.HasPrefix(got, "player "+DefaultPlayer(env.Standard)+"\n") {
		t.Errorf("default player: %q", got)
	}
}

// TestSession walks through every command, checking results and errors; it fails if a command of the
// table is not exercised.
func TestSession(t *testing.T) {
	e := newEngine(t, Options{Player: "heuristic", Seed: 1}) // the commands as a non-searching player answers them
	used := map[string]bool{}
	check := func(line string, ok bool, want string) Answer {
		t.Helper()
		a := ask(t, e, line)
		used[strings.ToLower(strings.Fields(line)[0])] = true
		match := a.Text == want
		if rest, found := strings.CutPrefix(want, "~"); found {
			match = strings.Contains(a.Text, rest)
		}
		if a.OK != ok || !match {
			t.Errorf("%q: got ok=%v %q, want ok=%v %q", line, a.OK, a.Text, ok, want)
		}
		return a
	}
	check("protocol_version", true, ProtocolVersion)
	check("name", true, Name)
	check("version", true, Version)
	check("list_commands", true, strings.Join(Commands(), "\n"))
	check("known_command genmove", true, "true")
	check("known_command GENMOVE", true, "true")
	check("known_command nope", true, "false")
	check("help play", true, "play [COLOR] TOKEN [TOKEN...] -- apply the actions in order for whoever is to act (all or none); COLOR (GTP), if given, must be the side to act")
	check("help", true, "~\ngenmove_info -- like genmove")
	check("help nope", false, `unknown command "nope"`)

	check("result", true, "ongoing")
	check("turn", true, "w place")
	legal := check("legal", true, "~a2 a3 a4 a5 b1").Text
	if n := len(strings.Fields(legal)); n != 85 {
		t.Errorf("legal at the start: %d actions", n)
	}
	check("play e5", true, "")
	check("turn", true, "b place")
	check("moves", true, "e5")
	check("play e5", false, `illegal action "e5": e5 is occupied`)
	check("play e5-e7", false, `illegal action "e5-e7": e5-e7 is a ring move action but black must place a ring`)
	check("play zz9", false, `bad action "zz9": bad point "zz9"`)
	check("play f6 e6 f6", false, `token 3: illegal action "f6": f6 is occupied (nothing played)`)
	check("moves", true, "e5")
	check("play f6 e6 f7 e7 f8 e8 f9 e9 f10", true, "")
	check("turn", true, "w move")
	check("undo", true, "")
	check("turn", true, "b place")
	check("moves", true, "e5 f6 e6 f7 e7 f8 e8 f9 e9")
	check("undo 100", false, "cannot undo 100 actions, only 9 played since newgame or position")
	check("undo 0", false, `undo: want a count of at least 1, got "0"`)
	check("play F10", true, "") // tokens are case-insensitive
	check("play xe5", false, `illegal action "xe5": xe5 is a ring removal action but white must move a ring`)
	check("play pass", false, `illegal action "pass": cannot pass while a ring can move`)

	start := check("position", true, "~ w 0-0").Text
	s, err := env.ParsePosition(start, env.Standard)
	if err != nil {
		t.Fatal(err)
	}
	mv := check("genmove", true, "~-").Text
	if a, err := env.ParseAction(mv); err != nil || !s.IsLegal(a) {
		t.Errorf("genmove %q is not a legal move of %s (%v)", mv, start, err)
	}
	check("undo", true, "")
	check("position", true, start)
	nLegal := len(strings.Fields(check("legal", true, "~e5-").Text))

	ev := check("eval", true, "~side w\nwdl unknown\nbest ").Text
	lines := strings.Split(ev, "\n")
	if len(lines) != 3+10 {
		t.Errorf("eval: %d lines %q", len(lines), ev)
	}
	wantPrior := fmt.Sprintf("prior %.4f visits 0 q -", 1/float32(nLegal))
	for _, l := range lines[3:] {
		if !strings.HasPrefix(l, "top ") || !strings.HasSuffix(l, wantPrior) {
			t.Errorf("eval line %q, want 'top TOKEN %s'", l, wantPrior)
		}
	}
	check("eval 2", true, "~visits 0 q -\ntop ")
	check("eval -1", false, `eval: want a count of at least 0, got "-1"`)
	check("position", true, start) // eval plays nothing

	info := check("genmove_info", true, "~\nside w\ntime_ms ").Text
	if !strings.HasPrefix(info, "action ") || !strings.HasSuffix(info, "\nwdl unknown") {
		t.Errorf("genmove_info: %q", info)
	}
	check("moves", true, "~f10 "+strings.Fields(info)[1])
	lastTok := strings.Fields(info)[1]
	last, _ := env.ParseAction(lastTok)
	check("showboard", true, "\n"+strings.TrimRight(e.State().Diagram(env.DiagramOptions{Last: last, HasLast: true, Fours: true}), "\n"))
	check("showboard", true, "~\nlast action "+lastTok)
	check("analyze", false, "analyze: player heuristic does not search (analyze needs rollout:N or a checkpoint)")
	pol := check("policy", true, "~source uniform\n").Text
	if n := strings.Count(pol, "\n"); n != len(strings.Fields(check("legal", true, "~").Text)) {
		t.Errorf("policy: %d action lines", n)
	}
	check("boardsize 19", true, "ignored: YINSH has one board (85 points)")
	check("komi 6.5", true, "ignored: YINSH has no komi")

	check("set", true, "player heuristic\nsims 200\nseed 1\nvariant standard\nmovetime 0")
	check("set sims 5", true, "")
	check("set seed 99", true, "")
	check("set player random", true, "")
	check("set", true, "player random\nsims 5\nseed 99\nvariant standard\nmovetime 0")
	check("set sims 0", false, `set sims: want an integer in [1, 100000000], got "0"`)
	check("set seed x", false, `set seed: want an unsigned 64-bit integer, got "x"`)
	check("set player rollout:x", false, "~want rollout:N")
	check("set colour red", false, `set: unknown setting "colour" (want player, level, sims, seed or movetime)`)
	check("set player", false, "usage: set [player SPEC|level N|sims N|seed N|movetime MS]")
	check("set movetime -5", false, `set movetime: want milliseconds in [0, 3600000] (0: bounded by sims), got "-5"`)
	check("set", true, "player random\nsims 5\nseed 99\nvariant standard\nmovetime 0") // failed sets change nothing
	check("set movetime 250", true, "")
	check("set", true, "~movetime 250")
	check("time_left w 10 0", false, "time_left: no time_settings given (the engine is bounded by sims or set movetime)")
	// GTP time controls map onto the move time: byo-yomi of 5 s for 10 stones is 0.5 s a stone,
	// less 10% and 20 ms of margin
	check("time_settings 0 5 10", true, "")
	check("set", true, "~movetime 430")
	check("time_left b 2 4", true, "") // 0.5 s a stone
	check("set", true, "~movetime 430")
	check("time_left white 1 10", true, "")
	check("set", true, "~movetime 70")
	check("time_settings 300 0 0", true, "") // main time: 300/30 s = 10 s a move, 8.98 s with margin
	check("set", true, "~movetime 8980")
	check("time_left x 1 1", false, `time_left: colour "x", want w, b, white or black`)
	check("time_settings 1 5 0", false, "time_settings: a byo-yomi time needs at least 1 stone")
	check("time_settings 0 0 0", true, "") // no time limit
	check("set", true, "~movetime 0")

	check("position nonsense w 0-0", false, "position: points field has 8 characters, want 85")
	check("position "+strings.Repeat(".", 85)+" x 0-0", false, "~position")
	check("position a b c d e", false, "usage: position [TEXT]")
	check("moves", true, "~f10 ") // a rejected position keeps the game

	check("newgame blitz", true, "")
	check("set", true, "~variant blitz")
	check("moves", true, "")
	check("newgame chess", false, `unknown variant "chess" (want standard or blitz)`)
	check("newgame", true, "")
	check("set", true, "~variant blitz") // newgame keeps the variant
	check("play e5", true, "")
	check("clear_board", true, "")
	check("set", true, "~variant blitz") // so does clear_board
	check("moves", true, "")

	end, outcome := terminalText(t)
	check("position "+end, true, "")
	check("result", true, outcome.String())
	check("turn", true, "- over")
	check("legal", true, "")
	check("genmove", false, "the game is over (result "+outcome.String()+")")
	check("genmove_info", false, "~the game is over")
	check("eval", false, "~the game is over")
	check("undo", false, "nothing to undo")
	check("play pass", false, `illegal action "pass": the game is over`)

	check("quit", true, "")
	for _, name := range Commands() {
		if !used[name] {
			t.Errorf("command %s is not exercised by the session", name)
		}
	}
}

// fakePlayer returns a fixed decision, to check how values and search statistics are printed.
type fakePlayer struct {
	d   selfplay.Decision
	err error
}

func (p *fakePlayer) Name() string                                 { return "fake" }
func (p *fakePlayer) NewGame()                                     {}
func (p *fakePlayer) Decide(*env.State) (selfplay.Decision, error) { return p.d, p.err }

func TestEvalAndInfoWithValue(t *testing.T) {
	e := newEngine(t, Options{})
	e5, f6, e6 := mustAction(t, "e5"), mustAction(t, "f6"), mustAction(t, "e6")
	e.player = &fakePlayer{d: selfplay.Decision{
		Action: e5, WDL: [3]float32{0.5, 0.25, 0.25}, HasValue: true,
		Top: []selfplay.ActionStat{{Action: e5, Prior: 0.4, Visits: 90, Q: 0.125}, {Action: f6, Prior: 0.1, Visits: 0}},
		PV:  []env.Action{e5, f6, e6},
	}}
	want := "side w\nwdl 0.500 0.250 0.250\nbest e5\ntop e5 prior 0.4000 visits 90 q 0.125\ntop f6 prior 0.1000 visits 0 q -\npv e5 f6 e6"
	if a := ask(t, e, "eval"); !a.OK || a.Text != want {
		t.Errorf("eval: %+v\nwant %q", a, want)
	}
	if a := ask(t, e, "eval 1"); !a.OK || strings.Count(a.Text, "top ") != 1 {
		t.Errorf("eval 1: %+v", a)
	}
	a := ask(t, e, "genmove_info")
	if !a.OK || !strings.HasPrefix(a.Text, "action e5\nside w\ntime_ms ") ||
		!strings.HasSuffix(a.Text, "\nwdl 0.500 0.250 0.250\ntop e5 prior 0.4000 visits 90 q 0.125\ntop f6 prior 0.1000 visits 0 q -\npv e5 f6 e6") {
		t.Errorf("genmove_info: %+v", a)
	}
	// A player that answers an illegal action or an error gets an error answer; the game is unchanged.
	if a := ask(t, e, "genmove"); a.OK || a.Text != `player fake chose e5: illegal action: e5 is occupied` {
		t.Errorf("illegal choice: %+v", a)
	}
	e.player = &fakePlayer{err: errors.New("network on fire")}
	if a := ask(t, e, "genmove"); a.OK || a.Text != "player fake: network on fire" {
		t.Errorf("player error: %+v", a)
	}
	if a := ask(t, e, "moves"); a.Text != "e5" {
		t.Errorf("moves after failed genmoves: %q", a.Text)
	}
}

func mustAction(t testing.TB, tok string) env.Action {
	a, err := env.ParseAction(tok)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// genmoves plays n genmoves (or to the end of the game) and returns the answers.
func genmoves(t testing.TB, e *Engine, n int) []string {
	var out []string
	for i := 0; i < n && !e.state.IsTerminal(); i++ {
		a := ask(t, e, "genmove")
		if !a.OK {
			t.Fatalf("genmove: %s", a.Text)
		}
		out = append(out, a.Text)
	}
	return out
}

func TestGenmoveDeterministic(t *testing.T) {
	for _, player := range []string{"random", "heuristic"} {
		a := newEngine(t, Options{Player: player, Seed: 3})
		b := newEngine(t, Options{Player: player, Seed: 3})
		ga, gb := genmoves(t, a, 40), genmoves(t, b, 40)
		if strings.Join(ga, " ") != strings.Join(gb, " ") {
			t.Errorf("%s: same seed, different games:\n%v\n%v", player, ga, gb)
		}
		// set seed rebuilds the player, so the same seed replays the same game.
		ask(t, a, "set seed 3")
		ask(t, a, "newgame")
		if g := genmoves(t, a, 40); strings.Join(g, " ") != strings.Join(ga, " ") {
			t.Errorf("%s: after set seed 3:\n%v\nwant %v", player, g, ga)
		}
		c := newEngine(t, Options{Player: player, Seed: 4})
		if g := genmoves(t, c, 40); strings.Join(g, " ") == strings.Join(ga, " ") {
			t.Errorf("%s: seeds 3 and 4 give the same 40 actions", player)
		}
	}
}

// TestEngineVersusEngine plays a whole game between two engines, relaying genmove answers.
func TestEngineVersusEngine(t *testing.T) {
	w := newEngine(t, Options{Player: "heuristic", Seed: 1})
	b := newEngine(t, Options{Player: "random", Seed: 2})
	for ply := 0; ; ply++ {
		turn := ask(t, w, "turn").Text
		if turn == "- over" {
			break
		}
		mover, other := w, b
		if turn[0] == 'b' {
			mover, other = b, w
		}
		mv := ask(t, mover, "genmove")
		if !mv.OK {
			t.Fatalf("ply %d: %s", ply, mv.Text)
		}
		if a := ask(t, other, "play "+mv.Text); !a.OK {
			t.Fatalf("ply %d: play %s: %s", ply, mv.Text, a.Text)
		}
	}
	rw, rb := ask(t, w, "result").Text, ask(t, b, "result").Text
	pw, pb := ask(t, w, "position").Text, ask(t, b, "position").Text
	if rw != rb || pw != pb || rw == "ongoing" {
		t.Fatalf("engines disagree: %s/%s %q/%q", rw, rb, pw, pb)
	}
	// The relayed record replays to the same end.
	acts, err := env.ParseTokens(ask(t, w, "moves").Text)
	s := env.NewState(env.Standard)
	if err == nil {
		err = env.Replay(s, acts)
	}
	if err != nil || s.Outcome().String() != rw || s.Text() != pw {
		t.Fatalf("replay: %v, %s vs %s", err, s.Outcome(), rw)
	}
	t.Logf("heuristic (white) vs random: %s in %d actions", rw, len(acts))
}

// TestMemoryFlat plays many fast random games through the protocol loop in one engine and checks that
// the heap does not grow with the number of games.
func TestMemoryFlat(t *testing.T) {
	const games = 1000
	e := newEngine(t, Options{Player: "random", Seed: 5})
	cmdR, cmdW := io.Pipe()
	ansR, ansW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- e.Run(cmdR, ansW); ansW.Close() }()
	br := bufio.NewReader(ansR)
	send := func(cmd string) Answer {
		if _, err := io.WriteString(cmdW, cmd+"\n"); err != nil {
			t.Fatal(err)
		}
		a, err := ReadAnswer(br)
		if err != nil || !a.OK {
			t.Fatalf("%s: %+v %v", cmd, a, err)
		}
		return a
	}
	play := func(n int) (actions int) {
		for g := 0; g < n; g++ {
			send("newgame")
			for send("result").Text == "ongoing" {
				send("genmove")
				actions++
			}
		}
		return actions
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	warm := games / 10
	play(warm)
	before := heap()
	start := time.Now()
	actions := play(games - warm)
	elapsed := time.Since(start)
	after := heap()
	send("quit")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	growth := int64(after) - int64(before)
	t.Logf("%d games (%d actions) in %v (%.1f µs per genmove+result), heap %d -> %d bytes (%+d)",
		games-warm, actions, elapsed.Round(time.Millisecond), float64(elapsed.Microseconds())/float64(actions), before, after, growth)
	if growth > 512<<10 {
		t.Errorf("heap grew by %d bytes over %d games", growth, games-warm)
	}
}

// midgame returns an engine in a midgame position and a legal action there.
func midgame(b testing.TB) (*Engine, string) {
	e := newEngine(b, Options{Player: "random", Seed: 11})
	if a := ask(b, e, "play e5 f6 e6 f7 e7 f8 e8 f9 e9 f10 e5-e4 f6-f5"); !a.OK {
		b.Fatal(a.Text)
	}
	return e, strings.Fields(ask(b, e, "legal").Text)[0]
}

// BenchmarkProtocol measures the protocol loop over legal / play / undo triples (no search).
func BenchmarkProtocol(b *testing.B) {
	e, tok := midgame(b)
	n := len(strings.Fields(ask(b, e, "legal").Text))
	triple := "legal\nplay " + tok + "\nundo\n"
	input := strings.Repeat(triple, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if err := e.Run(strings.NewReader(input), io.Discard); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/command")
	b.ReportMetric(float64(n), "legal-actions")
}

// BenchmarkGenmove measures one genmove (with undo) through the protocol loop, per player.
func BenchmarkGenmove(b *testing.B) {
	for _, player := range []string{"random", "heuristic"} {
		b.Run(player, func(b *testing.B) {
			e, _ := midgame(b)
			ask(b, e, "set player "+player)
			input := strings.Repeat("genmove\nundo\n", b.N)
			b.ReportAllocs()
			b.ResetTimer()
			if err := e.Run(strings.NewReader(input), io.Discard); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func TestReadAnswer(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("\n=12 a\nb\n\n?3 bad thing\n\n= \n\n=x\n\nnot an answer\n\n=1 cut"))
	for _, want := range []Answer{{true, "12", "a\nb"}, {false, "3", "bad thing"}, {true, "", ""}, {true, "", "x"}} {
		if got, err := ReadAnswer(r); err != nil || got != want {
			t.Errorf("got %+v %v, want %+v", got, err, want)
		}
	}
	if _, err := ReadAnswer(r); err == nil {
		t.Error("a line without = or ? accepted")
	}
	if _, err := ReadAnswer(r); err != io.ErrUnexpectedEOF {
		t.Errorf("truncated answer: %v", err)
	}
}

// TestSearchingPlayer checks eval and genmove_info with a player that searches and has a value
// (rollout:N), through the same ParsePlayer path as every other player.
func TestSearchingPlayer(t *testing.T) {
	// rollout players are always built in: a failure here is a regression, never a reason to skip
	if _, err := selfplay.ParsePlayer("rollout:40", selfplay.PlayerOptions{Search: selfplay.Search{Sims: DefaultSims}}); err != nil {
		t.Fatalf("rollout:40: %v", err)
	}
	var logs bytes.Buffer
	e := newEngine(t, Options{Player: "rollout:40", Seed: 2, Variant: env.Blitz, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if a := ask(t, e, "play e5 f6 e6 f7 e7 f8 e8 f9 e9 f10"); !a.OK {
		t.Fatal(a.Text)
	}
	legal := " " + ask(t, e, "legal").Text + " "
	a := ask(t, e, "eval 3")
	lines := strings.Split(a.Text, "\n")
	if !a.OK || len(lines) < 4 || lines[0] != "side w" {
		t.Fatalf("eval: %+v", a)
	}
	var w, d, l float64
	if _, err := fmt.Sscanf(lines[1], "wdl %f %f %f", &w, &d, &l); err != nil || w+d+l < 0.99 || w+d+l > 1.01 {
		t.Errorf("eval wdl line %q (%v)", lines[1], err)
	}
	best := strings.TrimPrefix(lines[2], "best ")
	if !strings.Contains(legal, " "+best+" ") {
		t.Errorf("eval best %q is not legal", best)
	}
	visits, tops := 0, 0
	for _, line := range lines[3:] {
		var tok string
		var prior, q float64
		var v int
		if strings.HasPrefix(line, "pv ") {
			if !strings.HasPrefix(line, "pv "+best) {
				t.Errorf("pv %q does not start with best %s", line, best)
			}
			continue
		}
		if _, err := fmt.Sscanf(line, "top %s prior %f visits %d q %f", &tok, &prior, &v, &q); err != nil || v < 1 || q < -1 || q > 1 {
			t.Errorf("eval top line %q (%v)", line, err)
		}
		visits += v
		tops++
	}
	if tops != 3 || visits < 1 || visits > 40 {
		t.Errorf("eval: %d top lines with %d visits in all", tops, visits)
	}
	info := ask(t, e, "genmove_info")
	if !info.OK || !strings.Contains(info.Text, "\nwdl 0.") && !strings.Contains(info.Text, "\nwdl 1.") {
		t.Errorf("genmove_info: %+v", info)
	}
	if !strings.Contains(logs.String(), "msg=genmove") || !strings.Contains(logs.String(), "wdl=") {
		t.Errorf("genmove log: %q", logs.String())
	}
}
