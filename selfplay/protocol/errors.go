package protocol

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind classifies an engine error.
type Kind int

const (
	// KindFailed: the engine answered '?' (Message holds its message). The engine is alive and its game
	// is unchanged (the protocol's commands are all or nothing).
	KindFailed Kind = iota
	// KindTimeout: no answer within the command's timeout; the process was killed.
	KindTimeout
	// KindExited: the process ended (or closed its output) while a command waited for its answer, or
	// before the handshake finished; Exit holds its exit status.
	KindExited
	// KindProtocol: protocol garbage — an answer that does not start with '=' or '?', a wrong id, a
	// malformed genmove_info answer, a protocol_version other than 1 or 2; the process was killed.
	KindProtocol
	// KindIllegal: the engine chose an action that is illegal in the game (Session.Decide); Message holds
	// the token and the rules' reason. The Session kills the process: the engine's game has diverged.
	KindIllegal
	// KindClosed: the client was closed (Close, Quit) or its context was cancelled (Err holds ctx.Err()).
	KindClosed
	// KindStart: the program could not be started (not found, not executable, ...).
	KindStart
)

var kindNames = [...]string{"failed", "timeout", "exited", "protocol", "illegal", "closed", "start"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Sentinels, one per kind: errors.Is(err, ErrTimeout) holds for an *Error of KindTimeout, and so on.
// ErrProtocol (framing.go) is KindProtocol's.
var (
	ErrFailed  = errors.New("engine answered an error")
	ErrTimeout = errors.New("engine timed out")
	ErrExited  = errors.New("engine exited")
	ErrIllegal = errors.New("engine chose an illegal action")
	ErrClosed  = errors.New("engine closed")
	ErrStart   = errors.New("engine did not start")
)

var kindErrs = [...]error{ErrFailed, ErrTimeout, ErrExited, ErrProtocol, ErrIllegal, ErrClosed, ErrStart}

// Error is the error of an engine command or of the engine process. Every error of a Client or
// Session about the engine is an *Error (errors.As); usage errors of the caller (a command with a
// newline in it) are plain errors.
type Error struct {
	Kind    Kind
	Engine  string        // the engine's label (Options.Label)
	Command string        // the command in progress ("genmove_info"), empty if none
	Message string        // KindFailed: the engine's message; KindProtocol, KindIllegal: what was wrong
	Timeout time.Duration // KindTimeout: the timeout that expired
	Exit    string        // the process's exit status once reaped ("exit status 3", "signal: killed")
	Stderr  string        // the tail of the process's standard error when the error happened
	Err     error         // the underlying cause (a read error, ctx.Err(), an exec error), if any
}

// stderrInMessage bounds the stderr tail that Error() quotes.
const stderrInMessage = 1024

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol: engine %q: ", e.Engine)
	if e.Command != "" {
		b.WriteString(e.Command)
		b.WriteString(": ")
	}
	switch e.Kind {
	case KindFailed:
		b.WriteString(e.Message)
	case KindTimeout:
		fmt.Fprintf(&b, "timed out after %v (process killed)", e.Timeout)
	case KindExited:
		b.WriteString("engine exited")
		if e.Exit != "" {
			fmt.Fprintf(&b, " (%s)", e.Exit)
		}
		if e.Err != nil {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	case KindProtocol:
		fmt.Fprintf(&b, "protocol error: %s (process killed)", e.Message)
	case KindIllegal:
		fmt.Fprintf(&b, "illegal action %s", e.Message)
	case KindClosed:
		b.WriteString("closed")
		if e.Err != nil {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	case KindStart:
		fmt.Fprintf(&b, "cannot start: %v", e.Err)
	}
	if e.Kind != KindFailed && e.Kind != KindIllegal && e.Kind != KindClosed {
		if tail := strings.TrimSpace(lastBytes(e.Stderr, stderrInMessage)); tail != "" {
			fmt.Fprintf(&b, "; stderr: %q", tail)
		}
	}
	return b.String()
}

// Is matches the sentinel of the error's kind.
func (e *Error) Is(target error) bool {
	return e.Kind >= 0 && int(e.Kind) < len(kindErrs) && target == kindErrs[e.Kind]
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of err if it is (or wraps) an *Error.
func KindOf(err error) (Kind, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, true
	}
	return 0, false
}

// lastBytes returns the last n bytes of s, starting after a line break when there is one in them.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}
