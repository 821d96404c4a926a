package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/internal/progress"
)

// The CLI's logs. Every command logs through newLogger(cmd, default) or, in a run function that has
// the command's context, logFor(ctx, opts.Err, default), configured by the root's persistent flags
// --log-level (debug, info, warn, error; unset: the command's own default, info for most) and
// --log-format (text or json), to the command's standard error:
//
//   - text on a terminal: one short human line per record, "LEVEL msg key=value ...", no time,
//     written through the terminal's progress.Screen so it lands above a live progress bar, never
//     inside its line;
//   - text elsewhere (a pipe, a file, CI): slog's text handler, "time=... level=INFO msg=...", as
//     before;
//   - json: slog's JSON handler, one object per line, terminal or not.
//
// When standard error is a terminal the configured logger also becomes slog's default (process
// wide), so packages that log to slog.Default() go through the same handler.

// logFormats are the values of --log-format.
var logFormats = []string{"text", "json"}

// addLogFlags adds the global --log-level and --log-format to root and checks their values before
// any command runs.
func addLogFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.String("log-level", "", "log level: debug, info, warn or error (default: the command's own, info for most)")
	f.String("log-format", "text", "log format: text (short lines on a terminal, slog's key=value lines elsewhere) or json")
	done := cobra.ShellCompDirectiveNoFileComp
	_ = root.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions([]string{"debug", "info", "warn", "error"}, done))
	_ = root.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions(logFormats, done))
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		_, format, err := logSettings(cmd, slog.LevelInfo) // refuses bad values
		if err != nil {
			return err
		}
		ls := logSetup{format: format}
		if f := cmd.Flag("log-level"); f != nil && f.Value.String() != "" {
			l, _ := parseLogLevel(f.Value.String())
			ls.level = &l
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		cmd.SetContext(context.WithValue(ctx, logSetupKey{}, ls))
		if progress.IsTerminal(cmd.ErrOrStderr()) {
			slog.SetDefault(newLogger(cmd, slog.LevelInfo))
		}
		return nil
	}
}

// logSetup is what the global flags asked for, kept in the command's context for logFor.
type logSetup struct {
	level  *slog.Level // nil: the command's default
	format string
}

type logSetupKey struct{}

// logFor returns the CLI's logger writing to w (a command's standard error, opts.Err) for the
// command whose context is ctx: the --log-level and --log-format the command was run with, def the
// level when --log-level is unset. A context without them (a test calling a run function directly)
// gives def and text: on a writer that is not a terminal, slog's text handler as before.
// Commands whose run function takes (ctx, opts) call it as logFor(ctx, opts.Err, slog.LevelInfo).
func logFor(ctx context.Context, w io.Writer, def slog.Level) *slog.Logger {
	level, format := def, "text"
	if ctx != nil {
		if ls, ok := ctx.Value(logSetupKey{}).(logSetup); ok {
			if ls.level != nil {
				level = *ls.level
			}
			format = ls.format
		}
	}
	return slog.New(logHandler(w, level, format))
}

// logSettings reads --log-level (def when unset) and --log-format as cmd sees them. A command with
// a --log-level of its own (engine, serve) gives that one.
func logSettings(cmd *cobra.Command, def slog.Level) (slog.Level, string, error) {
	level, format := def, "text"
	if f := cmd.Flag("log-level"); f != nil && f.Value.String() != "" {
		var err error
		if level, err = parseLogLevel(f.Value.String()); err != nil {
			return 0, "", err
		}
	}
	if f := cmd.Flag("log-format"); f != nil {
		format = f.Value.String()
		if !slices.Contains(logFormats, format) {
			return 0, "", fmt.Errorf("--log-format %q: want text or json", format)
		}
	}
	return level, format, nil
}

// parseLogLevel parses a --log-level value: debug, info, warn or error (any case).
func parseLogLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	var l slog.Level // slog's own forms too, e.g. INFO+2, as engine and serve accepted them
	if err := l.UnmarshalText([]byte(s)); err == nil {
		return l, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
}

// newLogger returns the logger for cmd's logs, to cmd's standard error, at --log-level (def when
// the flag is unset) in --log-format; values the root has not already refused fall back to def
// and text.
func newLogger(cmd *cobra.Command, def slog.Level) *slog.Logger {
	level, format, err := logSettings(cmd, def)
	if err != nil {
		level, format = def, "text"
	}
	return slog.New(logHandler(cmd.ErrOrStderr(), level, format))
}

// logHandler is newLogger's handler writing to w.
func logHandler(w io.Writer, level slog.Level, format string) slog.Handler {
	o := &slog.HandlerOptions{Level: level}
	switch {
	case format == "json":
		return slog.NewJSONHandler(w, o)
	case progress.IsTerminal(w):
		return &humanHandler{w: w, level: level, mu: new(sync.Mutex)}
	}
	return slog.NewTextHandler(w, o)
}

// humanHandler writes a record as one line "LEVEL msg key=value ...": no time, keys of groups
// prefixed "group.", values quoted only when they hold spaces, quotes, '=' or control characters.
// Each record is one Write call (a progress.Terminal keeps it off the bar's line).
type humanHandler struct {
	w      io.Writer
	level  slog.Level
	mu     *sync.Mutex // shared by the handlers derived by WithAttrs and WithGroup
	prefix string      // the open groups, "g1.g2."
	attrs  string      // the attributes added by WithAttrs, rendered " k=v ..."
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String())
	b.WriteByte(' ')
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.prefix, a)
		return true
	})
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *humanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	for _, a := range as {
		appendAttr(&b, h.prefix, a)
	}
	c := *h
	c.attrs += b.String()
	return &c
}

func (h *humanHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}

// appendAttr writes " prefix+key=value" (a group's attributes each with the group's name added to
// the prefix; an empty attribute nothing).
func appendAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		if a.Key != "" {
			prefix += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			appendAttr(b, prefix, g)
		}
		return
	}
	b.WriteByte(' ')
	b.WriteString(prefix)
	b.WriteString(a.Key)
	b.WriteByte('=')
	var s string
	switch a.Value.Kind() {
	case slog.KindTime:
		s = a.Value.Time().Format(time.RFC3339)
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			s = err.Error()
		} else {
			s = fmt.Sprint(a.Value.Any())
		}
	default:
		s = a.Value.String()
	}
	b.WriteString(quoteIfNeeded(s))
}

// quoteIfNeeded returns s, or s quoted (Go syntax) when it is empty or holds a space, a quote, '='
// or a character that is not printable.
func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r == ' ' || r == '"' || r == '=' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
