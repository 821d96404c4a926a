package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/yinsh-zero/yinsh/selfplay"
)

// recordWriter streams an arena's games into a record file (selfplay's record lines), one line per
// finished game, synced after each so an interrupted match keeps the games it played.
type recordWriter struct {
	f       *os.File
	opts    *ArenaOptions
	closed  bool
	lastErr error
}

// createRecord creates the record file (refusing to overwrite one without force) and writes its
// header.
func createRecord(path string, force bool, a, b string, opts *ArenaOptions) (*recordWriter, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%s already exists (pass --force to overwrite it)", path)
	}
	if err != nil {
		return nil, err
	}
	w := &recordWriter{f: f, opts: opts}
	src := fmt.Sprintf("%d random ring placements", opts.OpeningPlies)
	if opts.Openings != "" {
		src = opts.Openings
	}
	_, err = fmt.Fprintf(f, "%s: %s vs %s, variant %s, seed %d, openings %s, %s\n", selfplay.RecordHeader, a, b, opts.Variant, opts.Seed, src, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *recordWriter) write(g selfplay.GameRecord, a, b string) error {
	// the players' names as the match reports them (with a time control's suffix)
	g.White, g.Black = a, b
	if !g.AWhite {
		g.White, g.Black = b, a
	}
	if _, err := fmt.Fprintln(w.f, g.Line(w.opts.Variant)); err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	return nil
}

// Close closes the file (once; later calls return the first result).
func (w *recordWriter) Close() error {
	if !w.closed {
		w.closed = true
		w.lastErr = w.f.Close()
	}
	return w.lastErr
}
