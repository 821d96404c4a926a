package progress

import (
	"io"
	"os"
	"sync"

	"golang.org/x/term"
)

// A Screen is one terminal that live progress bars and other output share. Everything written to
// it goes through its Terminals, under one mutex: a write first clears the bar line (if a bar is
// showing), then writes, then redraws the bar on the line below what it wrote. So a log record or a
// result line never lands inside a bar's line, and the bar stays on the bottom line.
//
// Conventions: the bar is drawn as "\r" + text + erase-to-end-of-line (ESC [K); clearing it is
// "\r" + ESC [K. While the last write left the cursor inside a line (it did not end in '\n', e.g. a
// prompt), the bar is not drawn, so it never continues someone else's line; it comes back after the
// next write that ends a line.
type Screen struct {
	mu      sync.Mutex
	bars    []*Bar    // the live bars, in start order; the last one is the one drawn
	drawn   bool      // a bar's text is on the bottom line now
	drawnOn *Terminal // where it is drawn
	midLine bool      // the last write did not end its line
}

// NewScreen returns a screen with no bar showing.
func NewScreen() *Screen { return &Screen{} }

// defaultScreen is the screen of terminals that reach New without a Screen of their own (an
// *os.File that is a terminal).
var defaultScreen = NewScreen()

// A Terminal is an io.Writer to one output stream of a Screen (a program's standard output and its
// standard error may be two Terminals of one Screen when both are the same terminal). It is safe
// for concurrent use.
type Terminal struct {
	scr   *Screen
	w     io.Writer
	width func() int // the width in columns, 0 when unknown
}

// Writer returns w as a Terminal of s when w is an *os.File on a terminal, and w itself otherwise
// (a pipe, a file, a buffer), so that output that is not a terminal stays byte for byte as it was.
func (s *Screen) Writer(w io.Writer) io.Writer {
	if t, ok := w.(*Terminal); ok {
		return t
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return w
	}
	return s.Terminal(w, func() int {
		width, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return width
	})
}

// Terminal returns a Terminal of s writing to w, treated as a terminal whatever w is (tests drive a
// fake terminal this way), width giving its width in columns (nil or 0: unknown, bars are not cut).
func (s *Screen) Terminal(w io.Writer, width func() int) *Terminal {
	if width == nil {
		width = func() int { return 0 }
	}
	return &Terminal{scr: s, w: w, width: width}
}

// IsTerminal reports whether w is a terminal: a Terminal, or an *os.File on a terminal.
func IsTerminal(w io.Writer) bool {
	switch v := w.(type) {
	case *Terminal:
		return true
	case *os.File:
		return term.IsTerminal(int(v.Fd()))
	}
	return false
}

// Write writes p above the bar: it clears the bar line, writes p, and redraws the bar if p ended
// its line. A log handler should write one whole record per call.
func (t *Terminal) Write(p []byte) (int, error) {
	s := t.scr
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	n, err := t.w.Write(p)
	if len(p) > 0 {
		s.midLine = p[len(p)-1] != '\n'
	}
	s.drawLocked()
	return n, err
}

// clearLocked erases the bar line, if a bar is drawn, and leaves the cursor at its start.
func (s *Screen) clearLocked() {
	if !s.drawn {
		return
	}
	_, _ = io.WriteString(s.drawnOn.w, "\r\x1b[K")
	s.drawn = false
}

// drawLocked (re)draws the newest live bar on the bottom line, unless the cursor is inside a line.
func (s *Screen) drawLocked() {
	if len(s.bars) == 0 || s.midLine {
		return
	}
	b := s.bars[len(s.bars)-1]
	if s.drawn && s.drawnOn != b.term {
		s.clearLocked()
	}
	_, _ = io.WriteString(b.term.w, "\r"+b.render(b.term.width())+"\x1b[K")
	s.drawn, s.drawnOn = true, b.term
}

// startLocked makes b the drawn bar.
func (s *Screen) startLocked(b *Bar) {
	s.bars = append(s.bars, b)
	s.drawLocked()
}

// finishLocked removes b from the live bars and leaves its final text as a line of its own, above
// the bar that is drawn next (if any).
func (s *Screen) finishLocked(b *Bar) {
	for i, x := range s.bars {
		if x == b {
			s.bars = append(s.bars[:i], s.bars[i+1:]...)
			break
		}
	}
	s.clearLocked()
	if s.midLine {
		_, _ = io.WriteString(b.term.w, "\n")
	}
	_, _ = io.WriteString(b.term.w, b.render(b.term.width())+"\n")
	s.midLine = false
	s.drawLocked()
}

// Close ends the bars still live (work stopped by an error or an interrupt before their Finish),
// each left on its own line, so that what the program writes next starts on a fresh line.
func (s *Screen) Close() {
	s.mu.Lock()
	bars := append([]*Bar(nil), s.bars...)
	s.mu.Unlock()
	for _, b := range bars {
		b.Finish()
	}
}
