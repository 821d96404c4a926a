package web

import (
	"net/http"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// line is a start position and the actions played from it, with every state on the way.
type line struct {
	start  *env.State
	acts   []env.Action
	states []env.State // states[i] is the state before acts[i]; the last one is after every action
}

func (l *line) final() *env.State { return &l.states[len(l.states)-1] }

// readTokens splits a token text (whitespace separated, '#' comments to the end of a line).
func readTokens(text string) ([]string, error) {
	toks, err := env.ReadTokens(strings.NewReader(text))
	if err != nil {
		return nil, fieldErr("tokens", err)
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out, nil
}

// replayTokens parses position (the empty board if "") and plays toks from it.
func replayTokens(position string, toks []string, v env.Variant) (*line, error) {
	s := env.NewState(v)
	if position != "" {
		var err error
		if s, err = env.ParsePosition(position, v); err != nil {
			return nil, fieldErr("position", err)
		}
	}
	l := &line{start: s.Clone(), states: make([]env.State, 0, len(toks)+1)}
	l.states = append(l.states, *s)
	for i, tok := range toks {
		a, err := env.ParseAction(tok)
		if err == nil {
			err = s.ApplyAction(a)
		}
		if err != nil {
			return nil, errorf(http.StatusBadRequest, "moves[%d] %q (ply %d): %s", i, tok, i+1, tidy(err.Error()))
		}
		l.acts = append(l.acts, a)
		l.states = append(l.states, *s)
	}
	return l, nil
}

// boardView is what the page draws of a state.
type boardView struct {
	Position string   `json:"position"` // the position text
	Board    string   `json:"board"`    // its first field: the 85 points in point order
	ToAct    string   `json:"to_act"`   // "w" or "b"
	Phase    string   `json:"phase"`    // place, move, remove-row, remove-ring, over
	Removed  [2]int   `json:"rings_removed"`
	Markers  int      `json:"markers_in_pool"`
	Last     string   `json:"last,omitempty"` // the action that led here
	Fours    []four   `json:"fours"`
	Legal    []string `json:"legal"`
	Result   string   `json:"result"` // ongoing, white, black, draw
}

type four struct {
	Color string `json:"color"`
	Row   string `json:"row"`   // the window's ends, "e1-e5"
	Fifth string `json:"fifth"` // the point that completes it
	Ring  bool   `json:"ring"`  // the fifth point holds a ring of that colour
}

func colorName(c env.Color) string { return string("wb"[c]) }

func resultName(o env.Outcome) string {
	switch o {
	case env.WhiteWins:
		return "white"
	case env.BlackWins:
		return "black"
	case env.Draw:
		return "draw"
	}
	return "ongoing"
}

func viewOf(s *env.State, last env.Action, hasLast bool) boardView {
	text := s.Text()
	v := boardView{
		Position: text, Board: strings.Fields(text)[0], ToAct: colorName(s.CurrentPlayer()), Phase: s.Phase().String(),
		Removed: [2]int{s.RingsRemoved(env.White), s.RingsRemoved(env.Black)}, Markers: s.MarkersInPool(),
		Fours: []four{}, Legal: []string{}, Result: resultName(s.Outcome()),
	}
	if hasLast {
		v.Last = last.String()
	}
	for _, f := range s.Fours() {
		v.Fours = append(v.Fours, four{Color: colorName(f.Color), Row: env.CellName(f.Ends[0]) + "-" + env.CellName(f.Ends[1]),
			Fifth: env.CellName(f.Fifth), Ring: s.Cell(f.Fifth) != '.'})
	}
	for _, a := range s.LegalActions(nil) {
		v.Legal = append(v.Legal, a.String())
	}
	return v
}

func tokensOf(acts []env.Action) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.String()
	}
	return out
}
