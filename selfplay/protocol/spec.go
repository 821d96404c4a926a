package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// SpecPrefix starts the player specs of external engines: engine:"CMD ARGS" or engine:CMD.
const SpecPrefix = "engine:"

// ParseSpec splits an engine player spec into the engine's argv, without running a shell. spec is
// `engine:"CMD ARGS"`, `engine:CMD ARGS` or just the part after the prefix. It is split into words as a
// POSIX shell splits them, with no expansions:
//
//   - words are separated by unquoted spaces and tabs;
//   - '...' quotes everything literally up to the next single quote;
//   - "..." quotes too, and inside it a backslash escapes '"' and '\' (any other backslash is kept);
//   - outside quotes a backslash makes the next character literal;
//   - quoted and unquoted parts next to each other form one word (a'b c'd is the word "ab cd").
//
// When the whole spec is one double- or single-quoted string (the `engine:"CMD ARGS"` form, as a
// config file keeps it), that string is the command line and is split again. So a program whose path
// holds spaces is quoted inside it: engine:"'/opt/my engine/bin' --fast".
//
// Errors: an unterminated quote, a trailing backslash, an empty command.
func ParseSpec(spec string) ([]string, error) {
	rest := strings.TrimPrefix(spec, SpecPrefix)
	argv, err := splitWords(rest)
	if err == nil && len(argv) == 1 && wholeQuoted(rest) {
		argv, err = splitWords(argv[0])
	}
	if err == nil && (len(argv) == 0 || argv[0] == "") {
		err = errors.New("empty command")
	}
	if err != nil {
		return nil, fmt.Errorf("protocol: engine spec %q: %v", spec, err)
	}
	return argv, nil
}

// wholeQuoted reports whether s (trimmed) is exactly one quoted string: it starts with a quote whose
// closing quote is its last character.
func wholeQuoted(s string) bool {
	s = strings.Trim(s, " \t")
	if len(s) < 2 || (s[0] != '"' && s[0] != '\'') {
		return false
	}
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
		case s[i] == q:
			return i == len(s)-1
		}
	}
	return false
}

// splitWords splits s into shell words (see ParseSpec).
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated quote")
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
