package selfplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// DefaultEngineTimeout bounds an external engine's decision when PlayerOptions.EngineTimeout is 0 and
// there is no move time; with a move time the bound is 2·MoveTime + 2 s.
const DefaultEngineTimeout = 60 * time.Second

// externalEngines is the pool behind an engine:"CMD ARGS" player spec: one engine process for each game
// played at once, reused by later games (a tournament manager's engines). A player takes a session
// from the pool for one game and gives it back when the match closes the player. A session whose
// process died (timeout, crash, illegal action) is restarted by the session at its next game.
type externalEngines struct {
	spec    string
	argv    []string
	opts    protocol.Options
	variant env.Variant
	timeout time.Duration
	ctx     context.Context
	cancel  context.CancelFunc

	mu     sync.Mutex
	free   []*protocol.Session
	all    []*protocol.Session
	closed bool
}

// externalFactory starts the first engine process of spec at once, so that a bad command fails before
// a match starts, and returns the factory of players and the pool's closer.
func externalFactory(spec string, opts PlayerOptions) (PlayerFactory, io.Closer, error) {
	argv, err := protocol.ParseSpec(spec)
	if err != nil {
		return nil, nil, err
	}
	timeout := opts.EngineTimeout
	if timeout <= 0 {
		timeout = DefaultEngineTimeout
		if opts.MoveTime > 0 {
			timeout = 2*opts.MoveTime + 2*time.Second
		}
	}
	popts := protocol.Options{Label: spec}
	if opts.MoveTime > 0 {
		// GTP's time control: byo-yomi of the move time for one decision (the engine keeps its own
		// margin for the protocol; yinsh engine maps it onto its move time)
		sec := strconv.FormatFloat(opts.MoveTime.Seconds(), 'f', -1, 64)
		popts.Setup = [][]string{{"time_settings", "0", sec, "1"}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &externalEngines{spec: spec, argv: argv, opts: popts, variant: opts.Variant, timeout: timeout, ctx: ctx, cancel: cancel}
	s, err := protocol.NewSession(ctx, argv, popts)
	if err != nil {
		cancel()
		return nil, nil, fmt.Errorf("selfplay: player %s: %w", spec, err)
	}
	p.free, p.all = []*protocol.Session{s}, []*protocol.Session{s}
	return p.player, p, nil
}

// player takes a free session, or starts a new engine process, for one game.
func (p *externalEngines) player(seed uint64) (Player, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("selfplay: player %s: closed", p.spec)
	}
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return &ExternalPlayer{pool: p, sess: s}, nil
	}
	p.mu.Unlock()
	s, err := protocol.NewSession(p.ctx, p.argv, p.opts)
	if err != nil {
		return nil, fmt.Errorf("selfplay: player %s: %w", p.spec, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		s.Close()
		return nil, fmt.Errorf("selfplay: player %s: closed", p.spec)
	}
	p.all = append(p.all, s)
	return &ExternalPlayer{pool: p, sess: s}, nil
}

func (p *externalEngines) put(s *protocol.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		s.Close()
		return
	}
	p.free = append(p.free, s)
}

// Close quits every engine process of the pool (killing those that do not quit) and reaps them.
func (p *externalEngines) Close() error {
	p.mu.Lock()
	all := p.all
	p.all, p.free, p.closed = nil, nil, true
	p.mu.Unlock()
	var errs []error
	for _, s := range all {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	p.cancel()
	return errors.Join(errs...)
}

// ExternalPlayer is one game's player of an engine:"CMD ARGS" spec: it follows the game action by
// action (Observer) and asks the engine for genmove_info when it is to act. A timeout, crash,
// protocol error or illegal action of the engine is a forfeit (ErrForfeit): it loses the game, and
// the engine is restarted for the next game.
type ExternalPlayer struct {
	pool *externalEngines
	sess *protocol.Session
	done bool
}

func (x *ExternalPlayer) Name() string         { return x.pool.spec }
func (x *ExternalPlayer) NewGame()             { x.sess.NewGame(x.pool.variant) }
func (x *ExternalPlayer) Observe(a env.Action) { x.sess.Observe(a) }

// Decide implements Player.
func (x *ExternalPlayer) Decide(s *env.State) (Decision, error) {
	a, info, err := x.sess.Decide(s, x.pool.timeout)
	if err != nil {
		if protocol.Forfeits(err) {
			return Decision{}, fmt.Errorf("%w: %w", ErrForfeit, err)
		}
		return Decision{}, err
	}
	d := Decision{Action: a, WDL: info.WDL, HasValue: info.HasWDL, PV: info.PV}
	for _, c := range info.Top {
		d.Top = append(d.Top, ActionStat{Action: c.Action, Prior: c.Prior, Visits: c.Visits, Q: c.Q})
	}
	return d, nil
}

// SetMoveTime sends the engine a new time per decision (GTP time_settings; 0: none).
func (x *ExternalPlayer) SetMoveTime(d time.Duration) error {
	c := x.sess.Client()
	if c == nil {
		return nil
	}
	byo, stones := "0", "0" // GTP: time_settings 0 0 0 is no time limit
	if d > 0 {
		byo, stones = strconv.FormatFloat(d.Seconds(), 'f', -1, 64), "1"
	}
	_, err := c.Command(0, "time_settings", "0", byo, stones)
	return err
}

// Close gives the player's engine back to its pool (the match calls it after the game).
func (x *ExternalPlayer) Close() error {
	if !x.done {
		x.done = true
		x.pool.put(x.sess)
	}
	return nil
}
