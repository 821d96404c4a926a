// Package progress reports the progress of long work: a progress bar (schollz/progressbar) when the
// output is a terminal, and plain periodic lines otherwise (logs, CI, pipes).
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar counts work done out of a total and shows a one-line status. It is safe for concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	desc     string
	total    int
	done     int
	status   string
	bar      *progressbar.ProgressBar
	every    time.Duration
	last     time.Time
	start    time.Time
	finished bool
}

// New starts a bar of total units written to w. When w is a terminal it is a live progress bar;
// otherwise a line "desc: done/total (pct) status" is printed at most every interval (and at the end).
func New(w io.Writer, total int, desc string, interval time.Duration) *Bar {
	b := &Bar{w: w, desc: desc, total: total, every: interval, start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	}
	return b
}

// Add records n more units done, with a status text (e.g. "positions/s 812, batch 31.2").
func (b *Bar) Add(n int, status string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.status = status
	if b.bar != nil {
		b.bar.Describe(b.desc + " " + status)
		_ = b.bar.Add(n)
		return
	}
	if now := time.Now(); now.Sub(b.last) >= b.every || b.done >= b.total {
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

// Finish ends the bar (prints the final line if not already printed).
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.bar != nil {
		_ = b.bar.Finish()
		return
	}
	if b.done < b.total || b.last.IsZero() {
		b.line()
	}
}
