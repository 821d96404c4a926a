package engine

import (
	"bufio"

	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// The client side of the framing, for Go clients and tests.

// Answer is one answer of the protocol, as a client reads it.
type Answer struct {
	OK   bool   // '=' (true) or '?' (false)
	ID   string // the command's id, empty if it had none
	Text string // the result or error message; lines of a multi-line result are joined by '\n'
}

// ReadAnswer reads one answer (up to and including its terminating empty line) from r, for Go clients
// and tests: protocol.ReadAnswer's parse. Lines before the answer that are empty are skipped.
func ReadAnswer(r *bufio.Reader) (Answer, error) {
	ok, id, text, err := protocol.ReadAnswer(r)
	return Answer{OK: ok, ID: id, Text: text}, err
}
