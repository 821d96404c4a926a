// Package web is yinsh serve: a JSON HTTP API (docs/http-api.md) and the browser app embedded in
// the binary that uses it: play against a player on an SVG board, analyse positions, watch the games
// of a run's shards and follow its metrics while it trains. The server makes no request outside
// itself and serves only what is embedded and what lies under its runs directory.
package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/loopback"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// Limits of the server, the defaults of Options.
const (
	DefaultMaxBody     = 64 << 10 // bytes of a request body
	DefaultMaxSims     = 20_000   // simulations of one analysis
	DefaultMaxMoveTime = 10 * time.Second
	DefaultMaxStream   = 60 * time.Second // of one continuous analysis (POST /api/analyze "stream")
	DefaultMaxGames    = 1000             // game sessions kept at once
	DefaultQueue       = 256              // searches waiting for a slot
	DefaultPerClient   = 16               // searches in flight (running or waiting) per client address
	DefaultGameIdle    = 6 * time.Hour
	DefaultPoll        = time.Second
	DefaultBodyTimeout = 10 * time.Second // to read a request's body
	maxStreams         = 64               // server-sent event streams at once
	maxTop             = 200
)

// Options configures a Server.
type Options struct {
	// Player is the agent games are played against and analyses ask by default (a PLAYER spec).
	Player string
	// Offer lists the player specs a new game may choose as its opponent (POST /api/games's
	// "player"); nil: DefaultOffer. Player is always offered (first, when Offer leaves it out).
	// Their players are opened on a game's first need and kept.
	Offer []string
	// Players are the options the agent is built with (Variant is the default variant of new games).
	Players selfplay.PlayerOptions
	// Seed seeds the agents (game k's agent gets Seed+k) and the analyses.
	Seed uint64
	// Runs is the directory whose runs the watch and dashboard pages show ("" for none).
	Runs string
	// Searches is how many searches (analyses and agent decisions) run at once (0: 2).
	Searches int
	// Queue is how many searches may wait for a slot (0: DefaultQueue; -1: none); past it a
	// search is refused with 503.
	Queue int
	// PerClient bounds the searches in flight of one client address (0: DefaultPerClient; -1: no
	// bound); past it a search is refused with 429.
	PerClient int
	// MaxBody, MaxSims, MaxMoveTime and MaxGames bound a request body, an analysis and the game
	// sessions (0: the defaults above).
	MaxBody     int64
	MaxSims     int
	MaxMoveTime time.Duration
	MaxGames    int
	// MaxStream bounds a continuous analysis (POST /api/analyze with "stream": true) in time (0:
	// DefaultMaxStream); its tree's size bounds it too (engine.JSONMaxTreeBytes).
	MaxStream time.Duration
	// GamesDir, when set, keeps every game in a file there (created if need be), so that a
	// restarted server resumes it; SavedGames bounds its files, the least recently changed removed
	// first (0: DefaultSavedGames).
	GamesDir   string
	SavedGames int
	// GameIdle is how long an untouched game is kept (0: DefaultGameIdle).
	GameIdle time.Duration
	// Poll is how often event streams look at a run's files (0: DefaultPoll).
	Poll time.Duration
	// BodyTimeout is how long a request's body may take to arrive (0: DefaultBodyTimeout); past it
	// the request is answered 408.
	BodyTimeout time.Duration
	// LoopbackHosts refuses (403) requests whose Host header is not a loopback name, against DNS
	// rebinding: set it when the server listens on loopback.
	LoopbackHosts bool
	// Logger receives the request log (nil: slog.Default()).
	Logger *slog.Logger
}

// Server is the web board's HTTP handler.
type Server struct {
	opts    Options
	log     *slog.Logger
	mux     *http.ServeMux
	factory selfplay.PlayerFactory // the agent's players for games of the default variant
	// factories are the players of the offered specs other than the default (and of the default
	// spec for the other variant when it follows the game's variant: reference, level:N), opened
	// on a game's first need; vmu guards it and closers
	factories map[factoryKey]selfplay.PlayerFactory
	vmu       sync.Mutex
	closers   []func() error
	agent     string    // the agent's name
	offer     []offered // the opponents a new game may choose, opts.Player first
	pool      *pool
	anStreams analysisStreams // the continuous analyses, one per client
	games     *gameStore
	files     *gameFiles // the games on disk (nil: none)
	an        *analyzers
	runs      *runsDir
	streams   chan struct{}
	now       func() time.Time // the games' clocks read it (tests set their own)
}

// New builds the server: the agent's player and its analyzer are built now, so a bad spec or a
// checkpoint that does not load is an error here.
func New(opts Options) (*Server, error) {
	if opts.Player == "" {
		opts.Player = engine.DefaultPlayer(opts.Players.Variant)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&opts.Searches, 2)
	def(&opts.Queue, DefaultQueue)
	def(&opts.PerClient, DefaultPerClient)
	def(&opts.MaxSims, DefaultMaxSims)
	def(&opts.MaxGames, DefaultMaxGames)
	def(&opts.SavedGames, DefaultSavedGames)
	if opts.MaxBody == 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.MaxMoveTime == 0 {
		opts.MaxMoveTime = DefaultMaxMoveTime
	}
	if opts.MaxStream == 0 {
		opts.MaxStream = DefaultMaxStream
	}
	if opts.GameIdle == 0 {
		opts.GameIdle = DefaultGameIdle
	}
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	if opts.BodyTimeout == 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.Searches < 1 || opts.Queue < -1 || opts.MaxSims < 1 || opts.MaxGames < 1 || opts.MaxBody < 1 || opts.SavedGames < 1 {
		return nil, fmt.Errorf("web: searches %d, queue %d, max sims %d, max games %d, max body %d: want positive values",
			opts.Searches, opts.Queue, opts.MaxSims, opts.MaxGames, opts.MaxBody)
	}
	s := &Server{opts: opts, log: opts.Logger, streams: make(chan struct{}, maxStreams), now: time.Now}
	if s.log == nil {
		s.log = slog.Default()
	}
	offer, err := makeOffer(opts.Player, opts.Offer, opts.Players)
	if err != nil {
		return nil, err
	}
	s.offer = offer
	po := opts.Players
	if po.Parallel == 0 {
		po.Parallel = 1
	}
	factory, closer, err := selfplay.OpenPlayer(opts.Player, po)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, closer.Close)
	s.factory = factory
	p, err := factory(opts.Seed)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.agent = p.Name()
	s.an = newAnalyzers(opts, s.log)
	if _, err := s.an.get("", opts.Players.Variant); err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, s.an.Close)
	s.pool = newPool(opts.Searches, max(opts.Queue, 0), opts.PerClient)
	s.games = newGameStore(opts.MaxGames, opts.GameIdle)
	if opts.GamesDir != "" {
		if err := os.MkdirAll(opts.GamesDir, 0o755); err != nil {
			s.Close()
			return nil, fmt.Errorf("web: games directory: %w", err)
		}
		s.files = &gameFiles{dir: opts.GamesDir, max: opts.SavedGames}
	}
	if opts.Runs != "" {
		if s.runs, err = openRuns(opts.Runs); err != nil {
			s.Close()
			return nil, err
		}
		s.closers = append(s.closers, s.runs.Close)
	}
	s.routes()
	return s, nil
}

// factoryKey names the players of one offered spec for games of one variant (the server's
// variant for the specs that do not follow the game's).
type factoryKey struct {
	spec    string
	variant env.Variant
}

// factoryFor returns the players of spec (an offered one) for games of variant v (checked by
// checkVariant): the server's agent for its own variant, or the players of spec, over v's network
// for the specs that follow the game's variant (reference, level:N), opened on first use and kept.
func (s *Server) factoryFor(spec string, v env.Variant) (selfplay.PlayerFactory, error) {
	if !selfplay.FollowsVariant(spec) {
		v = s.opts.Players.Variant
	}
	if spec == s.opts.Player && v == s.opts.Players.Variant {
		return s.factory, nil
	}
	s.vmu.Lock()
	defer s.vmu.Unlock()
	key := factoryKey{spec, v}
	if f, ok := s.factories[key]; ok {
		return f, nil
	}
	if s.closers == nil {
		return nil, errorf(http.StatusServiceUnavailable, "the server is shutting down")
	}
	po := s.opts.Players
	po.Variant = v
	if po.Parallel == 0 {
		po.Parallel = 1
	}
	f, closer, err := selfplay.OpenPlayer(spec, po)
	if err != nil {
		return nil, err
	}
	if s.factories == nil {
		s.factories = map[factoryKey]selfplay.PlayerFactory{}
	}
	s.factories[key] = f
	s.closers = append(s.closers, closer.Close)
	return f, nil
}

// Close releases the players (a network's batcher, external engines' processes).
func (s *Server) Close() error {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	var first error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	s.closers = nil
	return first
}

func (s *Server) routes() {
	m := http.NewServeMux()
	s.mux = m
	type route struct {
		method, path string
		h            http.HandlerFunc
	}
	routes := []route{
		{"GET", "/api/info", s.handleInfo},
		{"POST", "/api/games", s.handleCreateGame},
		{"GET", "/api/games/{id}", s.handleGetGame},
		{"DELETE", "/api/games/{id}", s.handleDeleteGame},
		{"POST", "/api/games/{id}/play", s.handlePlay},
		{"POST", "/api/games/{id}/agent", s.handleAgent},
		{"POST", "/api/games/{id}/undo", s.handleUndo},
		{"POST", "/api/games/{id}/resign", s.handleResign},
		{"GET", "/api/games/{id}/legal", s.handleLegal},
		{"GET", "/api/games/{id}/tokens", s.handleTokens},
		{"GET", "/api/games/{id}/sgf", s.handleSGF},
		{"POST", "/api/analyze", s.handleAnalyze},
		{"POST", "/api/replay", s.handleReplay},
		{"GET", "/api/runs", s.handleRuns},
		{"GET", "/api/runs/{run}/metrics", s.handleMetrics},
		{"GET", "/api/runs/{run}/games", s.handleRunGames},
		{"GET", "/api/runs/{run}/games/{shard}/{index}", s.handleRunGame},
		{"GET", "/api/runs/{run}/sgf/{file}", s.handleRunSGF},
		{"GET", "/api/runs/{run}/events", s.handleEvents},
	}
	methods := map[string][]string{}
	for _, r := range routes {
		m.HandleFunc(r.method+" "+r.path, r.h)
		methods[r.path] = append(methods[r.path], r.method)
	}
	// the same paths with another method: 405 as JSON, with Allow
	for path, ms := range methods {
		allow := strings.Join(append(ms, map[bool]string{true: "HEAD", false: ""}[contains(ms, "GET")]), ", ")
		allow = strings.TrimSuffix(allow, ", ")
		m.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, http.StatusMethodNotAllowed, "method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow)
		})
	}
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no API endpoint %s (see docs/http-api.md)", r.URL.Path)
	})
	info, err := json.Marshal(s.info())
	if err != nil {
		info = []byte("null") // the page then asks /api/info itself
	}
	m.Handle("/", staticHandler(info))
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// ServeHTTP logs the request and hands it to the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			if !rw.wrote {
				writeError(rw, http.StatusInternalServerError, "internal error")
			}
		}
		lvl := slog.LevelDebug
		if rw.status >= 500 {
			lvl = slog.LevelWarn
		}
		s.log.Log(r.Context(), lvl, "request", "method", r.Method, "path", r.URL.Path, "status", rw.status,
			"ms", float64(time.Since(start).Microseconds())/1000, "remote", r.RemoteAddr)
	}()
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", csp)
	if s.opts.LoopbackHosts && !loopback.Host(r.Host) {
		// a page of another site that reached us through DNS rebinding names its own host
		writeError(rw, http.StatusForbidden, "host %q: this server answers only to loopback names (localhost, 127.0.0.1, [::1])", r.Host)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(o, r.Host) {
		writeError(rw, http.StatusForbidden, "origin %q: requests that change state must come from this server's own pages", o)
		return
	}
	s.mux.ServeHTTP(rw, r)
}

// sameOrigin reports whether an Origin header names the host the request was sent to.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == host
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Flush lets event streams through the logging wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// apiError is the body of every error answer.
type apiError struct {
	Error  string `json:"error"`
	Status int    `json:"status"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "cannot encode the answer: %v", err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte{'\n'})
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	b, _ := json.Marshal(apiError{Error: fmt.Sprintf(format, args...), Status: status})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte{'\n'})
}

// httpError is an error with its status code.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// fail writes err: its status if it is an *httpError, else 500 (never naming a connection's
// addresses).
func fail(w http.ResponseWriter, err error) {
	var he *httpError
	if errors.As(err, &he) {
		writeError(w, he.status, "%s", he.msg)
		return
	}
	if errors.As(err, new(*net.OpError)) {
		writeError(w, http.StatusInternalServerError, "internal error: a connection failed")
		return
	}
	writeError(w, http.StatusInternalServerError, "%s", tidy(err.Error()))
}

// tidy drops the package prefixes of the errors of env and others.
func tidy(msg string) string {
	for _, p := range []string{"env: ", "engine: ", "selfplay: ", "datasets: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// decodeBody reads the JSON request body into v: at most MaxBody bytes (413 past it, and at once
// for a body declared larger), within BodyTimeout (408 past it), one object, no unknown fields
// (400). An empty body is the empty object. A body that ends before its declared length, or does
// not read, is a 400; no answer names the connection's addresses.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errorf(http.StatusUnsupportedMediaType, "content type %q: send application/json", ct)
	}
	if r.ContentLength > s.opts.MaxBody {
		// refused unread: the connection is closed after the answer rather than drained
		w.Header().Set("Connection", "close")
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes: larger than %d bytes", r.ContentLength, s.opts.MaxBody)
	}
	if r.ContentLength != 0 { // a body to read (-1: of unknown length)
		// a body trickled in slowly holds no handler for long; the deadline ends with the body (one
		// left on the connection would cancel the request's context mid-search)
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout))
		defer rc.SetReadDeadline(time.Time{})
	}
	body := &countingReader{r: http.MaxBytesReader(w, r.Body, s.opts.MaxBody)}
	err := decodeJSON(body, v)
	var he *httpError
	var mbe *http.MaxBytesError
	var ne net.Error
	switch {
	case err == nil || errors.As(err, &he):
		return err
	case errors.As(err, &mbe):
		return errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", s.opts.MaxBody)
	}
	w.Header().Set("Connection", "close") // the connection's next bytes are no request
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return errorf(http.StatusRequestTimeout, "request body not received within %v (%d bytes came)", s.opts.BodyTimeout, body.n)
	case errors.Is(err, io.ErrUnexpectedEOF) && r.ContentLength > 0:
		return errorf(http.StatusBadRequest, "request body ends after %d of its %d bytes", body.n, r.ContentLength)
	case errors.As(err, new(*net.OpError)) || errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "cannot read the request body: the connection failed after %d bytes", body.n)
	}
	return errorf(http.StatusBadRequest, "cannot read the request body: %s", strings.TrimPrefix(err.Error(), "http: "))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// clientKey is the address a client's searches are counted under.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

type infoAnswer struct {
	Player      string    `json:"player"`
	Variant     string    `json:"variant"`
	Sims        int       `json:"sims"`
	MoveTimeMS  int64     `json:"movetime_ms"`
	Searches    int       `json:"searches"`
	MaxSims     int       `json:"max_sims"`
	MaxMoveTime int64     `json:"max_movetime_ms"`
	MaxBody     int64     `json:"max_body"`
	Runs        bool      `json:"runs"`
	Players     []string  `json:"analysis_players"`
	Opponents   []offered `json:"opponents"`
	Version     string    `json:"version"`
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.info())
}

// info is the answer of /api/info, which the page also carries inlined.
func (s *Server) info() infoAnswer {
	return infoAnswer{
		Player: s.agent, Variant: s.opts.Players.Variant.String(), Sims: s.opts.Players.Simulations(),
		MoveTimeMS: s.opts.Players.MoveTime.Milliseconds(), Searches: s.opts.Searches, MaxSims: s.opts.MaxSims,
		MaxMoveTime: s.opts.MaxMoveTime.Milliseconds(), MaxBody: s.opts.MaxBody, Runs: s.runs != nil,
		Players: []string{"", "random", "heuristic", "rollout:N"}, Opponents: s.offer, Version: engine.Version,
	}
}

// parseVariant reads an optional variant name (def when empty).
func parseVariant(name string, def env.Variant) (env.Variant, error) {
	if name == "" {
		return def, nil
	}
	v, err := env.ParseVariant(strings.ToLower(name))
	if err != nil {
		return def, errorf(http.StatusBadRequest, "variant %q: want standard or blitz", name)
	}
	return v, nil
}

// ListenAndServe serves s on addr until ctx is done, then shuts down (requests in flight get a few
// seconds). ready, if not nil, is called with the listening address.
func ListenAndServe(ctx context.Context, addr string, h http.Handler, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// requests' contexts end with ctx: searches in flight and event streams stop at shutdown
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	return nil
}
