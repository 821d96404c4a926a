package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
)

// streamEvery is how often a continuous analysis sends the search's state (the first one goes
// after the first chunk of search, about 20 ms in).
const streamEvery = 150 * time.Millisecond

// streamWriteTimeout bounds the writing of one line of a continuous analysis.
const streamWriteTimeout = 10 * time.Second

// analysisStreams holds the continuous analysis of each client address: one at a time, a new one
// ends the one before (the page's next position, or a second tab of the same machine).
type analysisStreams struct {
	mu sync.Mutex
	m  map[string]*analysisStream
}

type analysisStream struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when its handler is done with the pool's slot
}

// open registers a stream of client, ending its earlier one first (and waiting until that one
// gave its search slot back, or ctx ends).
func (ss *analysisStreams) open(ctx context.Context, client string, cancel context.CancelFunc) (*analysisStream, error) {
	st := &analysisStream{cancel: cancel, done: make(chan struct{})}
	for {
		ss.mu.Lock()
		if ss.m == nil {
			ss.m = map[string]*analysisStream{}
		}
		old := ss.m[client]
		if old == nil {
			ss.m[client] = st
			ss.mu.Unlock()
			return st, nil
		}
		ss.mu.Unlock()
		old.cancel()
		select {
		case <-old.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (ss *analysisStreams) close(client string, st *analysisStream) {
	ss.mu.Lock()
	if ss.m[client] == st {
		delete(ss.m, client)
	}
	ss.mu.Unlock()
	close(st.done)
}

// streamLine is one line of a continuous analysis: the analysis so far; the last line has done
// set, and stop says why it ended.
type streamLine struct {
	engine.AnalysisJSON
	Done  bool   `json:"done"`
	Stop  string `json:"stop,omitempty"`  // "budget", "superseded" (the client's next stream), "error"
	Error string `json:"error,omitempty"` // the error that ended it
}

// Why a continuous analysis ended.
const (
	stopBudget     = "budget"
	stopSuperseded = "superseded"
	stopError      = "error"
)

// streamAnalysis answers a continuous analysis: lines of JSON (application/x-ndjson), one about
// every streamEvery while the search runs, until its budget is spent, the client goes (the
// request's context ends), or the client's next stream supersedes it. It holds one of the pool's
// search slots while it runs.
func (s *Server) streamAnalysis(w http.ResponseWriter, r *http.Request, j analysisJob, a *engine.Analyzer, start time.Time) {
	client := clientKey(r)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	st, err := s.anStreams.open(ctx, client, cancel)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "analysis cancelled: %v", err)
		return
	}
	defer s.anStreams.close(client, st)
	release, err := s.pool.acquire(ctx, client)
	if err != nil {
		fail(w, err)
		return
	}
	defer release()
	queued := time.Since(start)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(line streamLine) error {
		// a client that stops reading does not hold the search (and its slot) past this
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) //nolint:errcheck // not every writer has deadlines
		line.ID, line.Player, line.Position, line.QueueMS = j.id, a.Name(), j.state.Text(), engine.Millis(queued)
		line.TotalMS = engine.Millis(time.Since(start))
		if err := enc.Encode(line); err != nil {
			return err
		}
		return rc.Flush()
	}
	var last time.Time
	latest := engine.AnalysisJSON{Side: sideOf(j), Top: []engine.CandidateJSON{}, PV: []string{}} // the last one sent
	j.req.Report = func(res *engine.AnalysisResult) error {
		if !last.IsZero() && time.Since(last) < streamEvery {
			return nil
		}
		last = time.Now()
		latest = engine.AnalysisJSONOf(res)
		return send(streamLine{AnalysisJSON: latest})
	}
	res, err := a.Analyze(ctx, j.req)
	switch {
	case r.Context().Err() != nil: // the client went: nobody to tell
	case err == nil:
		send(streamLine{AnalysisJSON: engine.AnalysisJSONOf(res), Done: true, Stop: stopBudget})
	case errors.Is(err, context.Canceled):
		send(streamLine{AnalysisJSON: latest, Done: true, Stop: stopSuperseded})
	default:
		send(streamLine{AnalysisJSON: latest, Done: true, Stop: stopError, Error: err.Error()})
	}
}

// sideOf is the side to act of j's position, as the answers name it ("w" or "b").
func sideOf(j analysisJob) string { return string("wb"[j.state.CurrentPlayer()]) }
