// Package progress reports the progress of long work: a live progress bar when the output is a
// terminal, and plain periodic lines otherwise (logs, CI, pipes).
//
// On a terminal the bar shares its line with nothing: other output to the same terminal goes
// through a Terminal of the bar's Screen, which clears the bar, writes, and redraws the bar below
// (see Screen). A program wraps its standard streams once (Screen.Writer) and hands the wrappers to
// everything that writes, bars and log handlers alike.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Bar counts work done out of a total and shows a one-line status. It is safe for concurrent use.
type Bar struct {
	mu       sync.Mutex // guards a plain bar; a live bar is guarded by its screen's mutex
	w        io.Writer
	term     *Terminal // non-nil for a live bar
	desc     string
	total    int
	done     int
	status   string
	every    time.Duration
	last     time.Time
	start    time.Time
	finished bool
	throttle time.Duration // a live bar is redrawn at most this often (and when done reaches total)
}

// New starts a bar of total units written to w. When w is a terminal (a Terminal, or an *os.File
// on a terminal) it is a live progress bar; otherwise a line "desc: done/total (pct) status
// [elapsed]" is printed at most every interval (and at the end).
func New(w io.Writer, total int, desc string, interval time.Duration) *Bar {
	b := &Bar{w: w, desc: desc, total: total, every: interval, start: time.Now(), throttle: 100 * time.Millisecond}
	if f, ok := w.(*os.File); ok {
		w = defaultScreen.Writer(f)
	}
	if t, ok := w.(*Terminal); ok {
		b.term = t
		t.scr.mu.Lock()
		t.scr.startLocked(b)
		b.last = time.Now()
		t.scr.mu.Unlock()
	}
	return b
}

// lock returns the mutex that guards b.
func (b *Bar) lock() *sync.Mutex {
	if b.term != nil {
		return &b.term.scr.mu
	}
	return &b.mu
}

// Add records n more units done, with a status text (e.g. "positions/s 812, batch 31.2").
func (b *Bar) Add(n int, status string) {
	if b == nil {
		return
	}
	mu := b.lock()
	mu.Lock()
	defer mu.Unlock()
	if b.finished {
		return
	}
	b.done += n
	b.status = status
	now := time.Now()
	if b.term != nil {
		if now.Sub(b.last) >= b.throttle || b.done >= b.total {
			b.last = now
			b.term.scr.drawLocked()
		}
		return
	}
	if now.Sub(b.last) >= b.every || b.done >= b.total {
		b.last = now
		b.line()
	}
}

func (b *Bar) line() {
	pct := 100.0
	if b.total > 0 {
		pct = 100 * float64(b.done) / float64(b.total)
	}
	fmt.Fprintf(b.w, "%s: %d/%d (%.0f%%) %s [%s]\n", b.desc, b.done, b.total, pct, b.status, time.Since(b.start).Round(time.Second))
}

// barCells is the width of the drawn bar between its '|'s.
const barCells = 20

// render returns a live bar's text, "desc status  36% |███████             | (36/100) [8s:14s]"
// (elapsed and estimated remaining time), cut to fit in width-1 columns when width > 0: the
// description and status are shortened first.
func (b *Bar) render(width int) string {
	frac := 1.0
	if b.total > 0 {
		frac = min(1, float64(b.done)/float64(b.total))
	}
	fill := int(frac * barCells)
	elapsed := time.Since(b.start)
	left := "?"
	if b.done > 0 && b.done <= b.total {
		left = (time.Duration(float64(elapsed) * float64(b.total-b.done) / float64(b.done))).Round(time.Second).String()
	}
	suffix := fmt.Sprintf(" %3.0f%% |%s%s| (%d/%d) [%s:%s]", 100*frac, strings.Repeat("█", fill), strings.Repeat(" ", barCells-fill),
		b.done, b.total, elapsed.Round(time.Second), left)
	prefix := b.desc
	if b.status != "" {
		prefix += " " + b.status
	}
	if width <= 0 {
		return prefix + suffix
	}
	room := width - 1 - utf8.RuneCountInString(suffix)
	if room < 0 {
		return cut(prefix+suffix, width-1)
	}
	return cut(prefix, room) + suffix
}

// cut returns s shortened to at most n runes.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Finish ends the bar: a live bar is left on its own line with the count it reached (not filled up
// to the total); a plain bar prints its final line if not already printed.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	mu := b.lock()
	mu.Lock()
	defer mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.term != nil {
		b.term.scr.finishLocked(b)
		return
	}
	if b.done < b.total || b.last.IsZero() {
		b.line()
	}
}
