package protocol_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

func asError(t *testing.T, err error, kind protocol.Kind) *protocol.Error {
	t.Helper()
	var e *protocol.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *protocol.Error", err, err)
	}
	if e.Kind != kind {
		t.Fatalf("error %q has kind %v, want %v", err, e.Kind, kind)
	}
	return e
}

func TestClientCommands(t *testing.T) {
	leakCheck(t)
	c := startFake(t, "real")
	if c.Name() != "YINSH Zero" || !c.Alive() {
		t.Fatalf("name %q alive %v", c.Name(), c.Alive())
	}
	cmds, err := c.Command(0, "list_commands")
	if err != nil || !strings.Contains(cmds, "\ngenmove_info\n") {
		t.Fatalf("list_commands: %q, %v", cmds, err)
	}
	if err := c.NewGame(env.Blitz); err != nil {
		t.Fatal(err)
	}
	if err := c.Play("e5", "f6"); err != nil {
		t.Fatal(err)
	}
	err = c.Play("e5")
	e := asError(t, err, protocol.KindFailed)
	if !errors.Is(err, protocol.ErrFailed) || e.Message != `illegal action "e5": e5 is occupied` || e.Command != "play" {
		t.Fatalf("play e5 again: %+v", e)
	}
	if want := `protocol: engine "fake-real": play: illegal action "e5": e5 is occupied`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if !c.Alive() {
		t.Fatal("a '?' answer killed the client")
	}
	if _, err := c.Command(0, "play", "e5 # f6"); err == nil || c.Err() != nil {
		t.Errorf("a '#' in an argument: %v (client error %v)", err, c.Err())
	}
	if _, err := c.Command(0, "play\nquit"); err == nil {
		t.Error("a newline in the command name was sent")
	}
	board, err := c.Command(0, "showboard")
	if err != nil || !strings.HasPrefix(board, "\n11 ") {
		t.Fatalf("showboard: %q, %v", board, err)
	}
	s := env.NewState(env.Blitz)
	for _, tok := range []string{"e5", "f6"} {
		a, _ := env.ParseAction(tok)
		s.ApplyAction(a)
	}
	a, info, err := c.Genmove(0)
	if err != nil {
		t.Fatal(err)
	}
	if a != info.Action || !info.HasSide || info.Side != env.White || info.HasWDL || !s.IsLegal(a) {
		t.Fatalf("genmove: %v %+v", a, info)
	}
	if moves, _ := c.Command(0, "moves"); moves != "e5 f6 "+a.String() {
		t.Errorf("moves %q", moves)
	}
	if err := c.SetPosition(s.Text()); err != nil {
		t.Fatal(err)
	}
	if pos, _ := c.Command(0, "position"); pos != s.Text() {
		t.Errorf("position %q, want %q", pos, s.Text())
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Error("Close returned before the process was reaped")
	}
	reaped(t, c)
	if st := c.ExitStatus(); st != "exit status 0" {
		t.Errorf("exit status %q after quit", st)
	}
	_, err = c.Command(0, "name")
	asError(t, err, protocol.KindClosed)
	if !errors.Is(err, protocol.ErrClosed) || c.Alive() || c.Close() != nil {
		t.Errorf("after close: %v alive %v", err, c.Alive())
	}
}

func TestParseInfo(t *testing.T) {
	info, err := protocol.ParseInfo("action e5-j5\nside w\ntime_ms 3.873\nwdl 0.483 0.075 0.443\n" +
		"top e5-j5 prior 0.0238 visits 51 q 0.216\ntop e7-a3 prior 0.0238 visits 0 q - extra 1\n" +
		"future key\npv e5-j5 f6-f4")
	if err != nil {
		t.Fatal(err)
	}
	tok := func(s string) env.Action { a, _ := env.ParseAction(s); return a }
	if info.Action != tok("e5-j5") || info.Side != env.White || info.TimeMS != 3.873 || !info.HasWDL ||
		info.WDL != [3]float32{0.483, 0.075, 0.443} || len(info.Top) != 2 || len(info.PV) != 2 {
		t.Fatalf("%+v", info)
	}
	if c := info.Top[0]; c.Action != tok("e5-j5") || c.Prior != 0.0238 || c.Visits != 51 || !c.HasQ || c.Q != 0.216 {
		t.Errorf("top 0: %+v", c)
	}
	if c := info.Top[1]; c.HasQ || c.Visits != 0 {
		t.Errorf("top 1: %+v", c)
	}
	if info.PV[1] != tok("f6-f4") {
		t.Errorf("pv %v", info.PV)
	}
	for _, bad := range []struct{ text, line string }{
		{"side w", "no action"},
		{"action zz9", `"action zz9"`},
		{"action e5 e6", `"action e5 e6"`},
		{"action e5\nwdl 0.5 0.5", `"wdl 0.5 0.5"`},
		{"action e5\nwdl 0.5 NaN 0.5", `"wdl 0.5 NaN 0.5"`},
		{"action e5\ntime_ms inf", `"time_ms inf"`},
		{"action e5\ntop e6 prior", `"top e6 prior"`},
		{"action e5\ntop e6 visits -1", `"top e6 visits -1"`},
		{"action e5\ntop e6 q high", `"top e6 q high"`},
		{"action e5\npv e5 e99", `"pv e5 e99"`},
		{"action e5\nside x", `"side x"`},
	} {
		if _, err := protocol.ParseInfo(bad.text); err == nil || !strings.Contains(err.Error(), bad.line) {
			t.Errorf("ParseInfo(%q) error %v, want one naming %s", bad.text, err, bad.line)
		}
	}
}

// fault starts a fake engine that misbehaves at its nth genmove and drives it to there.
func fault(t *testing.T, mode string, n int, timeout time.Duration) (*protocol.Client, error) {
	t.Helper()
	c := startFake(t, mode, "PROTOCOL_N="+strconv.Itoa(n))
	if err := c.NewGame(env.Standard); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if _, _, err := c.Genmove(timeout); err != nil {
			t.Fatalf("genmove %d: %v", i, err)
		}
	}
	_, _, err := c.Genmove(timeout)
	return c, err
}

// dead checks that the client is dead with err and fails fast with the same error.
func dead(t *testing.T, c *protocol.Client, err error) {
	t.Helper()
	reaped(t, c)
	if c.Alive() || c.Err() != err {
		t.Errorf("alive %v, Err %v, want %v", c.Alive(), c.Err(), err)
	}
	start := time.Now()
	if _, err2 := c.Command(0, "name"); err2 != err {
		t.Errorf("later command: %v, want the same error %v", err2, err)
	}
	// Genmove(0) has no timeout: a dead client that tried the process would hang here, which
	// within(…) turns into a failure; the 100 ms figure is checked only with YINSH_TIMING_TESTS=1.
	within(t, "later genmove", 10*time.Second, func() {
		if _, _, err2 := c.Genmove(0); err2 != err {
			t.Errorf("later genmove: %v, want the same error %v", err2, err)
		}
	})
	timing(t, "later command and genmove of a dead client", time.Since(start), 100*time.Millisecond)
	if err := c.Close(); err != nil {
		t.Errorf("close of a dead client: %v", err)
	}
}

func TestClientTimeout(t *testing.T) {
	leakCheck(t)
	start := time.Now()
	c, err := fault(t, "hang", 2, 300*time.Millisecond)
	e := asError(t, err, protocol.KindTimeout)
	if !errors.Is(err, protocol.ErrTimeout) || e.Timeout != 300*time.Millisecond || e.Command != "genmove_info" ||
		!strings.Contains(e.Stderr, "fake: hanging") || e.Exit != "signal: killed" {
		t.Fatalf("%+v", e)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, `protocol: engine "fake-hang": genmove_info: timed out after 300ms (process killed); stderr: "fake: ready`) ||
		!strings.Contains(msg, `fake: hanging"`) {
		t.Errorf("message %q", msg)
	}
	timing(t, "a 300 ms genmove timeout", time.Since(start), 3*time.Second)
	if !protocol.Forfeits(err) {
		t.Error("a timeout does not forfeit")
	}
	dead(t, c, err)
}

func TestClientCrash(t *testing.T) {
	leakCheck(t)
	c, err := fault(t, "crash", 3, 0)
	e := asError(t, err, protocol.KindExited)
	if !errors.Is(err, protocol.ErrExited) || e.Exit != "exit status 3" || !strings.Contains(e.Stderr, "crashing at genmove 3") {
		t.Fatalf("%+v", e)
	}
	if want := `protocol: engine "fake-crash": genmove_info: engine exited (exit status 3); stderr: "fake: ready`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want prefix %q", err, want)
	}
	dead(t, c, err)
}

func TestClientGarbage(t *testing.T) {
	leakCheck(t)
	c, err := fault(t, "garbage", 1, 0)
	e := asError(t, err, protocol.KindProtocol)
	if !errors.Is(err, protocol.ErrProtocol) || !strings.Contains(e.Message, `"hello, I am not an engine"`) ||
		!strings.Contains(e.Stderr, "fake: ready") {
		t.Fatalf("%+v", e)
	}
	dead(t, c, err)

	c, err = fault(t, "badinfo", 2, 0)
	e = asError(t, err, protocol.KindProtocol)
	if !strings.Contains(e.Message, `genmove_info line "top e5 prior lots"`) {
		t.Fatalf("%+v", e)
	}
	dead(t, c, err)
}

func TestClientStartFailures(t *testing.T) {
	leakCheck(t)
	dir := t.TempDir()
	run := func(mode string, tweak func(*protocol.Options), extra ...string) (error, string) {
		t.Helper()
		pidfile := filepath.Join(dir, mode+".pid")
		argv, opts := fake(t, mode, append(extra, "PROTOCOL_PIDFILE="+pidfile)...)
		if tweak != nil {
			tweak(&opts)
		}
		c, err := protocol.Start(context.Background(), argv, opts)
		if err == nil {
			c.Close()
			t.Fatalf("%s: started", mode)
		}
		b, _ := os.ReadFile(pidfile)
		if pid, _ := strconv.Atoi(string(b)); pid == 0 || processExists(pid) {
			t.Errorf("%s: process %q still there", mode, b)
		}
		return err, string(b)
	}

	begin := time.Now()
	err, _ := run("slow", func(o *protocol.Options) { o.StartTimeout = 300 * time.Millisecond }, "PROTOCOL_DELAY=20s")
	e := asError(t, err, protocol.KindTimeout)
	// the 20 s delay ended by the 300 ms start timeout (the error says which timeout fired)
	if e.Command != "protocol_version" || e.Timeout != 300*time.Millisecond {
		t.Errorf("slow start: %v after %v", err, time.Since(begin))
	}
	timing(t, "a 300 ms start timeout", time.Since(begin), 5*time.Second)

	err, _ = run("exit", nil)
	e = asError(t, err, protocol.KindExited)
	if e.Exit != "exit status 1" || !strings.Contains(err.Error(), "bad flag --frobnicate") {
		t.Errorf("exit at start: %v", err)
	}

	err, _ = run("version", nil)
	e = asError(t, err, protocol.KindProtocol)
	if e.Message != `protocol_version is "3", want "1" or "2"` {
		t.Errorf("version: %v", err)
	}

	_, err = protocol.Start(context.Background(), []string{filepath.Join(dir, "no-such-engine")}, protocol.Options{})
	asError(t, err, protocol.KindStart)
	if !errors.Is(err, protocol.ErrStart) || protocol.Forfeits(err) {
		t.Errorf("missing program: %v", err)
	}
	if _, err := protocol.Start(context.Background(), nil, protocol.Options{}); err == nil {
		t.Error("empty argv started")
	}

	// The slow engine starts fine when given the time.
	argv, opts := fake(t, "slow", "PROTOCOL_DELAY=200ms")
	c, err := protocol.Start(context.Background(), argv, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	reaped(t, c)
}

func TestClientCancel(t *testing.T) {
	leakCheck(t)
	argv, opts := fake(t, "hang", "PROTOCOL_N=1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := protocol.Start(ctx, argv, opts)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, _, err = c.Genmove(10 * time.Second)
	asError(t, err, protocol.KindClosed)
	if !errors.Is(err, context.Canceled) || protocol.Forfeits(err) {
		t.Fatalf("%v after %v", err, time.Since(start))
	}
	timing(t, "a genmove cancelled after 200 ms", time.Since(start), 3*time.Second)
	dead(t, c, err)

	if _, err := protocol.Start(ctx, argv, opts); !errors.Is(err, context.Canceled) {
		t.Errorf("start with a done context: %v", err)
	}
}

// TestClientCloseConcurrent closes a client from another goroutine while a command waits.
func TestClientCloseConcurrent(t *testing.T) {
	leakCheck(t)
	c := startFake(t, "hang", "PROTOCOL_N=1")
	errc := make(chan error)
	go func() {
		_, _, err := c.Genmove(10 * time.Second)
		errc <- err
	}()
	// wait for the engine to be inside the genmove (it says so on stderr), not for a fixed time
	waitFor(t, "the engine to hang in genmove", func() bool { return strings.Contains(c.Stderr(), "fake: hanging") })
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case <-c.Done():
	default:
		t.Error("Close returned before the process was reaped")
	}
	err := <-errc
	asError(t, err, protocol.KindClosed)
	timing(t, "close", time.Since(start), time.Second)
	reaped(t, c)
}
