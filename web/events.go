package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"
)

// handleEvents streams a run's progress as server-sent events while the client listens: a
// "metrics" event with the metrics lines added since the last one (all of them first), and a
// "games" event with the number of games recorded whenever it changes (games in progress in a shard
// being written included). A comment line every 15 s keeps the connection open.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	dir, err := s.run(r)
	if err != nil {
		fail(w, err)
		return
	}
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		writeError(w, http.StatusServiceUnavailable, "%d event streams open, the most this server serves", maxStreams)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming unsupported")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\n\n")
	fl.Flush()

	metrics := filepath.Join(dir, "metrics.jsonl")
	var offset int64
	lastGames := -1
	send := func(event string, v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b); err != nil {
			return false
		}
		fl.Flush()
		return true
	}
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	lastWrite := time.Now()
	for first := true; ; first = false {
		lines, next, reset, err := s.runs.readMetrics(r.Context(), metrics, offset)
		if err != nil {
			// not read (a link out of the runs directory, not a regular file, a read cut short):
			// no lines this time
			lines, next, reset = nil, offset, false
		}
		if len(lines) > 0 || first || reset {
			if lines == nil {
				lines = []json.RawMessage{}
			}
			if !send("metrics", map[string]any{"lines": lines, "reset": reset}) {
				return
			}
			offset = next
			lastWrite = time.Now()
		}
		games, _ := s.runGames(r.Context(), dir)
		if len(games) != lastGames {
			lastGames = len(games)
			var latest *gameSummary
			if len(games) > 0 {
				latest = &games[len(games)-1]
			}
			if !send("games", map[string]any{"count": len(games), "latest": latest}) {
				return
			}
			lastWrite = time.Now()
		}
		if time.Since(lastWrite) > 15*time.Second {
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
			lastWrite = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}
