package engine

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// info is a parsed info line of analyze.
type info struct {
	side   string
	visits int
	wdl    [3]float64
	timeMS int
	top    []infoTop
	pv     []string
}

type infoTop struct {
	action string
	prior  float64
	visits int
	q      string
}

// parseInfo parses an info line strictly, in the documented field order.
func parseInfo(line string) (info, error) {
	var in info
	f := strings.Fields(line)
	bad := func(why string) (info, error) { return in, fmt.Errorf("info line %q: %s", line, why) }
	if len(f) < 11 || f[0] != "info" || f[1] != "side" || f[3] != "visits" || f[5] != "wdl" || f[9] != "time_ms" {
		return bad("want 'info side S visits N wdl W D L time_ms T'")
	}
	in.side = f[2]
	var err error
	if in.visits, err = strconv.Atoi(f[4]); err != nil {
		return bad("visits")
	}
	for k := range 3 {
		if in.wdl[k], err = strconv.ParseFloat(f[6+k], 64); err != nil {
			return bad("wdl")
		}
	}
	if in.timeMS, err = strconv.Atoi(f[10]); err != nil {
		return bad("time_ms")
	}
	f = f[11:]
	for len(f) > 0 && f[0] == "top" {
		if len(f) < 8 || f[2] != "prior" || f[4] != "visits" || f[6] != "q" {
			return bad("want 'top TOKEN prior P visits V q Q'")
		}
		t := infoTop{action: f[1], q: f[7]}
		if t.prior, err = strconv.ParseFloat(f[3], 64); err != nil {
			return bad("prior")
		}
		if t.visits, err = strconv.Atoi(f[5]); err != nil {
			return bad("top visits")
		}
		if t.q != "-" {
			if q, err := strconv.ParseFloat(t.q, 64); err != nil || q < -1 || q > 1 {
				return bad("q")
			}
		}
		in.top = append(in.top, t)
		f = f[8:]
	}
	if len(f) > 0 {
		if f[0] != "pv" || len(f) < 2 {
			return bad("want 'pv TOKEN...' at the end")
		}
		in.pv = f[1:]
	}
	return in, nil
}

// checkInfo checks an info line's numbers against the position's legal actions.
func checkInfo(t *testing.T, in info, legal map[string]bool, side string) {
	t.Helper()
	if in.side != side || in.visits < 1 || math.Abs(in.wdl[0]+in.wdl[1]+in.wdl[2]-1) > 0.01 || len(in.top) == 0 || len(in.pv) == 0 {
		t.Errorf("info %+v", in)
	}
	sum := 0
	for i, tp := range in.top {
		if !legal[tp.action] || tp.visits > in.visits || i > 0 && tp.visits > in.top[i-1].visits {
			t.Errorf("top %+v (of %+v)", tp, in)
		}
		sum += tp.visits
	}
	if sum > in.visits || !legal[in.pv[0]] {
		t.Errorf("info: top visits %d of %d, pv %v", sum, in.visits, in.pv)
	}
}

// analysisEngine returns a rollout engine in a blitz midgame and its legal actions.
func analysisEngine(t *testing.T, player string) (*Engine, map[string]bool) {
	t.Helper()
	e := newEngine(t, Options{Player: player, Seed: 1, Variant: env.Blitz})
	if a := ask(t, e, "play e5 f6 e6 f7 e7 f8 e8 f9 e9 f10"); !a.OK {
		t.Fatal(a.Text)
	}
	legal := map[string]bool{}
	for _, tok := range strings.Fields(ask(t, e, "legal").Text) {
		legal[tok] = true
	}
	return e, legal
}

// pipeSession runs an engine's protocol loop on pipes, for commands sent while answers stream.
type pipeSession struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func startPipe(t *testing.T, e *Engine) *pipeSession {
	cmdR, cmdW := io.Pipe()
	ansR, ansW := io.Pipe()
	p := &pipeSession{t: t, in: cmdW, out: bufio.NewReader(ansR), done: make(chan error, 1)}
	go func() { p.done <- e.Run(cmdR, ansW); ansW.Close() }()
	return p
}

func (p *pipeSession) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *pipeSession) line() string {
	p.t.Helper()
	l, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read: %v (got %q)", err, l)
	}
	return strings.TrimSuffix(l, "\n")
}

func (p *pipeSession) finish() {
	p.t.Helper()
	p.send("quit")
	if a, err := ReadAnswer(p.out); err != nil || !a.OK {
		p.t.Fatalf("quit: %+v %v", a, err)
	}
	if err := <-p.done; err != nil {
		p.t.Fatal(err)
	}
}

// TestAnalyzeStream drives analyze 100 for about a second through the protocol loop: at least 5 info
// lines with growing visits, stopped by the next command, whose answer follows the analysis' empty
// line.
func TestAnalyzeStream(t *testing.T) {
	e, legal := analysisEngine(t, "rollout:50")
	p := startPipe(t, e)
	start := time.Now()
	p.send("7 analyze 100")
	if l := p.line(); l != "=7 " {
		t.Fatalf("first line %q, want %q", l, "=7 ")
	}
	var infos []info
	stopSent := false
	for {
		l := p.line()
		if l == "" {
			break // the analysis' answer ends
		}
		in, err := parseInfo(l)
		if err != nil {
			t.Fatal(err)
		}
		checkInfo(t, in, legal, "w")
		infos = append(infos, in)
		if !stopSent && len(infos) >= 6 { // an unbounded analysis streams until stopped: no clock here
			p.send("8 name") // any command stops the analysis, then runs
			stopSent = true
		}
	}
	if !stopSent {
		t.Fatal("the analysis ended by itself")
	}
	if a, err := ReadAnswer(p.out); err != nil || a != (Answer{OK: true, ID: "8", Text: Name}) {
		t.Fatalf("the command after the analysis: %+v %v", a, err)
	}
	if len(infos) < 6 { // six before the stop, and the last one after it
		t.Fatalf("%d info lines in %v", len(infos), time.Since(start))
	}
	for i := 1; i < len(infos); i++ {
		if infos[i].visits <= infos[i-1].visits || infos[i].timeMS < infos[i-1].timeMS {
			t.Errorf("info %d: visits %d after %d, time %d after %d", i, infos[i].visits, infos[i-1].visits, infos[i].timeMS, infos[i-1].timeMS)
		}
	}
	if ms := infos[len(infos)-2].timeMS; ms < 500 {
		t.Errorf("six info lines at 100 ms intervals after %d ms", ms)
	}
	// The framing holds: the engine answers as usual, and a new analysis of the same position
	// keeps the tree (its visits start above the last ones).
	p.send("9 turn")
	if a, err := ReadAnswer(p.out); err != nil || a.Text != "w move" || a.ID != "9" {
		t.Fatalf("turn: %+v %v", a, err)
	}
	p.send("analyze 50")
	p.line()
	first, err := parseInfo(p.line())
	if err != nil {
		t.Fatal(err)
	}
	if first.visits <= infos[len(infos)-1].visits {
		t.Errorf("second analysis starts at %d visits, the first ended at %d", first.visits, infos[len(infos)-1].visits)
	}
	// blank and comment lines do not stop an analysis; quit does (its answer follows the empty line)
	p.send("")
	p.send("# a comment")
	for range 3 { // the analysis goes on
		if l := p.line(); !strings.HasPrefix(l, "info ") {
			t.Fatalf("after a blank and a comment line: %q", l)
		}
	}
	p.send("10 quit")
	for l := p.line(); l != ""; l = p.line() {
		if _, err := parseInfo(l); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := ReadAnswer(p.out); err != nil || a != (Answer{OK: true, ID: "10"}) {
		t.Fatalf("quit: %+v %v", a, err)
	}
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
}

// TestAnalyzeBudget: an analysis with a budget ends by itself, also at the end of the input; one
// without stops at the end of the input; Exec runs budgets only.
func TestAnalyzeBudget(t *testing.T) {
	e, legal := analysisEngine(t, "rollout:50")
	lastInfo := func(text string) info {
		t.Helper()
		lines := strings.Split(strings.TrimPrefix(text, "\n"), "\n")
		in, err := parseInfo(lines[len(lines)-1])
		if err != nil {
			t.Fatal(err)
		}
		checkInfo(t, in, legal, "w")
		return in
	}
	// Exec (and the bytes Run writes: the same answer)
	a := ask(t, e, "analyze 10 sims 300 top 3")
	if !a.OK || !strings.HasPrefix(a.Text, "\ninfo side w visits ") {
		t.Fatalf("analyze sims 300: %+v", a)
	}
	if in := lastInfo(a.Text); in.visits < 300 || len(in.top) != 3 {
		t.Errorf("after sims 300: %+v", in)
	}
	if _, ok, text, _ := e.Exec("analyze sims 100"); !ok || lastInfo(text).visits < 400 {
		t.Errorf("the same position again: %q", text) // the tree is kept
	}
	if _, ok, text, _ := e.Exec("analyze"); ok || !strings.Contains(text, "only under Run") {
		t.Errorf("Exec analyze without a budget: %v %q", ok, text)
	}
	// Run: the budget ends the answer, the next command is answered after it
	raw := run(t, e, "1 analyze movetime 150\n2 name\n")
	as := answers(t, raw)
	if len(as) != 2 || as[0].ID != "1" || !as[0].OK || as[1] != (Answer{OK: true, ID: "2", Text: Name}) {
		t.Fatalf("analyze movetime, name: %q", raw)
	}
	if !strings.HasPrefix(raw, "=1 \ninfo side w ") {
		t.Errorf("analysis answer %q", raw)
	}
	// at the end of the input, a budget runs out; no budget stops at once
	start := time.Now()
	if as := answers(t, run(t, e, "analyze movetime 300")); len(as) != 1 || time.Since(start) < 300*time.Millisecond {
		t.Errorf("analyze movetime 300 at the end of input: %+v after %v", as, time.Since(start))
	}
	// (one that did not stop would hang the test: no clock is read for it)
	if as := answers(t, run(t, e, "analyze\n")); len(as) != 1 || !as[0].OK {
		t.Errorf("analyze at the end of input: %+v", as)
	}
	// a new position starts a new tree
	ask(t, e, "play e5-e1")
	text := ask(t, e, "analyze sims 50").Text
	if in, err := parseInfo(text[strings.LastIndex(text, "\n")+1:]); err != nil || in.side != "b" || in.visits < 50 || in.visits >= 400 {
		t.Errorf("after a move: %+v %v", in, err)
	}
	// errors
	for line, want := range map[string]string{
		"analyze 5":             `analyze: interval "5", want milliseconds in [10, 3600000]`,
		"analyze sims 0":        `analyze: sims "0", want an integer in [1, 10000000]`,
		"analyze movetime x":    `analyze: movetime "x", want milliseconds in [1, 3600000]`,
		"analyze top 1000":      `analyze: top "1000", want a count in [0, 200]`,
		"analyze sims":          "usage: analyze " + analyzeArgs,
		"analyze sims 5 sims 6": "usage: analyze " + analyzeArgs,
		"analyze depth 3":       `analyze: unknown argument "depth" (usage: analyze ` + analyzeArgs + ")",
	} {
		if a := ask(t, e, line); a.OK || a.Text != want {
			t.Errorf("%q: %+v, want %q", line, a, want)
		}
	}
	end, outcome := terminalText(t)
	ask(t, e, "position "+end)
	if a := ask(t, e, "analyze sims 5"); a.OK || a.Text != "the game is over (result "+outcome.String()+")" {
		t.Errorf("analyze a finished game: %+v", a)
	}
	if a := ask(t, e, "policy"); a.OK || !strings.Contains(a.Text, "the game is over") {
		t.Errorf("policy of a finished game: %+v", a)
	}
	// set player drops the analysis tree and its searcher
	ask(t, e, "newgame")
	if a := ask(t, e, "set player heuristic"); !a.OK || e.search != nil || e.atree != nil {
		t.Errorf("set player: %+v, searcher %v", a, e.search)
	}
}

func TestGTPAliases(t *testing.T) {
	e := newEngine(t, Options{Player: "random", Seed: 1, Variant: env.Blitz})
	for _, c := range []struct {
		line string
		ok   bool
		want string
	}{
		{"boardsize 19", true, "ignored: YINSH has one board (85 points)"},
		{"boardsize x", false, `boardsize: want an integer, got "x"`},
		{"boardsize", false, "usage: boardsize N"},
		{"komi 7.5", true, "ignored: YINSH has no komi"},
		{"komi x", false, `komi: want a number, got "x"`},
		{"play e5", true, ""},
		{"clear_board", true, ""},
		{"moves", true, ""},
		{"set", true, "player random\nsims 200\nseed 1\nvariant blitz\nmovetime 0"}, // the variant stays
		{"genmove b", false, "genmove: black is not to act: white is to place a ring"},
		{"genmove red", false, `genmove: colour "red", want w, b, white or black`},
		{"play b e5", false, "play: black is not to act: white is to place a ring (nothing played)"},
		{"play W e5", true, ""},
		{"play black f6 e6", true, ""}, // the colour is the first action's
		{"play b", false, `bad action "b": bad point "b"`},
		{"moves", true, "e5 f6 e6"},
		{"genmove BLACK", true, "~"},
		{"genmove w", true, "~"},
		{"moves", true, "~e5 f6 e6 "},
		{"known_command clear_board", true, "true"},
	} {
		a := ask(t, e, c.line)
		match := a.Text == c.want
		if rest, ok := strings.CutPrefix(c.want, "~"); ok {
			match = strings.Contains(a.Text, rest)
		}
		if a.OK != c.ok || !match {
			t.Errorf("%q: %+v, want ok=%v %q", c.line, a, c.ok, c.want)
		}
	}
	if n := len(strings.Fields(ask(t, e, "moves").Text)); n != 5 {
		t.Errorf("%d moves", n)
	}
	end, _ := terminalText(t)
	ask(t, e, "position "+end)
	if a := ask(t, e, "genmove w"); a.OK || !strings.HasPrefix(a.Text, "the game is over") {
		t.Errorf("genmove w after the end: %+v", a)
	}
}

// checkpointFile writes a freshly initialised tiny network and returns its path.
func checkpointFile(t testing.TB) string {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonum.New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.ckpt")
	if err := net.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPolicyAndAnalyzeCheckpoint: policy gives the network's prior, summing to 1 over the legal
// actions, most probable first; analyze searches with the network.
func TestPolicyAndAnalyzeCheckpoint(t *testing.T) {
	ck := checkpointFile(t)
	e, legal := analysisEngine(t, ck)
	defer e.Close()
	e.Exec("set sims 16")
	a := ask(t, e, "policy")
	lines := strings.Split(a.Text, "\n")
	if !a.OK || lines[0] != "source network" || !strings.HasPrefix(lines[1], "wdl ") {
		t.Fatalf("policy: %+v", a)
	}
	seen := map[string]bool{}
	sum, prev := 0.0, 2.0
	for _, l := range lines[2:] {
		var tok string
		var p float64
		if _, err := fmt.Sscanf(l, "%s %f", &tok, &p); err != nil || !legal[tok] || seen[tok] || p < 0 || p > prev {
			t.Fatalf("policy line %q (%v)", l, err)
		}
		seen[tok] = true
		sum += p
		prev = p
	}
	if len(seen) != len(legal) || math.Abs(sum-1) > 1e-3 {
		t.Errorf("policy: %d of %d legal actions, sum %v", len(seen), len(legal), sum)
	}
	a = ask(t, e, "analyze 10 sims 64")
	if !a.OK {
		t.Fatal(a.Text)
	}
	ls := strings.Split(strings.TrimPrefix(a.Text, "\n"), "\n")
	in, err := parseInfo(ls[len(ls)-1])
	if err != nil {
		t.Fatal(err)
	}
	checkInfo(t, in, legal, "w")
	if in.visits < 64 {
		t.Errorf("visits %d", in.visits)
	}
	// rollout players have no network: a uniform prior, said so
	ask(t, e, "set player rollout:10")
	a = ask(t, e, "policy")
	if !a.OK || !strings.HasPrefix(a.Text, "source uniform\n") || strings.Count(a.Text, "\n") != len(legal) {
		t.Errorf("policy of rollout:10: %+v", a)
	}
}
