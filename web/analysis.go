package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// analyzers holds the server's analyzer (its --player; one per variant when it follows the game's
// variant: reference, level:N) and those of the players a request may name instead: random,
// heuristic and rollout:N (never a file: a client names no path).
type analyzers struct {
	opts Options
	log  *slog.Logger
	mu   sync.Mutex
	m    map[string]*engine.Analyzer
	lru  []string // the request players, least recently used first
}

const maxRequestPlayers = 8

func newAnalyzers(opts Options, log *slog.Logger) *analyzers {
	return &analyzers{opts: opts, log: log, m: map[string]*engine.Analyzer{}}
}

// get returns the analyzer of spec ("" is the server's player) for positions of variant v, building
// it on first use.
func (as *analyzers) get(spec string, v env.Variant) (*engine.Analyzer, error) {
	key := spec
	po := as.opts.Players
	if spec == "" {
		spec = as.opts.Player
		if selfplay.FollowsVariant(spec) && v != po.Variant { // the server's player over v's network
			key, po.Variant = "@"+v.String(), v
		}
	} else if spec != "random" && spec != "heuristic" {
		if !strings.HasPrefix(spec, "rollout:") {
			return nil, errorf(http.StatusBadRequest, "player %q: a request may name random, heuristic or rollout:N (or none: the server's player)", spec)
		}
		if _, err := selfplay.ParseRollout(spec); err != nil {
			return nil, errorf(http.StatusBadRequest, "%s", tidy(err.Error()))
		}
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if a, ok := as.m[key]; ok {
		as.touch(key)
		return a, nil
	}
	// the player's own search settings (PUCT or Gumbel, leaves in flight, rollout mix, move time):
	// an analysis searches as the agent decides
	a, err := engine.NewAnalyzer(engine.AnalyzerOptions{Player: spec, Search: po.Search,
		Variant: po.Variant, Seed: as.opts.Seed, Parallel: as.opts.Searches, Load: po.Load})
	if err != nil {
		return nil, err
	}
	as.m[key] = a
	if key != "" && key[0] != '@' { // a request player, not the server's
		as.lru = append(as.lru, key)
		if len(as.lru) > maxRequestPlayers {
			// in-flight searches of the dropped one keep working: rollout, random and heuristic
			// analyzers hold nothing that Close must stop
			old := as.lru[0]
			as.lru = as.lru[1:]
			as.m[old].Close()
			delete(as.m, old)
		}
	}
	return a, nil
}

func (as *analyzers) touch(key string) {
	for i, k := range as.lru {
		if k == key {
			as.lru = append(append(as.lru[:i:i], as.lru[i+1:]...), key)
			return
		}
	}
}

func (as *analyzers) Close() error {
	as.mu.Lock()
	defer as.mu.Unlock()
	var first error
	for k, a := range as.m {
		if err := a.Close(); err != nil && first == nil {
			first = err
		}
		delete(as.m, k)
	}
	return first
}

type analyzeRequest struct {
	positionRequest
	Sims     *int   `json:"sims"`
	MoveTime *int   `json:"movetime"`
	Top      *int   `json:"top"`
	Player   string `json:"player"`
	ID       any    `json:"id"`
	Stream   bool   `json:"stream"`
}

// analysisJob is a checked analysis request.
type analysisJob struct {
	state  *env.State
	req    engine.AnalysisRequest
	player string
	id     any
}

// parseAnalyze checks a request against the server's bounds. Every search is bounded in time by
// MaxMoveTime, whatever it asks.
func (s *Server) parseAnalyze(req *analyzeRequest) (analysisJob, error) {
	l, err := req.parse(s.opts.Players.Variant)
	if err != nil {
		return analysisJob{}, err
	}
	st := l.final()
	if st.IsTerminal() {
		return analysisJob{}, errorf(http.StatusBadRequest, "the game is over (result %s): nothing to analyse", resultName(st.Outcome()))
	}
	if req.Player == "" { // the server's player: its network plays the variant it was trained for
		if err := s.checkVariant(st.Variant(), "analyse"); err != nil {
			return analysisJob{}, err
		}
	}
	j := analysisJob{state: st, player: req.Player, id: req.ID}
	j.req = engine.AnalysisRequest{State: st, Top: engine.DefaultAnalysisTop, MoveTime: s.opts.MaxMoveTime}
	if req.Stream {
		return s.parseStream(req, j)
	}
	if req.Sims != nil {
		if *req.Sims < 1 || *req.Sims > s.opts.MaxSims {
			return j, errorf(http.StatusBadRequest, "sims %d: want [1, %d] (the server's --max-sims)", *req.Sims, s.opts.MaxSims)
		}
		j.req.Sims = *req.Sims
	}
	if req.MoveTime != nil {
		max := s.opts.MaxMoveTime.Milliseconds()
		if *req.MoveTime < 1 || int64(*req.MoveTime) > max {
			return j, errorf(http.StatusBadRequest, "movetime %d: want milliseconds in [1, %d] (the server's --max-movetime)", *req.MoveTime, max)
		}
		j.req.MoveTime = time.Duration(*req.MoveTime) * time.Millisecond
	}
	if req.Sims == nil && req.MoveTime == nil {
		// the player's own budget: its simulations and its move time, within the server's bounds
		j.req.Sims = min(s.defaultSims(req.Player), s.opts.MaxSims)
		if mt := s.opts.Players.MoveTime; mt > 0 {
			j.req.MoveTime = min(mt, s.opts.MaxMoveTime)
		}
	}
	if req.Top != nil {
		if *req.Top < 0 || *req.Top > maxTop {
			return j, errorf(http.StatusBadRequest, "top %d: want [0, %d]", *req.Top, maxTop)
		}
		j.req.Top = *req.Top
	}
	return j, nil
}

// parseStream checks the budget of a continuous analysis: until the client stops it, or sims
// simulations, or movetime milliseconds, and never past the server's MaxStream.
func (s *Server) parseStream(req *analyzeRequest, j analysisJob) (analysisJob, error) {
	j.req.MoveTime = s.opts.MaxStream
	if req.Sims != nil {
		if *req.Sims < 1 || *req.Sims > selfplay.MaxSims {
			return j, errorf(http.StatusBadRequest, "sims %d: want [1, %d]", *req.Sims, selfplay.MaxSims)
		}
		j.req.Sims = *req.Sims
	}
	if req.MoveTime != nil {
		max := s.opts.MaxStream.Milliseconds()
		if *req.MoveTime < 1 || int64(*req.MoveTime) > max {
			return j, errorf(http.StatusBadRequest, "movetime %d: want milliseconds in [1, %d] (the server's --max-stream)", *req.MoveTime, max)
		}
		j.req.MoveTime = time.Duration(*req.MoveTime) * time.Millisecond
	}
	if req.Top != nil {
		if *req.Top < 0 || *req.Top > maxTop {
			return j, errorf(http.StatusBadRequest, "top %d: want [0, %d]", *req.Top, maxTop)
		}
		j.req.Top = *req.Top
	}
	return j, nil
}

// defaultSims is the simulations of a request that gives none: rollout:N's N, else the server's
// player's (its --sims, or selfplay.MaxSims when --movetime alone bounds it).
func (s *Server) defaultSims(player string) int {
	if player == "" {
		player = s.opts.Player
	}
	if n, err := selfplay.ParseRollout(player); err == nil {
		return n
	}
	if n := s.opts.Players.Simulations(); n > 0 {
		return n
	}
	return engine.DefaultSims
}

func (s *Server) handleAnalyze(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req analyzeRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	j, err := s.parseAnalyze(&req)
	if err != nil {
		fail(w, err)
		return
	}
	a, err := s.an.get(j.player, j.state.Variant())
	if err != nil {
		fail(w, err)
		return
	}
	if req.Stream {
		s.streamAnalysis(w, r, j, a, start)
		return
	}
	release, err := s.pool.acquire(r.Context(), clientKey(r))
	if err != nil {
		fail(w, err)
		return
	}
	queued := time.Since(start)
	res, err := a.Analyze(r.Context(), j.req)
	release()
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			writeError(w, http.StatusServiceUnavailable, "analysis cancelled: %v", err)
			return
		}
		fail(w, err)
		return
	}
	out := engine.AnalysisJSONOf(res)
	out.ID, out.Player, out.Position, out.QueueMS = j.id, a.Name(), j.state.Text(), engine.Millis(queued)
	out.TotalMS = engine.Millis(time.Since(start))
	writeJSON(w, http.StatusOK, out)
}

type replayRequest struct {
	positionRequest
	SGF string `json:"sgf"` // a boardspace SGF record instead of position/moves/tokens
}

type replayAnswer struct {
	Variant string      `json:"variant"`
	Moves   []string    `json:"moves"`
	Plies   []boardView `json:"plies"` // plies[i] is the position before moves[i]; the last one after all
	Result  string      `json:"result"`
}

// handleReplay turns a position and moves (or an SGF record) into the boards of every ply, for the
// page to step through.
func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	var req replayRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		fail(w, err)
		return
	}
	var l *line
	var err error
	if req.SGF != "" {
		if req.Position != "" || len(req.Moves) > 0 || req.Tokens != "" {
			writeError(w, http.StatusBadRequest, "give sgf, or position and moves, not both")
			return
		}
		g, serr := env.ReadSGF(strings.NewReader(req.SGF))
		if serr != nil {
			fail(w, fieldErr("sgf", serr))
			return
		}
		l, err = replayTokens("", tokensOf(g.Actions), g.Variant)
	} else {
		l, err = req.parse(s.opts.Players.Variant)
	}
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, replayOf(l))
}

func replayOf(l *line) replayAnswer {
	out := replayAnswer{Variant: l.start.Variant().String(), Moves: tokensOf(l.acts), Result: resultName(l.final().Outcome())}
	for i := range l.states {
		var last env.Action
		if i > 0 {
			last = l.acts[i-1]
		}
		out.Plies = append(out.Plies, viewOf(&l.states[i], last, i > 0))
	}
	return out
}
