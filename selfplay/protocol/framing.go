// Package protocol speaks the YINSH engine protocol (docs/engine-protocol.md) from both ends: the
// GTP-style framing that the engine server uses (Clean, ReadLine, WriteAnswer) and that clients read
// (ReadAnswer); a Client that drives any external program speaking the protocol, as cutechess-cli or a
// GTP tournament manager does; and a Session that keeps such an engine in step with a game, for
// `engine:"CMD ARGS"` players (ParseSpec splits the command).
//
// The package imports only the standard library and env, so that selfplay (players) and engine (the
// server) can both build on it.
package protocol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxLine is the size of the command reader's buffer: a command line, with its newline, must be shorter
// (so at most MaxLine-1 bytes without it). ReadLine reports longer lines as too long.
const MaxLine = 64 << 10

// MaxAnswer bounds one answer as ReadAnswer reads it (all its lines and newlines): a longer answer is a
// protocol error, so a runaway engine cannot exhaust the client's memory.
const MaxAnswer = 4 << 20

// ErrProtocol is matched (errors.Is) by every error that reports protocol garbage: an answer that does
// not start with '=' or '?', an answer longer than MaxAnswer, a wrong id, a malformed genmove_info
// answer. Client errors of KindProtocol match it too.
var ErrProtocol = errors.New("protocol error")

// Clean applies GTP's preprocessing to a command line: a trailing newline (and '\r') is removed,
// everything from '#' on is dropped (a comment), control characters other than tab (bytes 0-31 and 127)
// are dropped, tabs become spaces, and surrounding space is trimmed. A line that cleans to "" carries
// no command and gets no answer.
func Clean(line string) string {
	line = strings.TrimRight(line, "\r\n")
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	dirty := false
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 32 || c == 127 {
			dirty = true
			break
		}
	}
	if dirty {
		line = strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case r < 32 || r == 127:
				return -1
			}
			return r
		}, line)
	}
	return strings.TrimSpace(line)
}

// ReadLine returns the next command line from br, without its newline. The buffer size of br is the
// limit: a line that does not fit (bufio.NewReaderSize(r, MaxLine) gives the protocol's limit) is read
// and discarded whole and reported as tooLong, with line nil. At the end of the input err is io.EOF and
// line holds what came after the last newline (possibly nothing).
func ReadLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	for err == bufio.ErrBufferFull {
		tooLong = true
		_, err = br.ReadSlice('\n')
	}
	if tooLong {
		return nil, true, err
	}
	return line, false, err
}

// TooLongMessage is the error message the server answers to a line longer than MaxLine-1 bytes.
var TooLongMessage = fmt.Sprintf("line too long (at most %d bytes)", MaxLine-1)

// ValidID reports whether s is a valid command id: 1 to 18 decimal digits.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatAnswer returns the bytes of one answer: "=id result\n\n" on success, "?id message\n\n" on
// failure (id may be empty). Empty or blank lines inside a result, which would end the answer early, are
// dropped, as are trailing spaces and newlines; an error message is put on one line.
func FormatAnswer(id string, ok bool, text string) string {
	var b strings.Builder
	b.Grow(len(id) + len(text) + 4)
	if ok {
		b.WriteByte('=')
	} else {
		b.WriteByte('?')
		text = strings.Join(strings.Fields(text), " ")
	}
	b.WriteString(id)
	b.WriteByte(' ')
	text = strings.TrimRight(text, " \n")
	if strings.Contains(text, "\n") {
		lines := strings.Split(text, "\n")
		b.WriteString(lines[0])
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) != "" {
				b.WriteByte('\n')
				b.WriteString(l)
			}
		}
	} else {
		b.WriteString(text)
	}
	b.WriteString("\n\n")
	return b.String()
}

// WriteAnswer writes FormatAnswer(id, ok, text) to w in one Write call. A server writing to a
// bufio.Writer flushes after each answer (the protocol requires it) and may ignore the error here,
// which Flush reports again.
func WriteAnswer(w io.Writer, id string, ok bool, text string) error {
	_, err := io.WriteString(w, FormatAnswer(id, ok, text))
	return err
}

// ReadAnswer reads one answer, up to and including the empty line that ends it, and returns whether it
// is a success ('=') or a failure ('?'), the id it carries (empty if none) and its text: the result or
// message, the lines of a multi-line result joined by '\n' (a result that starts with a line break, as
// showboard's does, starts with '\n'). Empty lines before the answer are skipped; a '\r' before each
// '\n' is dropped.
//
// At the end of the input before any answer line err is io.EOF; inside an answer it is
// io.ErrUnexpectedEOF. An answer that does not start with '=' or '?', or is longer than MaxAnswer bytes,
// is an error matching ErrProtocol (the answer is consumed up to its empty line, or up to MaxAnswer).
func ReadAnswer(r *bufio.Reader) (ok bool, id string, text string, err error) {
	var lines []string
	size := 0
	for {
		l, err := readAnswerLine(r, MaxAnswer-size)
		size += len(l)
		if err != nil {
			if err == io.EOF && (len(lines) > 0 || l != "") {
				err = io.ErrUnexpectedEOF
			}
			return false, "", "", err
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			if len(lines) == 0 {
				continue
			}
			break
		}
		lines = append(lines, l)
	}
	head := lines[0]
	switch head[0] {
	case '=':
		ok = true
	case '?':
	default:
		return false, "", "", fmt.Errorf("%w: answer line %q does not start with '=' or '?'", ErrProtocol, clip(head, 80))
	}
	head = head[1:]
	i := 0
	for i < len(head) && head[i] >= '0' && head[i] <= '9' {
		i++
	}
	id = head[:i]
	lines[0] = strings.TrimPrefix(head[i:], " ")
	return ok, id, strings.Join(lines, "\n"), nil
}

// readAnswerLine reads one line (with its newline) of at most max bytes; a longer one is an ErrProtocol
// error.
func readAnswerLine(r *bufio.Reader, max int) (string, error) {
	frag, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull && len(frag) <= max {
		return string(frag), err // the common case: one buffer holds the line
	}
	buf := append([]byte(nil), frag...)
	for err == bufio.ErrBufferFull && len(buf) <= max {
		frag, err = r.ReadSlice('\n')
		buf = append(buf, frag...)
	}
	if len(buf) > max {
		return "", fmt.Errorf("%w: answer longer than %d bytes", ErrProtocol, MaxAnswer)
	}
	return string(buf), err
}

// clip shortens s to at most n bytes (plus "...") for error messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
