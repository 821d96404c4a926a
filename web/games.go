package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// trainedFor caches the variant each checkpoint spec's network was trained for (a
// trainedVariant, read once from the file's header).
var trainedFor sync.Map

type trainedVariant struct {
	v  env.Variant
	ok bool
}

// networkVariant returns the variant the network of a checkpoint spec was trained for, and false
// for the players that are no fixed network (random, heuristic, rollout:N, engine:"CMD"; reference
// and level:N, which follow the game's variant) and for checkpoints that do not record it (or
// cannot be read: the player's loader reports those).
func networkVariant(spec string) (env.Variant, bool) {
	if selfplay.FollowsVariant(spec) {
		return 0, false
	}
	if c, ok := trainedFor.Load(spec); ok {
		t := c.(trainedVariant)
		return t.v, t.ok
	}
	var t trainedVariant
	t.v, t.ok = selfplay.TrainedVariant(spec, 0)
	trainedFor.Store(spec, t)
	return t.v, t.ok
}

// checkVariant refuses a game or an analysis of variant v against the server's network when that
// network was trained for the other variant, as yinsh play and yinsh engine refuse it, and against
// reference or level:N when v has no reference network. The server's own --variant is always
// accepted: yinsh serve checked it at start (where --any-variant lets a network play the other
// variant).
func (s *Server) checkVariant(v env.Variant, what string) error {
	return s.checkVariantOf(s.opts.Player, s.agent, v, what)
}

// checkVariantOf is checkVariant for the player spec (named name), one the server offers.
func (s *Server) checkVariantOf(spec, name string, v env.Variant, what string) error {
	if v == s.opts.Players.Variant && spec == s.opts.Player {
		return nil
	}
	if selfplay.FollowsVariant(spec) {
		if nets.Has(v) {
			return nil
		}
		return errorf(http.StatusBadRequest, "variant %s: the agent %s plays the reference network of the game's variant, and there is none for %s; this server does not %s %s",
			v, name, v, what, v)
	}
	trained, ok := networkVariant(spec)
	if !ok || trained == v {
		return nil
	}
	if spec != s.opts.Player {
		return errorf(http.StatusBadRequest, "variant %s: the player %s was trained for %s games; choose another player for %s games", v, name, trained, v)
	}
	alt := engine.DefaultPlayer(v)
	return errorf(http.StatusBadRequest, "variant %s: the agent %s was trained for %s games; this server does not %s %s "+
		"(start another one with --variant %s, whose agent is %s, or give this one --variant %s --any-variant)",
		v, name, trained, what, v, v, alt, v)
}

// game is one session: a human against the server's agent. Its mutex is held for the whole of a
// request on it, an agent decision included, so a game has at most one search in flight.
type game struct {
	mu      sync.Mutex
	id      string
	variant env.Variant
	human   env.Color
	player  string // the agent's spec (one the server offers)
	agent   selfplay.Player
	state   env.State
	history []env.State // the state before each action of moves
	moves   []env.Action
	started time.Time
	used    time.Time
	view    *agentView // the agent's view of its last decision
	resign  bool       // the human resigned: the agent won
	clock   *clock     // the time control (nil: none)
	now     func() time.Time
	gone    bool // deleted or dropped: its agent was given back, requests waiting on it get 404
}

// gameStore holds the sessions, at most max, dropping those untouched for idle.
type gameStore struct {
	mu    sync.Mutex
	max   int
	idle  time.Duration
	games map[string]*game
	seq   uint64
}

func newGameStore(max int, idle time.Duration) *gameStore {
	return &gameStore{max: max, idle: idle, games: map[string]*game{}}
}

func (st *gameStore) get(id string) (*game, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	g, ok := st.games[id]
	if !ok {
		return nil, errorf(http.StatusNotFound, "no game %q", id)
	}
	return g, nil
}

// add stores g under a new random id (see put).
func (st *gameStore) add(g *game) (uint64, error) {
	var b [12]byte
	rand.Read(b[:])
	g.id = hex.EncodeToString(b[:])
	return st.put(g)
}

// put stores g under its id, first dropping idle games; it fails with 503 when the store is full
// of games in use. It returns the game's sequence number (its agent's seed offset).
func (st *gameStore) put(g *game) (uint64, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.games) >= st.max {
		now := time.Now()
		for id, o := range st.games {
			if o.mu.TryLock() {
				if now.Sub(o.used) > st.idle {
					delete(st.games, id)
					if o.agent != nil {
						o.release()
					}
				}
				o.mu.Unlock()
			}
		}
	}
	if len(st.games) >= st.max {
		return 0, errorf(http.StatusServiceUnavailable, "%d games in progress, the most this server keeps: delete one (DELETE /api/games/ID) or retry later", st.max)
	}
	st.games[g.id] = g
	st.seq++
	return st.seq, nil
}

func (st *gameStore) remove(id string) bool {
	st.mu.Lock()
	g, ok := st.games[id]
	delete(st.games, id)
	st.mu.Unlock()
	if ok {
		g.mu.Lock()
		if g.agent != nil {
			g.release()
		}
		g.mu.Unlock()
	}
	return ok
}

// gameView is the answer of every game endpoint.
type gameView struct {
	ID      string `json:"id"`
	Variant string `json:"variant"`
	You     string `json:"you"`    // the human's colour
	Agent   string `json:"agent"`  // the agent's name
	Player  string `json:"player"` // the agent's spec: one of /api/info's opponents
	boardView
	Moves     []string   `json:"moves"`
	YourTurn  bool       `json:"your_turn"`
	Played    string     `json:"played,omitempty"`   // the action the agent just played (agent endpoint)
	Resigned  string     `json:"resigned,omitempty"` // the colour that resigned (the game is then over)
	Timeout   string     `json:"timeout,omitempty"`  // the colour that lost on time (the game is then over)
	Clock     *clockView `json:"clock,omitempty"`
	AgentView *agentView `json:"agent_view,omitempty"`
}

// agentView is what the agent reported with its last action.
type agentView struct {
	Action string                 `json:"action"`
	WDL    *[3]float64            `json:"wdl,omitempty"`
	Top    []engine.CandidateJSON `json:"top,omitempty"` // as /api/analyze's candidates
	PV     []string               `json:"pv,omitempty"`
	TimeMS float64                `json:"time_ms"`
}

// observe tells the agent an action was played, for players that follow the game (external
// engines, which are sent every action).
func (g *game) observe(a env.Action) {
	if ob, ok := g.agent.(selfplay.Observer); ok {
		ob.Observe(a)
	}
}

// resync starts the agent's game again and replays the moves to it (after an undo).
func (g *game) resync() {
	g.agent.NewGame()
	for _, a := range g.moves {
		g.observe(a)
	}
}

// release gives back what the agent holds (an external engine's process goes back to its pool).
func (g *game) release() {
	g.gone = true
	if c, ok := g.agent.(io.Closer); ok {
		c.Close()
	}
}

func (g *game) viewLocked() gameView {
	var last env.Action
	if n := len(g.moves); n > 0 {
		last = g.moves[n-1]
	}
	v := gameView{ID: g.id, Variant: g.variant.String(), You: colorName(g.human), Agent: g.agent.Name(), Player: g.player,
		boardView: viewOf(&g.state, last, len(g.moves) > 0), Moves: tokensOf(g.moves), AgentView: g.view}
	v.YourTurn = !g.state.IsTerminal() && g.state.CurrentPlayer() == g.human
	if g.resign {
		v.Resigned, v.Result, v.YourTurn, v.Legal = colorName(g.human), resultName(winnerOf(g.human.Other())), false, []string{}
	}
	if c := g.clock; c != nil {
		v.Clock = g.clockView(g.now())
		if c.flagged {
			v.Timeout, v.Result, v.YourTurn, v.Legal = colorName(c.flag), resultName(winnerOf(c.flag.Other())), false, []string{}
			v.Phase = "over"
		}
	}
	return v
}

func winnerOf(c env.Color) env.Outcome {
	if c == env.White {
		return env.WhiteWins
	}
	return env.BlackWins
}

// overErr is the 409 of an action on a game that is over (on the board or by resignation), nil
// while it goes on.
func (g *game) overErr() error {
	if g.resign {
		return errorf(http.StatusConflict, "the game is over: %s resigned (result %s)", g.human, resultName(winnerOf(g.human.Other())))
	}
	if c := g.clock; c != nil && c.flagged {
		return errorf(http.StatusConflict, "the game is over: %s lost on time (result %s)", c.flag, resultName(winnerOf(c.flag.Other())))
	}
	if g.state.IsTerminal() {
		return errorf(http.StatusConflict, "the game is over (result %s)", resultName(g.state.Outcome()))
	}
	return nil
}

type createRequest struct {
	Variant string `json:"variant"`
	Color   string `json:"color"`  // the human's colour: white (default) or black
	Player  string `json:"player"` // the agent: one of /api/info's opponents (default: the server's)
	// Clock is the time control in seconds per side (absent: none).
	Clock *clockRequest `json:"clock"`
}

func parseColor(s string) (env.Color, error) {
	switch strings.ToLower(s) {
	case "", "w", "white":
		return env.White, nil
	case "b", "black":
		return env.Black, nil
	}
	return 0, errorf(http.StatusBadRequest, "color %q: want white or black", s)
}

func (s *Server) handleCreateGame(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	v, err := parseVariant(req.Variant, s.opts.Players.Variant)
	if err != nil {
		fail(w, err)
		return
	}
	c, err := parseColor(req.Color)
	if err != nil {
		fail(w, err)
		return
	}
	spec, err := s.opponent(req.Player)
	if err != nil {
		fail(w, err)
		return
	}
	if err := s.checkVariantOf(spec, s.nameOf(spec), v, "play"); err != nil {
		fail(w, err)
		return
	}
	now := s.now()
	clk, err := newClock(req.Clock, now)
	if err != nil {
		fail(w, err)
		return
	}
	g := &game{variant: v, human: c, player: spec, state: *env.NewState(v), started: now, used: now, clock: clk, now: s.now}
	g.mu.Lock() // until its agent is made: no request on it before
	seq, err := s.games.add(g)
	if err != nil {
		g.mu.Unlock()
		fail(w, err)
		return
	}
	factory, err := s.factoryFor(spec, v)
	if err != nil {
		g.mu.Unlock()
		s.games.remove(g.id)
		fail(w, err)
		return
	}
	agent, err := factory(s.opts.Seed + seq)
	if err != nil {
		g.mu.Unlock()
		s.games.remove(g.id)
		fail(w, err)
		return
	}
	defer g.mu.Unlock()
	g.agent = agent
	g.agent.NewGame()
	s.save(g)
	if s.files != nil {
		if err := s.files.evict(); err != nil {
			s.log.Warn("cannot remove old saved games", "dir", s.files.dir, "err", err)
		}
	}
	w.Header().Set("Location", "/api/games/"+g.id)
	writeJSON(w, http.StatusCreated, g.viewLocked())
}

// withGame runs fn on the game of the request's id under its lock.
func (s *Server) withGame(w http.ResponseWriter, r *http.Request, fn func(g *game) (int, any, error)) {
	g, err := s.game(r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		fail(w, errorf(http.StatusNotFound, "no game %q", g.id))
		return
	}
	g.used = time.Now()
	flagged := g.checkFlag(g.now()) // the clock's verdict first: a flag that fell ends the game
	status, v, err := fn(g)
	if flagged || err == nil && r.Method != http.MethodGet {
		s.save(g)
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, status, v)
}

// game returns the game of id: in memory, or read back from Options.GamesDir.
func (s *Server) game(id string) (*game, error) {
	g, err := s.games.get(id)
	if err == nil {
		return g, nil
	}
	if g := s.loadGame(id); g != nil {
		return g, nil
	}
	return nil, err
}

// save writes g's file when games are kept on disk (g.mu held); a failure is logged, the game goes
// on in memory.
func (s *Server) save(g *game) {
	if s.files == nil || g.gone {
		return
	}
	if err := s.files.save(g); err != nil {
		s.log.Warn("cannot save a game", "game", g.id, "err", err)
	}
}

func (s *Server) handleGetGame(w http.ResponseWriter, r *http.Request) {
	s.withGame(w, r, func(g *game) (int, any, error) { return http.StatusOK, g.viewLocked(), nil })
}

func (s *Server) handleDeleteGame(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.game(id); err != nil { // a game on disk only is deleted too
		fail(w, err)
		return
	}
	if s.files != nil {
		s.files.remove(id)
	}
	if !s.games.remove(id) {
		writeError(w, http.StatusNotFound, "no game %q", r.PathValue("id"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type playRequest struct {
	Action  string   `json:"action"`
	Actions []string `json:"actions"` // several actions of the human in a row
}

func (s *Server) handlePlay(w http.ResponseWriter, r *http.Request) {
	var req playRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	toks := req.Actions
	if req.Action != "" {
		toks = append([]string{req.Action}, toks...)
	}
	if len(toks) == 0 {
		writeError(w, http.StatusBadRequest, `give "action" (a token such as e5, e5-e8, xe5-e9, xe5 or pass)`)
		return
	}
	if len(toks) > maxMoves {
		writeError(w, http.StatusBadRequest, "%d actions: at most %d", len(toks), maxMoves)
		return
	}
	s.withGame(w, r, func(g *game) (int, any, error) {
		// all or nothing: check every action on a copy first
		st, hist, moves := g.state, append([]env.State(nil), g.history...), append([]env.Action(nil), g.moves...)
		if err := g.overErr(); err != nil {
			return 0, nil, err
		}
		for i, tok := range toks {
			if st.IsTerminal() {
				return 0, nil, errorf(http.StatusConflict, "the game is over (result %s)", resultName(st.Outcome()))
			}
			if st.CurrentPlayer() != g.human {
				return 0, nil, errorf(http.StatusConflict, "it is the agent's turn: POST /api/games/%s/agent", g.id)
			}
			a, err := env.ParseAction(tok)
			if err != nil {
				return 0, nil, errorf(http.StatusBadRequest, "action %d %q: %s", i+1, tok, tidy(err.Error()))
			}
			prev := st
			if err := st.ApplyAction(a); err != nil {
				return 0, nil, errorf(http.StatusBadRequest, "action %d %q is not legal here: %s", i+1, tok, tidy(err.Error()))
			}
			hist, moves = append(hist, prev), append(moves, a)
		}
		for _, a := range moves[len(g.moves):] {
			g.observe(a)
		}
		g.state, g.history, g.moves = st, hist, moves
		g.charge(g.human, g.now())
		return http.StatusOK, g.viewLocked(), nil
	})
}

// handleAgent lets the agent play one action (the page calls it while it is the agent's turn and
// draws each action as it comes).
func (s *Server) handleAgent(w http.ResponseWriter, r *http.Request) {
	s.withGame(w, r, func(g *game) (int, any, error) {
		if err := g.overErr(); err != nil {
			return 0, nil, err
		}
		if g.state.CurrentPlayer() == g.human {
			return 0, nil, errorf(http.StatusConflict, "it is your turn, not the agent's")
		}
		release, err := s.pool.acquire(r.Context(), clientKey(r))
		if err != nil {
			return 0, nil, err
		}
		if g.clock != nil { // its share of the clock, or its own move time if shorter
			if mt, ok := g.agent.(interface{ SetMoveTime(time.Duration) error }); ok {
				if err := mt.SetMoveTime(g.agentTime(s.opts.Players.MoveTime, g.now())); err != nil {
					s.log.Debug("the agent takes no move time: it plays by its simulations", "agent", g.agent.Name(), "err", err)
				}
			}
		}
		start := time.Now()
		st := g.state
		d, err := g.agent.Decide(&st)
		release()
		if g.checkFlag(g.now()) { // the agent's time ran out while it searched: it lost on time
			return http.StatusOK, g.viewLocked(), nil
		}
		if err != nil {
			g.resync() // an external engine restarted after a failure follows the game again
			return 0, nil, errorf(http.StatusBadGateway, "agent %s failed: %s (POST agent again to retry)", g.agent.Name(), tidy(err.Error()))
		}
		prev := g.state
		if err := g.state.ApplyAction(d.Action); err != nil {
			g.resync()
			return 0, nil, errorf(http.StatusBadGateway, "agent %s played an illegal action: %s", g.agent.Name(), tidy(err.Error()))
		}
		g.history, g.moves = append(g.history, prev), append(g.moves, d.Action)
		g.charge(g.human.Other(), g.now())
		g.observe(d.Action)
		g.view = &agentView{Action: d.Action.String(), PV: tokensOf(d.PV), TimeMS: engine.Millis(time.Since(start))}
		if d.HasValue {
			g.view.WDL = engine.RoundWDL(d.WDL)
		}
		if len(d.Top) > 0 {
			g.view.Top = engine.CandidatesOf(playedFirst(d.Top, d.Action), 5)
		}
		v := g.viewLocked()
		v.Played = d.Action.String()
		return http.StatusOK, v, nil
	})
}

// playedFirst returns the candidates with the played action moved to the front of those with as
// many visits as it (a search's ties are listed in any order; the one the agent chose comes first).
func playedFirst(top []selfplay.ActionStat, played env.Action) []selfplay.ActionStat {
	at := -1
	for i, st := range top {
		if st.Action == played {
			at = i
			break
		}
	}
	if at <= 0 {
		return top
	}
	first := at
	for first > 0 && top[first-1].Visits == top[at].Visits {
		first--
	}
	if first == at {
		return top
	}
	out := append([]selfplay.ActionStat(nil), top[:first]...)
	out = append(out, top[at])
	out = append(out, top[first:at]...)
	return append(out, top[at+1:]...)
}

// handleUndo takes back actions to the human's previous decision point: the last human action and
// the agent's answers after it.
func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request) {
	s.withGame(w, r, func(g *game) (int, any, error) {
		if g.resign {
			return 0, nil, errorf(http.StatusConflict, "the game is over: you resigned (start a new game)")
		}
		if g.clock != nil {
			return 0, nil, errorf(http.StatusConflict, "no undo in a game on the clock")
		}
		if len(g.moves) == 0 {
			return 0, nil, errorf(http.StatusConflict, "nothing to undo")
		}
		for len(g.history) > 0 {
			n := len(g.history) - 1
			g.state, g.history, g.moves = g.history[n], g.history[:n], g.moves[:n]
			if g.state.CurrentPlayer() == g.human {
				break
			}
		}
		g.view = nil
		g.resync()
		return http.StatusOK, g.viewLocked(), nil
	})
}

// handleResign ends the game: the human resigns, the agent wins. It may come during the agent's
// turn (it then waits for the agent's action in progress).
func (s *Server) handleResign(w http.ResponseWriter, r *http.Request) {
	s.withGame(w, r, func(g *game) (int, any, error) {
		if err := g.overErr(); err != nil {
			return 0, nil, err
		}
		if g.clock != nil && g.clockRuns(g.human) {
			g.clock.left[g.human] = g.timeLeft(g.human, g.now())
		}
		g.resign = true
		if g.clock != nil {
			g.clock.stopped = true
		}
		return http.StatusOK, g.viewLocked(), nil
	})
}

func (s *Server) handleLegal(w http.ResponseWriter, r *http.Request) {
	s.withGame(w, r, func(g *game) (int, any, error) {
		v := g.viewLocked()
		return http.StatusOK, map[string]any{"to_act": v.ToAct, "phase": v.Phase, "your_turn": v.YourTurn, "legal": v.Legal}, nil
	})
}

// tokenFile is a game as a token file that yinsh replay reads (the comment names the variant).
func (g *game) tokenFile(agent string) string {
	white, black := "you", agent
	if g.human == env.Black {
		white, black = agent, "you"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# yinsh serve: white=%s black=%s variant=%s started=%s\n", strconv.Quote(white), strconv.Quote(black),
		g.variant, g.started.UTC().Format(time.RFC3339))
	b.WriteString(strings.Join(tokensOf(g.moves), " "))
	b.WriteByte('\n')
	switch {
	case g.resign:
		fmt.Fprintf(&b, "# result: %s (%s resigned)\n", winnerOf(g.human.Other()), g.human)
	case g.clock != nil && g.clock.flagged:
		fmt.Fprintf(&b, "# result: %s (%s lost on time)\n", winnerOf(g.clock.flag.Other()), g.clock.flag)
	case g.state.IsTerminal():
		fmt.Fprintf(&b, "# result: %s\n", g.state.Outcome())
	}
	return b.String()
}

func (s *Server) handleTokens(w http.ResponseWriter, r *http.Request) {
	g, err := s.game(r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	g.mu.Lock()
	if g.checkFlag(g.now()) {
		s.save(g)
	}
	text := g.tokenFile(g.agent.Name())
	g.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="yinsh-`+g.id[:8]+`.txt"`)
	w.Write([]byte(text))
}

func (s *Server) handleSGF(w http.ResponseWriter, r *http.Request) {
	g, err := s.game(r.PathValue("id"))
	if err != nil {
		fail(w, err)
		return
	}
	g.mu.Lock()
	if g.checkFlag(g.now()) {
		s.save(g)
	}
	players := [2]string{"you", g.agent.Name()}
	if g.human == env.Black {
		players = [2]string{g.agent.Name(), "you"}
	}
	text := WriteSGF(SGFInfo{Variant: g.variant, Players: players, Date: g.started, Name: "yinsh-" + g.id[:8]}, g.moves)
	if g.resign {
		// boardspace's record of a resignation: the player's "resign" move, then the result
		winner := players[g.human.Other()]
		text = strings.TrimSuffix(text, ")\n") + fmt.Sprintf("; P%d[%d resign]\nRE[%s wins]\n)\n", g.human, strings.Count(text, "; P"), strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(winner))
	}
	if c := g.clock; c != nil && c.flagged {
		winner := players[c.flag.Other()]
		text = strings.TrimSuffix(text, ")\n") + fmt.Sprintf("RE[%s wins on time]\n)\n", strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(winner))
	}
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-go-sgf")
	w.Header().Set("Content-Disposition", `attachment; filename="yinsh-`+g.id[:8]+`.sgf"`)
	w.Write([]byte(text))
}
