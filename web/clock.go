package web

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// Clocks: a game may have a time control, base + increment per side (Fischer). The server is the
// authority: it keeps each side's time left, charges the side to act the wall time from the moment
// its turn started (or its previous action of the turn) to each action it plays, the agent's
// search and any delay of the page between its actions included, adds the increment when the turn
// passes to the other side, and ends the game when the side to act's time is spent: that side
// loses on time, as a resignation ends it. The clock runs while nobody is connected.

// Bounds of a time control.
const (
	maxClockBase = 3 * time.Hour
	maxClockInc  = time.Minute
	// agentClockShare is the part of its time left the agent gives one decision (plus the
	// increment), and agentClockMargin what it keeps back for the request around the search.
	agentClockShare  = 20
	agentClockMargin = 50 * time.Millisecond
)

// clock is a game's time control.
type clock struct {
	base, inc time.Duration
	left      [2]time.Duration // each side's time left at since (the side to act's runs from since)
	since     time.Time        // when the side to act's time started running
	stopped   bool             // the game is over (on the board, by resignation or on time)
	flagged   bool             // flag is the side that lost on time
	flag      env.Color
}

// clockRequest is the time control of a new game, in seconds.
type clockRequest struct {
	Base      float64 `json:"base"`
	Increment float64 `json:"increment"`
}

func seconds(x float64) time.Duration { return time.Duration(math.Round(x * float64(time.Second))) }

// newClock checks a request's time control (nil: none).
func newClock(r *clockRequest, now time.Time) (*clock, error) {
	if r == nil {
		return nil, nil
	}
	if !(r.Base > 0) || seconds(r.Base) > maxClockBase || seconds(r.Base) < time.Millisecond {
		return nil, errorf(http.StatusBadRequest, "clock.base %v: want seconds in (0, %v]", r.Base, maxClockBase.Seconds())
	}
	if !(r.Increment >= 0) || seconds(r.Increment) > maxClockInc {
		return nil, errorf(http.StatusBadRequest, "clock.increment %v: want seconds in [0, %v]", r.Increment, maxClockInc.Seconds())
	}
	b := seconds(r.Base)
	return &clock{base: b, inc: seconds(r.Increment), left: [2]time.Duration{b, b}, since: now}, nil
}

// running reports whether side's time runs now.
func (g *game) clockRuns(side env.Color) bool {
	c := g.clock
	return c != nil && !c.stopped && !g.resign && !g.state.IsTerminal() && g.state.CurrentPlayer() == side
}

// timeLeft is side's time left at now.
func (g *game) timeLeft(side env.Color, now time.Time) time.Duration {
	t := g.clock.left[side]
	if g.clockRuns(side) {
		t -= now.Sub(g.clock.since)
	}
	return max(t, 0)
}

// checkFlag ends the game when the side to act's time is spent at now; it reports whether it did.
func (g *game) checkFlag(now time.Time) bool {
	c := g.clock
	if c == nil || c.stopped {
		return false
	}
	if g.resign || g.state.IsTerminal() {
		c.stopped = true
		return true
	}
	side := g.state.CurrentPlayer()
	if g.timeLeft(side, now) > 0 {
		return false
	}
	c.left[side], c.stopped, c.flagged, c.flag = 0, true, true, side
	return true
}

// charge charges mover the time from since to now for the actions it just played (the state is
// the one after them), adding the increment when the turn passed to the other side, and stops the
// clock at the end of the game.
func (g *game) charge(mover env.Color, now time.Time) {
	c := g.clock
	if c == nil || c.stopped {
		return
	}
	c.left[mover] = max(c.left[mover]-now.Sub(c.since), 0)
	c.since = now
	if g.resign || g.state.IsTerminal() {
		c.stopped = true
		return
	}
	if g.state.CurrentPlayer() != mover {
		c.left[mover] += c.inc
	}
}

// agentTime is the move time of the agent's next decision on the clock: a share of its time left
// plus the increment, never more than its own move time (0: none) nor than its time left less a
// margin; 0 without a clock.
func (g *game) agentTime(own time.Duration, now time.Time) time.Duration {
	if g.clock == nil {
		return 0
	}
	left := g.timeLeft(g.human.Other(), now)
	d := left/agentClockShare + g.clock.inc
	if own > 0 {
		d = min(d, own)
	}
	d = min(d, left-agentClockMargin)
	return max(d, time.Millisecond)
}

// clockView is a game answer's clock.
type clockView struct {
	BaseMS      int64  `json:"base_ms"`
	IncrementMS int64  `json:"increment_ms"`
	WhiteMS     int64  `json:"white_ms"` // time left at the answer
	BlackMS     int64  `json:"black_ms"`
	Running     string `json:"running"`           // the side whose time runs ("" once the game is over)
	Flagged     string `json:"flagged,omitempty"` // the side that lost on time
}

func (g *game) clockView(now time.Time) *clockView {
	c := g.clock
	if c == nil {
		return nil
	}
	v := &clockView{BaseMS: c.base.Milliseconds(), IncrementMS: c.inc.Milliseconds(),
		WhiteMS: g.timeLeft(env.White, now).Milliseconds(), BlackMS: g.timeLeft(env.Black, now).Milliseconds()}
	if !c.stopped && !g.resign && !g.state.IsTerminal() {
		v.Running = colorName(g.state.CurrentPlayer())
	}
	if c.flagged {
		v.Flagged = colorName(c.flag)
	}
	return v
}

// clockFile is a clock in a game's file.
type clockFile struct {
	BaseMS  int64     `json:"base_ms"`
	IncMS   int64     `json:"increment_ms"`
	LeftMS  [2]int64  `json:"left_ms"` // white, black at since
	Since   time.Time `json:"since"`
	Stopped bool      `json:"stopped,omitempty"`
	Flagged string    `json:"flagged,omitempty"`
}

func (c *clock) file() *clockFile {
	if c == nil {
		return nil
	}
	f := &clockFile{BaseMS: c.base.Milliseconds(), IncMS: c.inc.Milliseconds(), LeftMS: [2]int64{c.left[0].Milliseconds(), c.left[1].Milliseconds()},
		Since: c.since.UTC(), Stopped: c.stopped}
	if c.flagged {
		f.Flagged = colorName(c.flag)
	}
	return f
}

func (f *clockFile) clock() (*clock, error) {
	ms := func(x int64) time.Duration { return time.Duration(x) * time.Millisecond }
	if f.BaseMS <= 0 || ms(f.BaseMS) > maxClockBase || f.IncMS < 0 || ms(f.IncMS) > maxClockInc ||
		f.LeftMS[0] < 0 || f.LeftMS[1] < 0 || ms(f.LeftMS[0]) > 2*maxClockBase+maxMoves*maxClockInc || ms(f.LeftMS[1]) > 2*maxClockBase+maxMoves*maxClockInc {
		return nil, fmt.Errorf("clock %+v out of range", *f)
	}
	c := &clock{base: ms(f.BaseMS), inc: ms(f.IncMS), left: [2]time.Duration{ms(f.LeftMS[0]), ms(f.LeftMS[1])}, since: f.Since, stopped: f.Stopped}
	switch f.Flagged {
	case "":
	case "w", "b":
		c.flagged, c.flag = true, env.White
		if f.Flagged == "b" {
			c.flag = env.Black
		}
		if !c.stopped {
			return nil, fmt.Errorf("clock: flagged %s but running", f.Flagged)
		}
	default:
		return nil, fmt.Errorf("clock: flagged %q", f.Flagged)
	}
	return c, nil
}
