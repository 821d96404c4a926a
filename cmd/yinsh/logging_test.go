package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/internal/progress"
)

// probeLogSettings runs the root command with a probe subcommand and returns the log settings the
// probe sees (its default level warn) and the exit code and stderr.
func probeLogSettings(t *testing.T, args ...string) (slog.Level, string, int, string) {
	t.Helper()
	root := newRootCmd()
	var level slog.Level
	var format string
	root.AddCommand(&cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, _ []string) error {
		var err error
		level, format, err = logSettings(cmd, slog.LevelWarn)
		return err
	}})
	var out, errb bytes.Buffer
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	code := 0
	if err := root.Execute(); err != nil {
		code = 1
		errb.WriteString(err.Error())
	}
	return level, format, code, errb.String()
}

func TestLogFlags(t *testing.T) {
	for _, c := range []struct {
		args   []string
		level  slog.Level
		format string
	}{
		{[]string{"probe"}, slog.LevelWarn, "text"}, // the command's default
		{[]string{"--log-level", "debug", "probe"}, slog.LevelDebug, "text"},
		{[]string{"probe", "--log-level=ERROR"}, slog.LevelError, "text"},
		{[]string{"probe", "--log-level", "info", "--log-format", "json"}, slog.LevelInfo, "json"},
		{[]string{"--log-format=text", "probe", "--log-level", "warn"}, slog.LevelWarn, "text"},
	} {
		level, format, code, errs := probeLogSettings(t, c.args...)
		if code != 0 || level != c.level || format != c.format {
			t.Errorf("%v: level %v format %q code %d %s; want %v %q", c.args, level, format, code, errs, c.level, c.format)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--log-level", "loud", "probe"}, `--log-level "loud": want debug, info, warn or error`},
		{[]string{"probe", "--log-format", "xml"}, `--log-format "xml": want text or json`},
	} {
		if _, _, code, errs := probeLogSettings(t, c.args...); code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d, stderr %q; want %q", c.args, code, errs, c.want)
		}
	}
	// through run: a bad value stops the command before it runs, with the CLI's error line
	if _, errs, code := runCLI(t, "", "--log-level", "loud", "show"); code != 1 || !strings.HasPrefix(errs, "yinsh: --log-level \"loud\"") {
		t.Errorf("run: code %d stderr %q", code, errs)
	}
	// engine keeps its own --log-level
	if _, errs, code := runCLI(t, "quit\n", "engine", "--log-level", "debug"); code != 0 {
		t.Errorf("engine --log-level debug: code %d stderr %q", code, errs)
	}
}

// TestLogHandlerFormats: on a terminal a short human line; elsewhere slog's text lines as before;
// json anywhere.
func TestLogHandlerFormats(t *testing.T) {
	var tty bytes.Buffer
	term := progress.NewScreen().Terminal(&tty, nil)
	log := slog.New(logHandler(term, slog.LevelInfo, "text"))
	log.Debug("hidden")
	log.Info("training stopped early: every position reached max_reuse", "steps", 37)
	log.With("gen", 3).WithGroup("eval").Warn("slow", "took", 1500*time.Millisecond, "vs", "rollout:200",
		"note", "two words", "err", errors.New("x=1"), slog.Group("", "inline", true))
	want := "INFO training stopped early: every position reached max_reuse steps=37\n" +
		"WARN slow gen=3 eval.took=1.5s eval.vs=rollout:200 eval.note=\"two words\" eval.err=\"x=1\" eval.inline=true\n"
	if got := tty.String(); got != want {
		t.Errorf("terminal:\n%q\nwant\n%q", got, want)
	}

	var pipe bytes.Buffer
	if _, ok := logHandler(&pipe, slog.LevelInfo, "text").(*slog.TextHandler); !ok {
		t.Error("not a terminal: want slog's text handler")
	}
	slog.New(logHandler(&pipe, slog.LevelInfo, "text")).Info("hello", "k", 1)
	if got := pipe.String(); !strings.HasPrefix(got, "time=") || !strings.HasSuffix(got, " level=INFO msg=hello k=1\n") {
		t.Errorf("pipe: %q", got)
	}

	for _, tty := range []bool{false, true} {
		var buf bytes.Buffer
		h := logHandler(&buf, slog.LevelDebug, "json")
		if tty {
			h = logHandler(progress.NewScreen().Terminal(&buf, nil), slog.LevelDebug, "json")
		}
		slog.New(h).Debug("d", "n", 2)
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["msg"] != "d" || rec["level"] != "DEBUG" || rec["n"] != 2.0 {
			t.Errorf("json (terminal %v): %q %v", tty, buf.String(), err)
		}
	}
}

// TestHumanLogsAboveBar: the CLI's terminal handler and a live bar from two goroutines: no piece
// of output between '\r's and '\n's holds both a log record and bar text.
func TestHumanLogsAboveBar(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	term := progress.NewScreen().Terminal(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil)
	log := slog.New(logHandler(term, slog.LevelInfo, "text"))
	bar := progress.New(term, 300, "training", time.Hour)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 300 {
			bar.Add(1, fmt.Sprintf("loss %d", i))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 100 {
			log.Info("generation done", "gen", i)
		}
	}()
	wg.Wait()
	bar.Finish()
	raw := strings.ReplaceAll(buf.String(), "\x1b[K", "")
	n := 0
	for _, p := range strings.FieldsFunc(raw, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if strings.Contains(p, "generation done") {
			if !strings.HasPrefix(p, "INFO generation done gen=") || strings.Contains(p, "training") {
				t.Fatalf("log record shares a line: %q", p)
			}
			n++
		} else if !strings.HasPrefix(p, "training") {
			t.Fatalf("unexpected piece %q", p)
		}
	}
	if n != 100 {
		t.Errorf("%d whole records, want 100", n)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestLogFor: a run function's logger follows the flags the command ran with (through its context)
// and is slog's text handler, as before, without them.
func TestLogFor(t *testing.T) {
	root := newRootCmd()
	var got *slog.Logger
	var out bytes.Buffer
	root.AddCommand(&cobra.Command{Use: "probe", RunE: func(cmd *cobra.Command, _ []string) error {
		got = logFor(cmd.Context(), &out, slog.LevelInfo)
		return nil
	}})
	root.SetArgs([]string{"probe", "--log-level", "warn", "--log-format", "json"})
	root.SetOut(&out)
	root.SetErr(&out)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	got.Info("hidden")
	got.Warn("shown")
	if s := out.String(); strings.Count(s, "\n") != 1 || !strings.Contains(s, `"msg":"shown"`) {
		t.Errorf("with flags: %q", s)
	}
	var plain bytes.Buffer
	logFor(context.Background(), &plain, slog.LevelInfo).Info("x")
	if s := plain.String(); !strings.HasPrefix(s, "time=") || !strings.HasSuffix(s, " level=INFO msg=x\n") {
		t.Errorf("without: %q", s)
	}
}
