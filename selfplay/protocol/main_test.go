package protocol_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// The test binary doubles as the engines the tests drive: with PROTOCOL_FAKE set, TestMain serves the
// protocol on stdin/stdout instead of running tests.
//
//	PROTOCOL_FAKE   real (engine.Run with the random player), or a fault mode served by fakeServe:
//	                hang, crash, illegal, garbage, badinfo, refuse (at the Nth genmove), slow (at start),
//	                exit (exits 1 at start), version (protocol_version 3)
//	PROTOCOL_N      the genmove (genmove or genmove_info, counted from 1) at which the fault happens
//	PROTOCOL_ONCE   a file: the fault happens only in the first process that creates it
//	PROTOCOL_DELAY  slow mode's start delay (a time.Duration)
//	PROTOCOL_SEED   the random player's seed
//	PROTOCOL_PIDFILE a file the process writes its pid to
func TestMain(m *testing.M) {
	if mode := os.Getenv("PROTOCOL_FAKE"); mode != "" {
		os.Exit(fakeMain(mode))
	}
	os.Exit(m.Run())
}

func fakeMain(mode string) int {
	if f := os.Getenv("PROTOCOL_PIDFILE"); f != "" {
		os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	seed, _ := strconv.ParseUint(os.Getenv("PROTOCOL_SEED"), 10, 64)
	fmt.Fprintf(os.Stderr, "fake: ready mode=%s pid=%d\n", mode, os.Getpid())
	e, err := engine.New(engine.Options{Player: "random", Seed: seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	switch mode {
	case "real":
		if err := e.Run(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			return 1
		}
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "fake: bad flag --frobnicate")
		return 1
	case "slow":
		d, _ := time.ParseDuration(os.Getenv("PROTOCOL_DELAY"))
		time.Sleep(d)
	}
	n, _ := strconv.Atoi(os.Getenv("PROTOCOL_N"))
	return fakeServe(e, mode, n)
}

// fire reports whether the fault happens now: always, or with PROTOCOL_ONCE only in the first process
// that gets here.
func fire() bool {
	f := os.Getenv("PROTOCOL_ONCE")
	if f == "" {
		return true
	}
	file, err := os.OpenFile(f, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	file.Close()
	return true
}

// fakeServe is a protocol server built from the package's framing functions around a real engine, with
// one fault injected.
func fakeServe(e *engine.Engine, mode string, n int) int {
	br := bufio.NewReaderSize(os.Stdin, protocol.MaxLine)
	bw := bufio.NewWriter(os.Stdout)
	genmoves := 0
	for {
		line, tooLong, err := protocol.ReadLine(br)
		if err != nil && err != io.EOF {
			return 1
		}
		if tooLong {
			protocol.WriteAnswer(bw, "", false, protocol.TooLongMessage)
		} else {
			f := strings.Fields(protocol.Clean(string(line)))
			id, name := "", ""
			if len(f) > 0 && protocol.ValidID(f[0]) {
				id, f = f[0], f[1:]
			}
			if len(f) > 0 {
				name = strings.ToLower(f[0])
			}
			handled := false
			switch {
			case name == "protocol_version" && mode == "version":
				protocol.WriteAnswer(bw, id, true, "3")
				handled = true
			case name == "genmove" || name == "genmove_info":
				genmoves++
				if genmoves == n && fire() {
					handled = true
					switch mode {
					case "hang":
						fmt.Fprintln(os.Stderr, "fake: hanging")
						time.Sleep(time.Hour)
					case "crash":
						fmt.Fprintf(os.Stderr, "fake: crashing at genmove %d\n", n)
						return 3
					case "refuse":
						protocol.WriteAnswer(bw, id, false, "player fake: no idea")
					case "garbage":
						bw.WriteString("hello, I am not an engine\n\n")
					case "badinfo":
						protocol.WriteAnswer(bw, id, true, "action e5\nside w\ntop e5 prior lots")
					case "illegal":
						s := e.State()
						a := env.Action(0)
						for s.IsLegal(a) {
							a++
						}
						protocol.WriteAnswer(bw, id, true, "action "+a.String())
					default:
						handled = false
					}
				}
			}
			if !handled {
				if id, ok, text, answered := e.Exec(string(line)); answered {
					protocol.WriteAnswer(bw, id, ok, text)
				}
			}
			if name == "quit" {
				bw.Flush()
				return 0
			}
		}
		if bw.Flush() != nil || err == io.EOF {
			return 0
		}
	}
}

// fake returns the argv and options that start this test binary as an engine of the given mode; extra
// holds more KEY=value settings.
func fake(t testing.TB, mode string, extra ...string) ([]string, protocol.Options) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A race-enabled binary sleeps a second at exit unless told not to.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	opts := protocol.Options{
		Env:            append([]string{"PROTOCOL_FAKE=" + mode, "GORACE=" + gorace}, extra...),
		Label:          "fake-" + mode,
		CommandTimeout: 5 * time.Second,
		Log:            slog.New(slog.DiscardHandler),
	}
	return []string{exe, "-test.run=^$"}, opts
}

func startFake(t testing.TB, mode string, extra ...string) *protocol.Client {
	t.Helper()
	argv, opts := fake(t, mode, extra...)
	c, err := protocol.Start(context.Background(), argv, opts)
	if err != nil {
		t.Fatalf("start %s: %v", mode, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// leakCheck fails the test if it ends with more goroutines than it started with. Call it first, so
// that its cleanup runs after the others (clients closed).
func leakCheck(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second) // generous: goroutines end soon after, on a loaded machine too
		for {
			now := runtime.NumGoroutine()
			if now <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("goroutines: %d before, %d after\n%s", before, now, buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// reaped fails unless the client's process has exited and been waited for.
func reaped(t *testing.T, c *protocol.Client) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("process %d not reaped", c.Pid())
	}
	if c.ExitStatus() == "" {
		t.Errorf("no exit status after Done")
	}
	if processExists(c.Pid()) {
		t.Errorf("process %d still exists after being reaped", c.Pid())
	}
}
