package selfplay

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// Game record lines (yinsh arena --record): one game a line, its action tokens from the start (the
// initial state, or the position text in start=), then a '#' comment of key=value fields:
//
//	e5 f6 a2 b3 … # game=1 pair=1 variant=blitz white="gen-0030" black="rollout:200" result=white opening=4
//
// game and pair count from 1; opening is the number of leading tokens that are the pair's opening;
// start="POSITION TEXT" is present when the game started from a position; forfeit=white|black and
// reason="…" when a player lost by forfeit. Quoted values use Go's string quoting. Because the tokens
// come first and the fields sit in a comment, each line is also a valid token list for `yinsh replay`.

// RecordHeader is the first line of a game record file.
const RecordHeader = "# yinsh arena record"

// Line formats the game as a record line (without the newline) for variant v.
func (g GameRecord) Line(v env.Variant) string {
	var b strings.Builder
	for i, a := range g.Actions {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.String())
	}
	fmt.Fprintf(&b, " # game=%d pair=%d variant=%s white=%s black=%s result=%s opening=%d",
		g.Game+1, g.Pair+1, v, strconv.Quote(g.White), strconv.Quote(g.Black), g.Outcome, len(g.Opening.Actions))
	if g.Opening.Position != "" {
		fmt.Fprintf(&b, " start=%s", strconv.Quote(g.Opening.Position))
	}
	if g.Forfeit >= 0 {
		fmt.Fprintf(&b, " forfeit=%s reason=%s", env.Color(g.Forfeit), strconv.Quote(g.Reason))
	}
	return b.String()
}

// RecordedGame is a game read back from a record line.
type RecordedGame struct {
	Line         int // line in the file
	Game, Pair   int // from 1
	Variant      env.Variant
	Start        string // position text the game started from ("" for the initial state)
	OpeningPlies int
	Actions      []env.Action
	White, Black string
	Result       env.Outcome // the recorded result
	Forfeit      string      // "white" or "black" if that side lost by forfeit
	Reason       string
}

// StartState returns the game's starting state.
func (g *RecordedGame) StartState() (*env.State, error) {
	if g.Start == "" {
		return env.NewState(g.Variant), nil
	}
	return env.ParsePosition(g.Start, g.Variant)
}

// IsRecordFile reports whether data begins like a game record file (its header line).
func IsRecordFile(data []byte) bool { return strings.HasPrefix(string(data), RecordHeader) }

// ReadRecords reads a game record file; name labels errors, which give the line. It checks the
// fields' syntax, not the games' legality (replay them for that).
func ReadRecords(r io.Reader, name string) ([]RecordedGame, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var out []RecordedGame
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		toks, comment, _ := strings.Cut(text, "#")
		if strings.TrimSpace(toks) == "" && !strings.Contains(comment, "game=") {
			continue // the header, other comments, blank lines
		}
		g, err := parseRecord(toks, comment)
		if err != nil {
			return out, fmt.Errorf("%s: line %d: %v", name, line, err)
		}
		g.Line = line
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	return out, nil
}

func parseRecord(toks, comment string) (RecordedGame, error) {
	g := RecordedGame{Result: env.Ongoing}
	acts, err := env.ParseTokens(toks)
	if err != nil {
		return g, err
	}
	g.Actions = acts
	fields, err := parseFields(comment)
	if err != nil {
		return g, err
	}
	need := func(k string) (string, error) {
		v, ok := fields[k]
		if !ok {
			return "", fmt.Errorf("missing field %s=", k)
		}
		return v, nil
	}
	ints := map[string]*int{"game": &g.Game, "pair": &g.Pair, "opening": &g.OpeningPlies}
	for k, dst := range ints {
		v, err := need(k)
		if err != nil {
			return g, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100_000_000 {
			return g, fmt.Errorf("field %s=%q: want a count", k, v)
		}
		*dst = n
	}
	if g.OpeningPlies > len(g.Actions) {
		return g, fmt.Errorf("field opening=%d: the game has only %d actions", g.OpeningPlies, len(g.Actions))
	}
	v, err := need("variant")
	if err != nil {
		return g, err
	}
	if g.Variant, err = env.ParseVariant(v); err != nil {
		return g, fmt.Errorf("field variant=%q: want standard or blitz", v)
	}
	if g.White, err = need("white"); err != nil {
		return g, err
	}
	if g.Black, err = need("black"); err != nil {
		return g, err
	}
	res, err := need("result")
	if err != nil {
		return g, err
	}
	switch res {
	case "white":
		g.Result = env.WhiteWins
	case "black":
		g.Result = env.BlackWins
	case "draw":
		g.Result = env.Draw
	default:
		return g, fmt.Errorf("field result=%q: want white, black or draw", res)
	}
	g.Start = fields["start"]
	g.Forfeit, g.Reason = fields["forfeit"], fields["reason"]
	if g.Forfeit != "" && g.Forfeit != "white" && g.Forfeit != "black" {
		return g, fmt.Errorf("field forfeit=%q: want white or black", g.Forfeit)
	}
	return g, nil
}

// parseFields parses space-separated key=value fields; a value is a bare word or a Go-quoted string.
func parseFields(s string) (map[string]string, error) {
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, nil
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || strings.ContainsAny(s[:eq], " \t\"") {
			return nil, fmt.Errorf("malformed field %q (want key=value)", firstWord(s))
		}
		key := s[:eq]
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("field %s: bad quoted value", key)
			}
			val, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			val = firstWord(s)
			s = s[len(val):]
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("field %s given twice", key)
		}
		out[key] = val
	}
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i]
	}
	return s
}
