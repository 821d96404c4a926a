package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// Defaults of Options.
const (
	DefaultStartTimeout   = 10 * time.Second
	DefaultCommandTimeout = 10 * time.Second
	DefaultQuitTimeout    = 2 * time.Second
	DefaultStderrTail     = 4 << 10
)

// exitGrace is how long a client waits for a process whose output ended to exit before killing it.
const exitGrace = 2 * time.Second

// Options configures a Client.
type Options struct {
	// Dir is the process's working directory; empty: the caller's.
	Dir string
	// Env holds extra "KEY=value" entries added to the caller's environment.
	Env []string
	// Label names the engine in errors and logs; empty: the argv joined by spaces (clipped).
	Label string
	// StartTimeout bounds the handshake: the process must answer protocol_version (with "1" or "2") and name
	// within it. 0: DefaultStartTimeout.
	StartTimeout time.Duration
	// CommandTimeout is the timeout of commands given a zero timeout. 0: DefaultCommandTimeout.
	CommandTimeout time.Duration
	// QuitTimeout bounds Close: the wait for quit's answer and then for the exit, before a kill.
	// 0: DefaultQuitTimeout.
	QuitTimeout time.Duration
	// StderrTail is how many bytes of the process's standard error are kept (the last ones) for error
	// reports. 0: DefaultStderrTail; negative: none.
	StderrTail int
	// Log receives the commands and answers (debug) and process events; nil discards.
	Log *slog.Logger
	// Setup holds commands (name, then arguments) sent after the handshake of every start, restarts
	// included: settings such as time_settings. An engine that answers one with '?' does not start
	// (KindProtocol).
	Setup [][]string
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = DefaultCommandTimeout
	}
	if o.QuitTimeout <= 0 {
		o.QuitTimeout = DefaultQuitTimeout
	}
	if o.StderrTail == 0 {
		o.StderrTail = DefaultStderrTail
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Client drives one external engine process through the protocol. One goroutine at a time may send
// commands; Close (and the cancellation of Start's context) may come from any goroutine and ends a
// command in flight.
//
// A timeout, a crash (the process exits or closes its output) or protocol garbage kills the process and
// makes the client dead: Alive is false and every later command fails at once with the same *Error. An
// answer '?' (KindFailed) leaves it alive.
type Client struct {
	argv  []string
	opts  Options
	label string
	name  string
	log   *slog.Logger

	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *tailBuffer

	mu   sync.Mutex // held by the goroutine using the pipes (a command, or Close's quit)
	br   *bufio.Reader
	wbuf []byte
	seq  uint64

	errMu sync.Mutex
	err   *Error // set once: the client is dead

	done     chan struct{} // closed when the process has been reaped
	exit     string        // the exit status, valid once done is closed
	exitOK   bool
	stopCtx  func() bool
	closeOne sync.Once
	closeErr error
}

// Start starts argv[0] with the arguments argv[1:] (no shell) and performs the handshake: the process
// must answer protocol_version with "1" or "2", then name, within opts.StartTimeout. Cancelling ctx at any time
// kills the process (commands then fail with KindClosed); a Client must still be closed to release
// its resources.
//
// Errors: KindStart if the program cannot be run; KindTimeout, KindExited or KindProtocol if the
// handshake fails (the process is then killed and reaped); KindClosed if ctx is done.
func Start(ctx context.Context, argv []string, opts Options) (*Client, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("protocol: empty engine command")
	}
	opts = opts.withDefaults()
	c := &Client{
		argv:   append([]string(nil), argv...),
		opts:   opts,
		label:  opts.Label,
		log:    opts.Log,
		stderr: newTailBuffer(opts.StderrTail),
		done:   make(chan struct{}),
	}
	if c.label == "" {
		c.label = clip(strings.Join(argv, " "), 60)
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Kind: KindClosed, Engine: c.label, Err: err}
	}
	if err := c.spawn(); err != nil {
		return nil, &Error{Kind: KindStart, Engine: c.label, Err: err}
	}
	c.stopCtx = context.AfterFunc(ctx, func() {
		c.setErr(&Error{Kind: KindClosed, Engine: c.label, Err: ctx.Err(), Stderr: c.stderr.String()})
		c.killProcess()
	})
	if err := c.handshake(); err != nil {
		c.Close()
		return nil, err
	}
	for _, cmd := range opts.Setup {
		if len(cmd) == 0 {
			continue
		}
		if _, err := c.Command(0, cmd[0], cmd[1:]...); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Kind == KindFailed {
				err = c.garbage(cmd[0], fmt.Sprintf("setup command %q answered an error: %s", strings.Join(cmd, " "), e.Message))
			}
			c.Close()
			return nil, err
		}
	}
	c.log.Debug("engine started", "engine", c.label, "pid", c.cmd.Process.Pid, "name", c.name)
	return c, nil
}

// spawn starts the process with its pipes and the goroutine that reaps it.
func (c *Client) spawn() error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = c.opts.Dir
	if len(c.opts.Env) > 0 {
		cmd.Env = append(os.Environ(), c.opts.Env...)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	cmd.WaitDelay = time.Second // a grandchild holding stderr open cannot block the reaping
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	c.cmd, c.stdin, c.stdout = cmd, inW, outR
	c.br = bufio.NewReaderSize(outR, 64<<10)
	go func() {
		err := cmd.Wait()
		if cmd.ProcessState != nil {
			c.exit = cmd.ProcessState.String()
			c.exitOK = cmd.ProcessState.Success()
		} else {
			c.exit = err.Error()
		}
		c.log.Debug("engine exited", "engine", c.label, "status", c.exit)
		close(c.done)
	}()
	return nil
}

func (c *Client) handshake() error {
	deadline := time.Now().Add(c.opts.StartTimeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.roundTrip(c.opts.StartTimeout, "protocol_version", nil)
	// version 2 (analyze, policy, GTP aliases) only adds commands to 1: the client uses those of 1
	if v := strings.TrimSpace(v); err == nil && v != "1" && v != "2" {
		err = c.garbage("protocol_version", fmt.Sprintf("protocol_version is %q, want \"1\" or \"2\"", clip(v, 40)))
	}
	if err != nil {
		return c.startFailure("protocol_version", err)
	}
	left := max(time.Until(deadline), time.Millisecond)
	c.name, err = c.roundTrip(left, "name", nil)
	if err != nil {
		return c.startFailure("name", err)
	}
	return nil
}

// startFailure turns a '?' answer during the handshake into a protocol error (the engine does not speak
// the protocol); other errors are already fatal.
func (c *Client) startFailure(command string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind == KindFailed {
		return c.garbage(command, fmt.Sprintf("%s answered an error: %s", command, e.Message))
	}
	return err
}

// Name returns the engine's answer to name.
func (c *Client) Name() string { return c.name }

// Label returns the label that names the engine in errors (Options.Label or the command line).
func (c *Client) Label() string { return c.label }

// Pid returns the process id.
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// Done is closed once the process has exited and been reaped.
func (c *Client) Done() <-chan struct{} { return c.done }

// ExitStatus returns the process's exit status ("exit status 0", "signal: killed") once Done is closed,
// "" before.
func (c *Client) ExitStatus() string {
	select {
	case <-c.done:
		return c.exit
	default:
		return ""
	}
}

// Stderr returns the tail of the process's standard error kept so far.
func (c *Client) Stderr() string { return c.stderr.String() }

// Alive reports whether the client can still send commands (it is not closed and no timeout, crash or
// protocol error has killed it).
func (c *Client) Alive() bool { return c.Err() == nil }

// Err returns the error that killed the client (the one every command now returns), or nil if it is
// alive.
func (c *Client) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// setErr records e as the client's fatal error unless one is recorded already, and returns the one
// recorded.
func (c *Client) setErr(e *Error) *Error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err == nil {
		c.err = e
	}
	return c.err
}

// killProcess kills the process (if it still runs) and unblocks a command waiting on its pipes.
func (c *Client) killProcess() {
	_ = c.cmd.Process.Kill() // fails only if the process is gone already
	now := time.Now()
	_ = c.stdout.SetReadDeadline(now)
	_ = c.stdin.SetWriteDeadline(now)
}

// Command sends "name args..." and returns the result of a '=' answer. A '?' answer is an *Error of
// KindFailed with the message. timeout 0 means Options.CommandTimeout, a negative one no limit. Arguments
// may hold spaces (position's TEXT) but no control characters or '#', which the framing would drop.
func (c *Client) Command(timeout time.Duration, name string, args ...string) (string, error) {
	if err := checkCommand(name, args); err != nil {
		return "", err
	}
	if err := c.Err(); err != nil {
		return "", err
	}
	if timeout == 0 {
		timeout = c.opts.CommandTimeout
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.Err(); err != nil {
		return "", err
	}
	return c.roundTrip(timeout, name, args)
}

func checkCommand(name string, args []string) error {
	if name == "" || strings.ContainsAny(name, " #") || hasControl(name) {
		return fmt.Errorf("protocol: bad command name %q", name)
	}
	for _, a := range args {
		if strings.Contains(a, "#") || hasControl(a) {
			return fmt.Errorf("protocol: %s: argument %q holds '#' or a control character", name, a)
		}
	}
	return nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 32 || c == 127 {
			return true
		}
	}
	return false
}

// roundTrip writes one command and reads its answer; c.mu is held. Transport failures kill the client.
func (c *Client) roundTrip(timeout time.Duration, name string, args []string) (string, error) {
	c.seq++
	b := strconv.AppendUint(c.wbuf[:0], c.seq, 10)
	id := string(b)
	b = append(b, ' ')
	b = append(b, name...)
	for _, a := range args {
		b = append(b, ' ')
		b = append(b, a...)
	}
	b = append(b, '\n')
	c.wbuf = b
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.log.Debug("send", "engine", c.label, "line", string(b[:len(b)-1]))
	}
	if err := c.stdin.SetWriteDeadline(deadline); err != nil {
		return "", c.fail(name, timeout, err)
	}
	if _, err := c.stdin.Write(b); err != nil {
		return "", c.fail(name, timeout, err)
	}
	if err := c.stdout.SetReadDeadline(deadline); err != nil {
		return "", c.fail(name, timeout, err)
	}
	ok, gotID, text, err := ReadAnswer(c.br)
	if err != nil {
		return "", c.fail(name, timeout, err)
	}
	if c.log.Enabled(context.Background(), slog.LevelDebug) {
		c.log.Debug("answer", "engine", c.label, "id", gotID, "ok", ok, "text", text)
	}
	if gotID != id && gotID != "" {
		return "", c.garbage(name, fmt.Sprintf("answer id %q, want %q", gotID, id))
	}
	if !ok {
		return "", &Error{Kind: KindFailed, Engine: c.label, Command: name, Message: text, Stderr: c.stderr.String()}
	}
	return text, nil
}

// fail classifies a transport error of a command, kills the process if it still runs, waits until it
// is reaped, and records the error (or returns the one recorded first, e.g. by Close).
func (c *Client) fail(command string, timeout time.Duration, cause error) error {
	e := &Error{Engine: c.label, Command: command}
	switch {
	case errors.Is(cause, os.ErrDeadlineExceeded):
		e.Kind, e.Timeout = KindTimeout, timeout
		c.killProcess()
	case errors.Is(cause, ErrProtocol):
		e.Kind, e.Message = KindProtocol, strings.TrimPrefix(cause.Error(), ErrProtocol.Error()+": ")
		c.killProcess()
	default: // the end of the output, a broken pipe: the process ended or is ending
		e.Kind = KindExited
		if cause != io.EOF && cause != io.ErrUnexpectedEOF && !errors.Is(cause, syscall.EPIPE) {
			e.Err = cause
		}
		t := time.NewTimer(exitGrace)
		select {
		case <-c.done:
		case <-t.C:
			c.killProcess()
		}
		t.Stop()
	}
	<-c.done
	e.Exit, e.Stderr = c.exit, c.stderr.String()
	return c.setErr(e)
}

// garbage records a protocol error found in a well-framed answer, killing the process.
func (c *Client) garbage(command, msg string) error {
	c.killProcess()
	<-c.done
	return c.setErr(&Error{Kind: KindProtocol, Engine: c.label, Command: command, Message: msg,
		Exit: c.exit, Stderr: c.stderr.String()})
}

// NewGame sends "newgame VARIANT".
func (c *Client) NewGame(v env.Variant) error {
	_, err := c.Command(0, "newgame", v.String())
	return err
}

// SetPosition sends "position TEXT" (env.State.Text's format).
func (c *Client) SetPosition(text string) error {
	_, err := c.Command(0, "position", text)
	return err
}

// Play sends "play TOKEN..." (all or nothing); no tokens sends nothing.
func (c *Client) Play(tokens ...string) error {
	if len(tokens) == 0 {
		return nil
	}
	_, err := c.Command(0, "play", tokens...)
	return err
}

// Genmove sends genmove_info (the engine chooses and plays an action for the side to act) and returns
// the action with what the engine said about it. timeout 0 means Options.CommandTimeout. A malformed
// answer is a KindProtocol error naming the line, and kills the client (the engine's game is unknown).
func (c *Client) Genmove(timeout time.Duration) (env.Action, Info, error) {
	text, err := c.Command(timeout, "genmove_info")
	if err != nil {
		return 0, Info{}, err
	}
	info, err := ParseInfo(text)
	if err != nil {
		return 0, Info{}, c.garbage("genmove_info", err.Error())
	}
	return info.Action, info, nil
}

// Quit is Close.
func (c *Client) Quit() error { return c.Close() }

// Close ends the engine: if the client is alive and idle it sends quit, waits up to
// Options.QuitTimeout for the answer and the exit, and kills the process if it has not exited by then;
// a dead client's process, or one with a command in flight (Close from another goroutine), is killed at
// once. The process is always reaped before Close returns. Close is idempotent and safe from any
// goroutine; later commands fail with KindClosed (or the error that killed the client before).
//
// The error is nil unless a graceful quit went wrong: no answer, no exit in time, or an exit status
// other than 0.
func (c *Client) Close() error {
	c.closeOne.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *Client) shutdown() error {
	defer c.stopCtx()
	var result error
	if c.mu.TryLock() {
		if c.Err() == nil {
			result = c.quit()
		}
		c.mu.Unlock()
	}
	c.setErr(&Error{Kind: KindClosed, Engine: c.label, Stderr: c.stderr.String()})
	c.killProcess()
	<-c.done
	c.stdin.Close()
	c.stdout.Close()
	return result
}

// quit asks a live engine to exit; c.mu is held.
func (c *Client) quit() error {
	if _, err := c.roundTrip(c.opts.QuitTimeout, "quit", nil); err != nil {
		return err
	}
	c.stdin.Close() // end of input too, for engines that ignore quit
	t := time.NewTimer(c.opts.QuitTimeout)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		c.killProcess()
		<-c.done
		return &Error{Kind: KindTimeout, Engine: c.label, Command: "quit", Timeout: c.opts.QuitTimeout,
			Exit: c.exit, Stderr: c.stderr.String()}
	}
	if !c.exitOK {
		return &Error{Kind: KindExited, Engine: c.label, Command: "quit", Exit: c.exit, Stderr: c.stderr.String()}
	}
	return nil
}
