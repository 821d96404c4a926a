package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Time: set movetime and the GTP time controls (time_settings, time_left) mapped onto the
// player's move time.

// setMoveTime makes d the time per decision (0: bounded by simulations). A player that can change
// its move time in place (selfplay.SearchPlayer) keeps its tree; otherwise, and when the cap on
// simulations changes with it, the player is rebuilt. Either way the player's search validates the
// new settings (a timed Gumbel search is mcts.Config.Validate's to accept or refuse); on error the
// engine keeps its old move time.
func (e *Engine) setMoveTime(d time.Duration) error {
	old := e.set.MoveTime
	if d == old {
		return nil
	}
	if mt, ok := e.player.(interface{ SetMoveTime(time.Duration) error }); ok && (old > 0) == (d > 0) {
		if err := mt.SetMoveTime(d); err != nil {
			return err
		}
		e.set.MoveTime = d
		e.dropSearcher() // the analysis searches as the player does: with its move time
		return nil
	}
	set := e.set
	set.MoveTime = d
	return e.configure(e.spec, set, e.seed, e.variant)
}

// gtpClock is a GTP time control (time_settings): main time, then byo-yomi periods of Byo for
// Stones decisions, all in seconds. Zero Byo and Main means no time limit.
type gtpClock struct {
	Main, Byo float64
	Stones    int
	set       bool
}

// movesLeftGuess is how many more own decisions a main time is spread over (YINSH games last
// about 70-80 actions, 35-40 per side; a fixed share keeps early moves from using it all).
const movesLeftGuess = 30

// perMove returns the time for the next decision given the time left and the stones left in the
// current byo-yomi period (0: in main time), keeping a margin for the protocol and the process.
func (c gtpClock) perMove(left float64, stones int) time.Duration {
	var sec float64
	switch {
	case stones > 0:
		sec = left / float64(stones)
	case c.Byo > 0 && c.Stones > 0:
		sec = left/movesLeftGuess + c.Byo/float64(c.Stones)
	default:
		sec = left / movesLeftGuess
	}
	sec = sec*0.9 - 0.02 // 10% and 20 ms of margin
	if sec < 0.001 {
		sec = 0.001
	}
	return time.Duration(sec * float64(time.Second))
}

func parseSeconds(name, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= 0 && x < 1e7) {
		return 0, fmt.Errorf("%s: want seconds >= 0, got %q", name, v)
	}
	return x, nil
}

func (e *Engine) cmdTimeSettings(args []string) (string, error) {
	main, err := parseSeconds("time_settings main time", args[0])
	if err != nil {
		return "", err
	}
	byo, err := parseSeconds("time_settings byo-yomi time", args[1])
	if err != nil {
		return "", err
	}
	stones, err := strconv.Atoi(args[2])
	if err != nil || stones < 0 || stones > 1_000_000 {
		return "", fmt.Errorf("time_settings byo-yomi stones: want a count >= 0, got %q", args[2])
	}
	if byo > 0 && stones == 0 {
		return "", errors.New("time_settings: a byo-yomi time needs at least 1 stone")
	}
	c := gtpClock{Main: main, Byo: byo, Stones: stones, set: true}
	if main == 0 && byo == 0 {
		e.clock = gtpClock{}
		return "", e.setMoveTime(0) // GTP: 0 0 0 means no time limit
	}
	d := c.perMove(main, 0)
	if main == 0 {
		d = c.perMove(byo, stones)
	}
	if err := e.setMoveTime(d); err != nil {
		return "", err
	}
	e.clock = c
	return "", nil
}

func (e *Engine) cmdTimeLeft(args []string) (string, error) {
	switch strings.ToLower(args[0]) {
	case "w", "white", "b", "black":
	default:
		return "", fmt.Errorf("time_left: colour %q, want w, b, white or black", args[0])
	}
	left, err := parseSeconds("time_left", args[1])
	if err != nil {
		return "", err
	}
	stones, err := strconv.Atoi(args[2])
	if err != nil || stones < 0 || stones > 1_000_000 {
		return "", fmt.Errorf("time_left stones: want a count >= 0, got %q", args[2])
	}
	if !e.clock.set {
		return "", errors.New("time_left: no time_settings given (the engine is bounded by sims or set movetime)")
	}
	return "", e.setMoveTime(e.clock.perMove(left, stones))
}
