package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// The JSON analysis mode (RunJSON), after KataGo's analysis engine: one request per input line, one
// answer per output line, many requests searched at once, answers in the order they finish.
//
// Request (a JSON object on one line; only id is required):
//
//	{"id": 7, "moves": ["e5", "f6"], "position": "TEXT", "variant": "blitz", "sims": 400, "movetime": 500, "top": 5}
//
//	id        any JSON value but null, echoed in the answer
//	position  a position text to start from (default: the empty board)
//	moves     action tokens played from there, each for whoever is to act
//	variant   "standard" or "blitz" (default: JSONOptions.Variant)
//	sims      simulations of the search; movetime: milliseconds of search; with both, the first
//	          reached ends it; with neither, the player's own budget (JSONOptions.Search's Sims and
//	          MoveTime, rollout:N's N)
//	top       how many candidates to list (default 10)
//
// Answer of a searching player (rollout:N, a checkpoint):
//
//	{"id":7,"side":"w","best":"e5-j5","visits":412,"sims":400,"wdl":[0.48,0.07,0.45],
//	 "top":[{"action":"e5-j5","prior":0.0238,"visits":51,"q":0.216},...],"pv":["e5-j5","f6-f4"],"time_ms":105.2}
//
// visits counts the root's visits, sims the simulations of this search; q is the mean value for side
// in [-1, 1] (null for an unvisited candidate). Players that do not search (random, heuristic,
// engine:"CMD") answer side, best and time_ms, and whatever value and candidates they report. A
// request that cannot be answered gets {"id":ID,"error":"MESSAGE"}; a line that is not a JSON object
// with an id gets {"id":null,"error":"line N: ..."}.

// JSONOptions configures RunJSON.
type JSONOptions struct {
	// Player is the player spec (selfplay.ParsePlayer's): rollout:N and checkpoints are searched
	// here, with statistics; other players answer through their Decide.
	Player string
	// Search is the player's search settings (see AnalyzerOptions.Search): a request that gives no
	// budget gets the player's own (Sims, 0: DefaultSims; MoveTime).
	selfplay.Search
	// Variant is the variant of requests that name none.
	Variant env.Variant
	// AnyVariant lets a network search requests of the other variant than it was trained for
	// (else they get an error answer).
	AnyVariant bool
	// Seed seeds the searches; worker k uses Seed+k.
	Seed uint64
	// Parallel is the number of requests searched at once (0: DefaultJSONParallel). A checkpoint's
	// trees share one network batcher, so their leaves are evaluated together.
	Parallel int
	// Load loads a checkpoint player's network: the backend (required for checkpoints).
	Load func(path string) (model.Net, error)
}

// testHookJSONSearch, when set (by tests, before RunJSON starts), is called by a worker as it starts
// a search.
var testHookJSONSearch func()

// DefaultJSONParallel is the number of requests RunJSON searches at once when JSONOptions.Parallel
// is 0.
const DefaultJSONParallel = 8

// JSONMaxTreeBytes bounds the tree of one request: past it the search stops by itself.
const JSONMaxTreeBytes = 256 << 20

// jsonKeepTreeBytes is the largest tree a worker keeps for its next request (a larger one is
// dropped, its memory freed, and a new one made).
const jsonKeepTreeBytes = 64 << 20

// maxJSONLine bounds a request line (a longer one is answered with an error and skipped).
const maxJSONLine = 1 << 20

type jsonRequest struct {
	ID       json.RawMessage `json:"id"`
	Moves    []string        `json:"moves"`
	Position *string         `json:"position"`
	Variant  *string         `json:"variant"`
	Sims     *int            `json:"sims"`
	MoveTime *int            `json:"movetime"`
	Top      *int            `json:"top"`
}

type jsonError struct {
	ID    json.RawMessage `json:"id"`
	Error string          `json:"error"`
}

// jsonJob is a parsed request.
type jsonJob struct {
	id    json.RawMessage
	state *env.State
	b     budget
	top   int
}

// RunJSON reads JSON analysis requests from r, one a line, and writes one JSON answer per request to
// w, a line each, as soon as it is ready (so out of order); see the format above. Up to
// opts.Parallel requests are searched at once. Bad input (a line that is not JSON, an unknown field,
// an illegal move) gets an error answer and never stops the loop. RunJSON returns nil once the input
// has ended and every request is answered, the error that building the player gives, a read or
// write error, or ctx's error once ctx is done (requests in flight then stop within a chunk of
// search, unanswered). It does not close r; a read in progress when ctx ends finishes in the
// background.
func RunJSON(ctx context.Context, r io.Reader, w io.Writer, opts JSONOptions) error {
	if opts.Sims == 0 {
		opts.Sims = DefaultSims
	}
	if opts.Sims < 0 || opts.Parallel < 0 {
		return fmt.Errorf("engine: json: sims %d and parallel %d, want 0 or more", opts.Sims, opts.Parallel)
	}
	if opts.Parallel == 0 {
		opts.Parallel = DefaultJSONParallel
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var factory selfplay.PlayerFactory
	srch, err := openSearcher(opts.Player, opts.Search, opts.Parallel, checkpointLoader(opts.Load, opts.Variant), true)
	if errors.Is(err, errNotSearching) {
		var closer io.Closer
		factory, closer, err = selfplay.OpenPlayer(opts.Player, selfplay.PlayerOptions{Search: opts.Search, Variant: opts.Variant,
			Parallel: opts.Parallel, Load: opts.Load})
		if err != nil {
			return err
		}
		defer closer.Close()
	} else if err != nil {
		return err
	} else {
		defer srch.Close()
	}

	netV, fixed := selfplay.TrainedVariant(opts.Player, opts.Variant)
	fixed = fixed && !opts.AnyVariant
	out := &jsonWriter{w: bufio.NewWriter(w)}
	jobs := make(chan jsonJob)
	var wg sync.WaitGroup
	for k := range opts.Parallel {
		wk := &jsonWorker{out: out, ctx: ctx, srch: srch, seed: opts.Seed + uint64(k)}
		if srch == nil {
			p, err := factory(opts.Seed + uint64(k))
			if err != nil {
				cancel()
				close(jobs)
				wg.Wait()
				return err
			}
			wk.player = p
		}
		wg.Go(func() {
			for j := range jobs {
				if err := wk.answer(j); err != nil {
					out.fail(err)
					cancel()
				}
			}
		})
	}

	lines := make(chan jsonLine)
	go readJSONLines(ctx, r, lines)
	var rerr error
	n := 0
read:
	for {
		var l jsonLine
		select {
		case <-ctx.Done():
			break read
		case l = <-lines:
		}
		if l.err != nil && l.err != io.EOF {
			rerr = l.err
			break
		}
		n++
		if l.tooLong {
			out.write(jsonError{ID: nullID, Error: fmt.Sprintf("line %d: longer than %d bytes", n, maxJSONLine-1)})
		} else if j, answer, ok := parseJSONRequest(l.line, n, opts.Variant); answer != nil {
			out.write(*answer)
		} else if ok && fixed && j.state.Variant() != netV {
			out.write(jsonError{ID: j.id, Error: fmt.Sprintf("variant %s: the player's network was trained for %s games (start the analyser with --variant %s for the %s reference network, or a %s checkpoint)",
				j.state.Variant(), netV, j.state.Variant(), j.state.Variant(), j.state.Variant())})
		} else if ok {
			select {
			case jobs <- j:
			case <-ctx.Done():
				break read
			}
		}
		if l.err == io.EOF {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err := out.err(); err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	return context.Cause(ctx)
}

var nullID = json.RawMessage("null")

// jsonLine is one input line (a copy) or the read's end.
type jsonLine struct {
	line    []byte
	tooLong bool
	err     error
}

// readJSONLines sends r's lines until the end of the input, a read error or ctx's end.
func readJSONLines(ctx context.Context, r io.Reader, lines chan<- jsonLine) {
	br := bufio.NewReaderSize(r, maxJSONLine)
	for {
		line, tooLong, err := protocol.ReadLine(br)
		l := jsonLine{line: bytes.Clone(line), tooLong: tooLong, err: err}
		select {
		case lines <- l:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// parseJSONRequest parses line n. ok is false for blank lines (no answer); answer is not nil when the
// request is answered at once with an error.
func parseJSONRequest(line []byte, n int, defVariant env.Variant) (j jsonJob, answer *jsonError, ok bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return j, nil, false
	}
	fail := func(id json.RawMessage, format string, args ...any) (jsonJob, *jsonError, bool) {
		return j, &jsonError{ID: id, Error: fmt.Sprintf(format, args...)}, true
	}
	// the id first, leniently, so that errors in the other fields can name it
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return fail(nullID, "line %d: bad JSON: %v", n, err)
	}
	if line[0] != '{' {
		kind := map[byte]string{'[': "an array", '"': "a string", 't': "true", 'f': "false", 'n': "null"}[line[0]]
		if kind == "" {
			kind = "a number"
		}
		return fail(nullID, "line %d: want a JSON object (a request), got %s", n, kind)
	}
	var idOnly struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &idOnly); err != nil {
		return fail(nullID, "line %d: %v", n, err)
	}
	id := idOnly.ID
	if len(id) == 0 || string(id) == "null" {
		return fail(nullID, "line %d: the request has no id", n)
	}
	var req jsonRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return fail(id, "bad request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	v := defVariant
	if req.Variant != nil {
		var err error
		if v, err = env.ParseVariant(strings.ToLower(*req.Variant)); err != nil {
			return fail(id, "variant %q: want standard or blitz", *req.Variant)
		}
	}
	s := env.NewState(v)
	if req.Position != nil {
		var err error
		if s, err = env.ParsePosition(*req.Position, v); err != nil {
			return fail(id, "%s", strings.ReplaceAll(err.Error(), "env: ", ""))
		}
	}
	for i, tok := range req.Moves {
		a, err := env.ParseAction(tok)
		if err == nil {
			err = s.ApplyAction(a)
		}
		if err != nil {
			return fail(id, "moves[%d] %q: %s", i, tok, strings.ReplaceAll(err.Error(), "env: ", ""))
		}
	}
	if s.IsTerminal() {
		return fail(id, "the game is over (result %s)", s.Outcome())
	}
	j = jsonJob{id: id, state: s, top: DefaultAnalysisTop}
	if req.Sims != nil {
		if *req.Sims < 1 || *req.Sims > selfplay.MaxSims {
			return fail(id, "sims %d: want [1, %d]", *req.Sims, selfplay.MaxSims)
		}
		j.b.Sims = *req.Sims
	}
	if req.MoveTime != nil {
		if *req.MoveTime < 1 || *req.MoveTime > 3_600_000 {
			return fail(id, "movetime %d: want milliseconds in [1, 3600000]", *req.MoveTime)
		}
		j.b.MoveTime = time.Duration(*req.MoveTime) * time.Millisecond
	}
	if req.Top != nil {
		if *req.Top < 0 || *req.Top > maxAnalysisTop {
			return fail(id, "top %d: want [0, %d]", *req.Top, maxAnalysisTop)
		}
		j.top = *req.Top
	}
	return j, nil, true
}

// jsonWorker answers requests one at a time with its own tree (searching players) or player.
type jsonWorker struct {
	out    *jsonWriter
	ctx    context.Context
	srch   *searcher
	player selfplay.Player
	seed   uint64
	tree   *mcts.Tree
	rng    *rand.Rand // the tree's searches'
}

// answer searches one request and writes its answer; it returns only write errors.
func (wk *jsonWorker) answer(j jsonJob) error {
	start := time.Now()
	side := sideName(j.state.CurrentPlayer())
	if wk.srch == nil {
		wk.player.NewGame()
		d, err := wk.player.Decide(j.state)
		if err == nil && !j.state.IsLegal(d.Action) {
			err = fmt.Errorf("player %s chose the illegal action %s", wk.player.Name(), d.Action)
		}
		if err != nil {
			return wk.out.write(jsonError{ID: j.id, Error: err.Error()})
		}
		a := AnalysisJSON{ID: j.id, Side: side, Best: d.Action.String(), Top: CandidatesOf(d.Top, j.top), PV: Tokens(d.PV)}
		if d.HasValue {
			a.WDL = RoundWDL(d.WDL)
		}
		for _, st := range d.Top {
			a.Visits += st.Visits
		}
		a.TimeMS = Millis(time.Since(start))
		return wk.out.write(a)
	}
	if wk.tree == nil {
		t, rng, err := wk.srch.newTree(wk.seed)
		if err != nil {
			return wk.out.write(jsonError{ID: j.id, Error: err.Error()})
		}
		wk.tree, wk.rng = t, rng
	}
	b := j.b
	if !b.bounded() {
		b = wk.srch.ownBudget()
	}
	wk.tree.Reset(j.state)
	if testHookJSONSearch != nil {
		testHookJSONSearch()
	}
	res, sims, err := searchMore(wk.tree, wk.rng, wk.srch.cfg, b, JSONMaxTreeBytes, func() bool { return wk.ctx.Err() != nil }, nil)
	if wk.ctx.Err() != nil {
		return nil // stopped: RunJSON returns ctx's error
	}
	if err != nil {
		wk.tree = nil // a failed search may leave the tree inconsistent
		return wk.out.write(jsonError{ID: j.id, Error: err.Error()})
	}
	if wk.tree.Bytes() > jsonKeepTreeBytes {
		wk.tree = nil // do not hold a large tree's memory between requests
	}
	d := selfplay.DecisionFromResult(res, j.top)
	a := AnalysisJSON{ID: j.id, Side: side, Best: res.Action.String(), Searched: true, Visits: res.Visits, Sims: sims,
		WDL: RoundWDL(d.WDL), Top: CandidatesOf(d.Top, j.top), PV: Tokens(d.PV), TimeMS: Millis(time.Since(start))}
	return wk.out.write(a)
}

// jsonWriter writes answers one line each, from many goroutines; the first write error sticks.
type jsonWriter struct {
	mu   sync.Mutex
	w    *bufio.Writer
	werr error
}

func (o *jsonWriter) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil { // a NaN among the numbers: say so rather than lose the answer
		id := nullID
		if a, ok := v.(AnalysisJSON); ok {
			if raw, ok := a.ID.(json.RawMessage); ok {
				id = raw
			}
		}
		b, _ = json.Marshal(jsonError{ID: id, Error: "engine: cannot encode the answer: " + err.Error()})
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.werr != nil {
		return o.werr
	}
	o.w.Write(b)
	o.w.WriteByte('\n')
	o.werr = o.w.Flush()
	return o.werr
}

func (o *jsonWriter) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.werr == nil {
		o.werr = err
	}
}

func (o *jsonWriter) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.werr
}
