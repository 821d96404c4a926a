package engine

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// Bounds of FuzzEngineLines: inputs of more lines are skipped, and so are inputs that would make
// a search run longer than the bounds (see fuzzSlow).
const (
	fuzzMaxLines = 10
	fuzzMaxSims  = 16
	fuzzMaxTime  = 2 * time.Millisecond
	// fuzzCheckpoint in an input stands for the test's checkpoint file.
	fuzzCheckpoint = "CKPT"
)

// fuzzSessions are protocol sessions of the engine's tests and docs/engine-protocol.md, the seeds
// of FuzzEngineLines (testdata/fuzz/FuzzEngineLines holds them too).
var fuzzSessions = []string{
	"protocol_version\nname\nversion\nknown_command genmove\nhelp play\nlist_commands\nquit\n",
	"  \n# only a comment\n\t\n\r\n2 name # trailing comment\r\nna\x01me\x7f\n\tknown_command\tplay\nname",
	"12a name\n1234567890123456789 name\n5\n3 frobnicate x\n4 name extra\nplay\nquit\nname\n",
	"newgame blitz\nplay e5 f6 e6 f7 e7 f8 e8 f9 e9 f10\neval 3\ngenmove_info\nturn\nmoves\n",
	"1 newgame blitz\n2 play e5 f6 e6 f7 e7 f8 e8 f9 e9 f10\n3 analyze 10 sims 8 top 3\n4 name\n",
	"position WWWWW..........w.......w.....wwww........w......bbbbB............................BBBB w 0-0\nplay b1-c2\nshowboard\nturn\nlegal\nposition\n",
	"set player CKPT\nset sims 4\ngenmove\npolicy\nanalyze 10 sims 4\neval 2\n",
	"set player rollout:8\nnewgame blitz\nanalyze 10\n\n# still analysing\nundo\nmoves\nlegal\n",
	"time_settings 0.3 0 0\ngenmove b\ngenmove white\ntime_left w 0.2 0\nclear_board\nboardsize 19\nkomi 6.5\n",
	"set movetime 2\nset seed 7\nset\nplay w e5\ngenmove black\nundo 2\nresult\nquit\n",
	"set player heuristic\nplay e5 f6\ngenmove\nundo\nundo 5\nplay b e5\nplay x1 e5\nnewgame standard\n",
	"set player CKPT\nnewgame blitz\nplay e5 f6 e6 f7 e7 f8 e8 f9 e9 f10\nanalyze movetime 2 top 2\ngenmove_info\nset player random\n",
}

func FuzzEngineLines(f *testing.F) {
	for _, s := range fuzzSessions {
		f.Add(s)
	}
	ck := checkpointFile(f)
	nets := netCache{loader: loadGonum} // loaded once: every engine of the fuzz run shares the network
	// ck is a file, not "reference": the variant names no network
	if _, err := nets.load(ck, env.Standard); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input string) {
		if strings.Count(input, "\n") > fuzzMaxLines {
			t.Skip("more than a few lines")
		}
		input = strings.ReplaceAll(input, fuzzCheckpoint, ck)
		// No input may run long: a hang panics, which the fuzzer reports as a crash with the input.
		watchdog := time.AfterFunc(20*time.Second, func() {
			panic(fmt.Sprintf("FuzzEngineLines: input still running after 20 s: %q", input))
		})
		defer watchdog.Stop()
		for _, player := range []string{"random", ck} {
			fuzzSession(t, input, player, ck, nets)
		}
	})
}

// fuzzSession runs input through Exec, line by line, then through Run on a fresh engine with the
// same player, and checks every answer: well-formed (= or ?, a valid id or none, no empty line
// inside), one per command line up to quit, in order.
func fuzzSession(t *testing.T, input, player, ck string, nets netCache) {
	open := func() *Engine {
		e, err := New(Options{Player: "random", Search: selfplay.Search{Sims: 2}, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		e.nets = nets
		if _, ok, text, _ := e.Exec("set player " + player); !ok {
			t.Fatalf("set player %s: %s", player, text)
		}
		return e
	}
	e := open()
	defer e.Close()
	var want []string // the ids of the answers, in order
	br := bufio.NewReaderSize(strings.NewReader(input), protocol.MaxLine)
	for {
		b, tooLong, err := protocol.ReadLine(br)
		line := string(b)
		switch {
		case tooLong:
			want = append(want, "")
		case fuzzSlow(e, ck, line) != "":
			t.Skipf("%s: %q", fuzzSlow(e, ck, line), line)
		default:
			id, ok, text, answered := e.Exec(line)
			if answered != (protocol.Clean(line) != "") {
				t.Fatalf("Exec(%q): answered %v", line, answered)
			}
			if answered {
				checkWellFormed(t, line, id, ok, text)
				want = append(want, id)
			}
		}
		if err != nil || e.quit {
			break
		}
	}

	r := open()
	defer r.Close()
	var out bytes.Buffer
	if err := r.Run(strings.NewReader(input), &out); err != nil {
		t.Fatalf("Run: %v", err)
	}
	ar := bufio.NewReader(&out)
	var got []string
	for {
		_, id, _, err := protocol.ReadAnswer(ar)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Run's output %q: %v", out.String(), err)
		}
		got = append(got, id)
	}
	if len(got) != len(want) || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Run answered ids %q, Exec %q; output %q", got, want, out.String())
	}
}

// checkWellFormed checks one of Exec's answers as Run frames it.
func checkWellFormed(t *testing.T, line, id string, ok bool, text string) {
	t.Helper()
	if id != "" && !protocol.ValidID(id) {
		t.Fatalf("%q: answer id %q", line, id)
	}
	raw := protocol.FormatAnswer(id, ok, text)
	gotOK, gotID, _, err := protocol.ReadAnswer(bufio.NewReader(strings.NewReader(raw)))
	if err != nil || gotOK != ok || gotID != id || strings.Count(raw, "\n\n") != 1 || !strings.HasSuffix(raw, "\n\n") {
		t.Fatalf("%q: answer %q (%v)", line, raw, err)
	}
}

// fuzzSlow returns why line, run on e next, is left out of the fuzz run (empty: it is not).
//
// The engine bounds what a line can ask for, but the bounds are for play and analysis, not for a
// fuzz run: set sims takes up to 100,000,000 simulations a decision, rollout:N up to 10,000,000,
// set movetime (and time_settings, time_left) up to an hour, analyze sims and movetime as much. A
// search (genmove, genmove_info, eval, analyze) that would spend more than fuzzMaxSims simulations
// or fuzzMaxTime is skipped. An analysis without a budget is not: Exec refuses it, Run stops it at
// the next line or the end of the input. set player engine:"CMD" starts a process and is skipped,
// and so are paths other than the test's checkpoint (a device or a named pipe, or whatever files
// the machine has).
func fuzzSlow(e *Engine, ck, line string) string {
	f := strings.Fields(protocol.Clean(line))
	if len(f) > 0 && f[0][0] >= '0' && f[0][0] <= '9' {
		f = f[1:]
	}
	if len(f) == 0 {
		return ""
	}
	name, args := strings.ToLower(f[0]), f[1:]
	switch name {
	case "set":
		if len(args) != 2 || strings.ToLower(args[0]) != "player" {
			return ""
		}
		switch spec := args[1]; {
		case strings.HasPrefix(spec, protocol.SpecPrefix):
			return "an external engine (it starts a process)"
		case spec != ck && strings.ContainsAny(spec, `/\`):
			return "a file other than the test's checkpoint"
		}
	case "genmove", "genmove_info", "eval":
		if e.state.IsTerminal() {
			return ""
		}
		rollout := strings.HasPrefix(e.spec, "rollout:")
		if !rollout && !isCheckpointSpec(e.spec) {
			return "" // random, heuristic
		}
		if e.set.MoveTime > 0 {
			if e.set.MoveTime > fuzzMaxTime {
				return "a move time over the fuzz bound"
			}
			return ""
		}
		n := e.set.Sims
		if rollout {
			n, _ = selfplay.ParseRollout(e.spec)
		}
		if n > fuzzMaxSims {
			return "simulations over the fuzz bound"
		}
	case "analyze":
		_, b, _, err := parseAnalyze(args)
		if err != nil || !b.bounded() || b.Sims > 0 && b.Sims <= fuzzMaxSims || b.MoveTime > 0 && b.MoveTime <= fuzzMaxTime {
			return ""
		}
		return "an analysis budget over the fuzz bound"
	}
	return ""
}
