package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// The commands that ask the player for a decision: genmove, genmove_info, eval.

// decide asks the player for the side to act; it errs on a finished game.
func (e *Engine) decide() (selfplay.Decision, time.Duration, error) {
	if e.state.IsTerminal() {
		return selfplay.Decision{}, 0, fmt.Errorf("the game is over (result %s)", e.state.Outcome())
	}
	c := e.state // the player gets a copy: nothing it does can touch the game or the undo stack
	start := time.Now()
	d, err := e.player.Decide(&c)
	elapsed := time.Since(start)
	if err != nil {
		return d, elapsed, fmt.Errorf("player %s: %v", e.player.Name(), err)
	}
	return d, elapsed, nil
}

// genmove decides and plays an action, logging it with its time.
func (e *Engine) genmove() (selfplay.Decision, env.Color, time.Duration, error) {
	side := e.state.CurrentPlayer()
	d, elapsed, err := e.decide()
	if err != nil {
		return d, side, elapsed, err
	}
	if err := e.apply(d.Action); err != nil {
		return d, side, elapsed, fmt.Errorf("player %s chose %s: %v", e.player.Name(), d.Action, err)
	}
	attrs := []any{"action", d.Action.String(), "side", sideName(side), "ply", e.state.Ply(),
		"player", e.player.Name(), "ms", float64(elapsed.Microseconds()) / 1000}
	if d.HasValue {
		attrs = append(attrs, "wdl", formatWDL(d))
	}
	e.log.Info("genmove", attrs...)
	return d, side, elapsed, nil
}

func (e *Engine) cmdGenmove(args []string) (string, error) {
	if len(args) == 1 {
		c, ok := parseColor(args[0])
		if !ok {
			return "", fmt.Errorf("genmove: colour %q, want w, b, white or black", args[0])
		}
		if err := e.checkColor("genmove", c); err != nil {
			return "", err
		}
	}
	d, _, _, err := e.genmove()
	if err != nil {
		return "", err
	}
	return d.Action.String(), nil
}

func (e *Engine) cmdGenmoveInfo([]string) (string, error) {
	d, side, elapsed, err := e.genmove()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "action %s\nside %s\ntime_ms %.3f\nwdl %s", d.Action, sideName(side),
		float64(elapsed.Microseconds())/1000, formatWDL(d))
	writeTop(&b, d.Top, 10)
	writePV(&b, d.PV)
	return b.String(), nil
}

func (e *Engine) cmdEval(args []string) (string, error) {
	n := 10
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 0 {
			return "", fmt.Errorf("eval: want a count of at least 0, got %q", args[0])
		}
	}
	side := e.state.CurrentPlayer()
	d, _, err := e.decide()
	if err != nil {
		return "", err
	}
	top := d.Top
	if len(top) == 0 {
		// Players that do not search say nothing about the candidates: list the legal actions with
		// uniform priors and no visits.
		e.buf = e.state.LegalActions(e.buf)
		p := float32(1) / float32(len(e.buf))
		top = make([]selfplay.ActionStat, 0, min(n, len(e.buf)))
		for _, a := range e.buf[:min(n, len(e.buf))] {
			top = append(top, selfplay.ActionStat{Action: a, Prior: p})
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "side %s\nwdl %s\nbest %s", sideName(side), formatWDL(d), d.Action)
	writeTop(&b, top, n)
	writePV(&b, d.PV)
	return b.String(), nil
}
