package protocol

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yinsh-zero/yinsh/env"
)

// Info is what genmove_info says about the action an engine played.
type Info struct {
	Action  env.Action
	Side    env.Color // who the action was played for (valid if HasSide)
	HasSide bool
	TimeMS  float64 // the engine's decision time in milliseconds (0 if not given)
	// WDL is the engine's win/draw/loss estimate for Side (valid if HasWDL; "wdl unknown" leaves it
	// false).
	WDL    [3]float32
	HasWDL bool
	Top    []Candidate  // the engine's candidates, best first (may be empty)
	PV     []env.Action // the principal variation (may be empty)
}

// Candidate is one "top" line of genmove_info or eval.
type Candidate struct {
	Action env.Action
	Prior  float32
	Visits int
	Q      float32 // the mean value for the side to act in [-1, 1] (valid if HasQ; "q -" leaves it false)
	HasQ   bool
}

// ParseInfo parses the result of genmove_info: "key value" lines, of which action is required and
// side, time_ms, wdl, top and pv are understood; other keys are ignored (later protocol versions may add
// some), and so are unknown "key value" pairs inside top lines. A malformed line is an error that quotes
// it.
func ParseInfo(text string) (Info, error) {
	var info Info
	hasAction := false
	for line := range strings.SplitSeq(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var err error
		switch f[0] {
		case "action":
			if len(f) != 2 {
				err = fmt.Errorf("want one token")
			} else {
				info.Action, err = parseToken(f[1])
				hasAction = err == nil
			}
		case "side":
			switch {
			case len(f) == 2 && f[1] == "w":
				info.Side, info.HasSide = env.White, true
			case len(f) == 2 && f[1] == "b":
				info.Side, info.HasSide = env.Black, true
			default:
				err = fmt.Errorf("want w or b")
			}
		case "time_ms":
			if len(f) != 2 {
				err = fmt.Errorf("want one number")
			} else {
				info.TimeMS, err = parseFloat(f[1], 64)
			}
		case "wdl":
			err = parseWDL(&info, f[1:])
		case "top":
			var cand Candidate
			if cand, err = parseCandidate(f[1:]); err == nil {
				info.Top = append(info.Top, cand)
			}
		case "pv":
			for _, tok := range f[1:] {
				var a env.Action
				if a, err = parseToken(tok); err != nil {
					break
				}
				info.PV = append(info.PV, a)
			}
		}
		if err != nil {
			return Info{}, fmt.Errorf("genmove_info line %q: %v", clip(line, 120), err)
		}
	}
	if !hasAction {
		return Info{}, fmt.Errorf("genmove_info answer %q has no action line", clip(text, 120))
	}
	return info, nil
}

func parseToken(tok string) (env.Action, error) {
	a, err := env.ParseAction(tok)
	if err != nil {
		return 0, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "env: "))
	}
	return a, nil
}

// parseFloat parses a finite number.
func parseFloat(s string, bits int) (float64, error) {
	x, err := strconv.ParseFloat(s, bits)
	if err != nil || x != x || x > 1e300 || x < -1e300 {
		return 0, fmt.Errorf("bad number %q", s)
	}
	return x, nil
}

func parseWDL(info *Info, f []string) error {
	if len(f) == 1 && f[0] == "unknown" {
		info.HasWDL = false
		return nil
	}
	if len(f) != 3 {
		return fmt.Errorf("want three numbers or unknown")
	}
	for i, s := range f {
		x, err := parseFloat(s, 32)
		if err != nil {
			return err
		}
		info.WDL[i] = float32(x)
	}
	info.HasWDL = true
	return nil
}

// parseCandidate parses "TOKEN prior P visits V q Q" (pairs in any order, unknown pairs ignored).
func parseCandidate(f []string) (Candidate, error) {
	var c Candidate
	if len(f) == 0 || len(f)%2 != 1 {
		return c, fmt.Errorf("want a token and key value pairs")
	}
	var err error
	if c.Action, err = parseToken(f[0]); err != nil {
		return c, err
	}
	for i := 1; i < len(f); i += 2 {
		k, v := f[i], f[i+1]
		switch k {
		case "prior":
			var x float64
			if x, err = parseFloat(v, 32); err == nil {
				c.Prior = float32(x)
			}
		case "visits":
			if c.Visits, err = strconv.Atoi(v); err != nil || c.Visits < 0 {
				err = fmt.Errorf("bad visits %q", v)
			}
		case "q":
			if v == "-" {
				c.Q, c.HasQ = 0, false
				break
			}
			var x float64
			if x, err = parseFloat(v, 32); err == nil {
				c.Q, c.HasQ = float32(x), true
			}
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}
