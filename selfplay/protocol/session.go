package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

// Limits of the search that infers actions the session was not told about (see Session.Decide).
const (
	maxInferPlies = 8
	inferBudget   = 20000 // states tried
)

// Session plays games through an engine process, keeping the engine's game in step with the caller's
// given only the state at each decision. It mirrors the state it believes the engine holds and queues the
// actions observed since (Observe); Decide sends the queued actions as one play command, then
// genmove_info.
//
// Restarts: when the process is dead — killed after a timeout, a crash or protocol garbage, or by the
// session itself after an illegal action (the engine's game has diverged from the rules) — the first
// Decide after it starts a new process from the same argv and options and sets it up from the state
// it is given. This happens at most once per game (between NewGame/NewGameFrom calls, or since the
// session was created): if that start fails, or the new process dies too, every Decide fails at once
// with the error until the next game. So with the rule "a timeout, crash or illegal action loses the
// game", the failing Decide returns the error, the caller scores the game, calls NewGame, and the next
// game's first Decide restarts the engine. A '?' answer to genmove_info (KindFailed) leaves the process
// running and is not a reason to restart. Restarts counts the starts made. Nothing restarts after Close
// or once the context is done.
//
// A Session is used by one goroutine at a time; Close may come from any goroutine.
type Session struct {
	ctx  context.Context
	argv []string
	opts Options

	mu     sync.Mutex // guards client and closed against Close from another goroutine
	client *Client    // written only by the goroutine using the session, under mu
	closed bool
	dead   error // set when the session killed the process (illegal action) or a restart failed

	variant env.Variant
	pending bool      // the engine must first be set up at start (NewGame / NewGameFrom)
	start   env.State // the game's first state, valid if pending
	synced  bool      // the engine holds mirror
	mirror  env.State
	queue   []env.Action
	own     env.Action // the last action the session chose, already in mirror (valid if hasOwn)
	hasOwn  bool

	restarted bool // a restart was made in this game
	restarts  int
	resyncs   int

	toks  []string
	legal [maxInferPlies + 1][]env.Action
}

// NewSession starts the engine process (Start) for a session. The context bounds the session's
// processes, restarts included.
func NewSession(ctx context.Context, argv []string, opts Options) (*Session, error) {
	c, err := Start(ctx, argv, opts)
	if err != nil {
		return nil, err
	}
	return &Session{ctx: ctx, argv: append([]string(nil), argv...), opts: opts, client: c}, nil
}

// Client returns the current client (a new one after a restart), for commands of the caller's own.
func (ss *Session) Client() *Client { return ss.client }

// Name returns the engine's name (its answer to name).
func (ss *Session) Name() string { return ss.client.Name() }

// Restarts returns how many times the session started a new process after the first one (failed
// starts included).
func (ss *Session) Restarts() int { return ss.restarts }

// Resyncs returns how many times the session set up the engine's game from a position (newgame and,
// unless the state is the initial one, position) because the state given to Decide did not follow
// from the engine's, e.g. after a restart.
func (ss *Session) Resyncs() int { return ss.resyncs }

// NewGame starts a new game from the empty board of variant v; the engine is sent newgame at the next
// Decide (with the actions observed by then), so its moves command lists the whole game.
func (ss *Session) NewGame(v env.Variant) { ss.NewGameFrom(env.NewState(v)) }

// NewGameFrom starts a new game from start (a position text's state, an opening's end, ...): the next
// Decide sends newgame with start's variant and, unless start is the initial state, position with its
// text, then the actions observed since.
func (ss *Session) NewGameFrom(start *env.State) {
	ss.variant = start.Variant()
	ss.start = *start
	ss.pending = true
	ss.synced = false
	ss.queue = ss.queue[:0]
	ss.hasOwn = false
	ss.restarted = false
}

// Observe records an action played in the game, by either side. Actions the session chose itself are
// already in the engine's game and are recognised (the next observed action equal to the one Decide
// returned is skipped), so a caller may observe every action of the game or only the other side's.
func (ss *Session) Observe(a env.Action) {
	if ss.hasOwn {
		ss.hasOwn = false
		if a == ss.own {
			return
		}
	}
	ss.queue = append(ss.queue, a)
}

// Decide brings the engine's game to s and asks it for an action (genmove_info, within timeout; 0
// means the command timeout). s must not be terminal.
//
// Keeping the engine in step: if the mirrored engine state plus the queued actions give s (same hash),
// the queued actions go in one play command. Otherwise, if s is a few actions (at most 8) past that
// state, all by the side to act there (the opponent's turn, as when nothing was observed), a bounded
// search of the legal actions finds them and they are played. Otherwise the session sends newgame with
// s's variant and, unless s is the initial state, position with s's text (Resyncs counts these). A play
// the engine rejects falls back to that set-up.
//
// The action must be legal in s: an illegal one is an *Error of KindIllegal with the token and the
// rules' reason, and the session closes the process. Other errors are the client's (*Error of the kinds
// listed in errors.go).
func (ss *Session) Decide(s *env.State, timeout time.Duration) (env.Action, Info, error) {
	if s.IsTerminal() {
		return 0, Info{}, fmt.Errorf("protocol: Decide on a finished game (result %s)", s.Outcome())
	}
	if err := ss.ensure(); err != nil {
		return 0, Info{}, err
	}
	if err := ss.sync(s); err != nil {
		return 0, Info{}, err
	}
	a, info, err := ss.client.Genmove(timeout)
	if err != nil {
		if k, _ := KindOf(err); k != KindFailed {
			ss.synced = false
		}
		return 0, Info{}, err
	}
	next := *s
	if info.HasSide && info.Side != s.CurrentPlayer() {
		return 0, Info{}, ss.kill(&Error{Kind: KindProtocol, Engine: ss.client.Label(), Command: "genmove_info",
			Message: fmt.Sprintf("the engine played %s for %s, but %s is to act", a, info.Side, s.CurrentPlayer()),
			Stderr:  ss.client.Stderr()})
	}
	if err := next.ApplyAction(a); err != nil {
		reason := strings.TrimPrefix(err.Error(), env.ErrIllegal.Error()+": ")
		return 0, Info{}, ss.kill(&Error{Kind: KindIllegal, Engine: ss.client.Label(), Command: "genmove_info",
			Message: fmt.Sprintf("%q: %s", a.String(), reason), Stderr: ss.client.Stderr()})
	}
	ss.mirror, ss.synced = next, true
	ss.queue = ss.queue[:0]
	ss.own, ss.hasOwn = a, true
	return a, info, nil
}

// Sync brings the engine's game to s as Decide does, without asking for an action: at the end of a
// game, it sends the actions observed since the session's last decision, so that the engine's game (its
// moves command, its result) is the whole game. s may be terminal.
func (ss *Session) Sync(s *env.State) error {
	if err := ss.ensure(); err != nil {
		return err
	}
	return ss.sync(s)
}

// kill closes the process after an error found in a well-formed answer and records the error.
func (ss *Session) kill(e *Error) error {
	ss.client.Close()
	e.Exit = ss.client.ExitStatus()
	ss.dead = e
	ss.synced = false
	return e
}

// ensure makes sure a live process is there, restarting it once per game.
func (ss *Session) ensure() error {
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return &Error{Kind: KindClosed, Engine: ss.client.Label()}
	}
	cause := ss.dead
	if cause == nil {
		cause = ss.client.Err()
	}
	if cause == nil {
		return nil
	}
	if ss.restarted || ss.ctx.Err() != nil {
		return cause
	}
	ss.restarted = true
	ss.client.Close()
	ss.restarts++
	c, err := Start(ss.ctx, ss.argv, ss.opts)
	if err != nil {
		ss.dead = err
		return err
	}
	ss.mu.Lock()
	closed = ss.closed
	if !closed {
		ss.client = c
	}
	ss.mu.Unlock()
	if closed { // Close came while the new process started
		c.Close()
		return &Error{Kind: KindClosed, Engine: c.Label()}
	}
	ss.dead, ss.synced = nil, false
	c.log.Info("engine restarted", "engine", c.Label(), "restarts", ss.restarts, "cause", cause.Error())
	return nil
}

// sync brings the engine's game to s.
func (ss *Session) sync(s *env.State) error {
	if ss.pending {
		if err := ss.setUp(&ss.start); err != nil {
			return err
		}
		ss.pending = false
	}
	if ss.synced {
		if path, ok := ss.catchUp(s); ok {
			err := ss.play(path)
			if err == nil {
				ss.mirror = *s
				ss.queue = ss.queue[:0]
				return nil
			}
			if k, _ := KindOf(err); k != KindFailed {
				ss.synced = false
				return err
			}
		}
	}
	ss.resyncs++
	if err := ss.setUp(s); err != nil {
		return err
	}
	ss.queue = ss.queue[:0]
	return nil
}

// setUp sends newgame (and position unless s is the initial state) and mirrors s.
func (ss *Session) setUp(s *env.State) error {
	ss.synced = false
	ss.hasOwn = false
	if err := ss.client.NewGame(s.Variant()); err != nil {
		return err
	}
	if s.Hash() != env.NewState(s.Variant()).Hash() {
		if err := ss.client.SetPosition(s.Text()); err != nil {
			return err
		}
	}
	ss.mirror, ss.synced = *s, true
	return nil
}

func (ss *Session) play(path []env.Action) error {
	if len(path) == 0 {
		return nil
	}
	ss.toks = ss.toks[:0]
	for _, a := range path {
		ss.toks = append(ss.toks, a.String())
	}
	return ss.client.Play(ss.toks...)
}

// catchUp returns the actions that take the mirrored state to s: the queue if it does, else the queue
// (or nothing, if the queue is not legal from the mirror) followed by the actions found by a bounded
// search.
func (ss *Session) catchUp(s *env.State) ([]env.Action, bool) {
	cur := ss.mirror
	n := 0
	for _, a := range ss.queue {
		if cur.ApplyAction(a) != nil {
			break
		}
		n++
	}
	if n == len(ss.queue) && cur.Hash() == s.Hash() {
		return ss.queue, true
	}
	if n < len(ss.queue) { // the queue does not follow from the mirror: search from the mirror alone
		cur, n = ss.mirror, 0
	}
	k := s.Ply() - cur.Ply()
	if k < 1 || k > maxInferPlies {
		return nil, false
	}
	budget := inferBudget
	path, ok := ss.infer(&cur, s, k, cur.CurrentPlayer(), &budget, ss.queue[:n:n])
	return path, ok
}

// infer searches the sequences of k legal actions by side from cur (every state before the last
// action must have side to act) for one that reaches target's hash, within budget states.
func (ss *Session) infer(cur *env.State, target *env.State, k int, side env.Color, budget *int, path []env.Action) ([]env.Action, bool) {
	if k == 0 {
		return path, cur.Hash() == target.Hash()
	}
	if cur.IsTerminal() || cur.CurrentPlayer() != side {
		return nil, false
	}
	ss.legal[k] = cur.LegalActions(ss.legal[k][:0])
	for _, a := range ss.legal[k] {
		if *budget <= 0 {
			return nil, false
		}
		*budget--
		next := *cur
		if next.ApplyAction(a) != nil {
			continue
		}
		if p, ok := ss.infer(&next, target, k-1, side, budget, append(path, a)); ok {
			return p, true
		}
	}
	return nil, false
}

// Close ends the session's process (Client.Close); later Decides fail with KindClosed.
func (ss *Session) Close() error {
	ss.mu.Lock()
	ss.closed = true
	c := ss.client
	ss.mu.Unlock()
	return c.Close()
}

// Forfeits reports whether err is an engine fault that, by the usual tournament rule, loses the game
// in progress: a timeout, an exit, protocol garbage, an illegal action, or an error answer to a command
// of the game. Errors of KindClosed (the caller's Close or context) and KindStart (the program cannot be
// run) are not: they stop the match.
func Forfeits(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindTimeout, KindExited, KindProtocol, KindIllegal, KindFailed:
		return true
	}
	return false
}
