package env

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Token is one action token read from a text record, with its source line.
type Token struct {
	Action Action
	Text   string
	Line   int
}

// ReadTokens reads whitespace-separated action tokens; '#' starts a comment to the end of the line.
// A malformed token is an error naming its line and text. Legality is not checked here.
func ReadTokens(r io.Reader) ([]Token, error) {
	var out []Token
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		for _, f := range strings.Fields(text) {
			a, err := ParseAction(f)
			if err != nil {
				return out, fmt.Errorf("line %d: token %q: %v", line, f, strings.TrimPrefix(err.Error(), "env: "))
			}
			out = append(out, Token{a, f, line})
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("line %d: %w", line+1, err)
	}
	return out, nil
}

// ParseTokens parses a string of whitespace-separated tokens (no comments), for flags like --moves.
func ParseTokens(s string) ([]Action, error) {
	var out []Action
	for i, f := range strings.Fields(s) {
		a, err := ParseAction(f)
		if err != nil {
			return nil, fmt.Errorf("token %d %q: %v", i+1, f, strings.TrimPrefix(err.Error(), "env: "))
		}
		out = append(out, a)
	}
	return out, nil
}

// Replay applies actions to s in order; an illegal one returns an error naming its ply (1-based, counted
// from s) and token, and leaves s after the previous action.
func Replay(s *State, actions []Action) error {
	for i, a := range actions {
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("ply %d %q: %w", i+1, a, err)
		}
	}
	return nil
}
