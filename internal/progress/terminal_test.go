package progress

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// replay returns the lines a terminal shows after out: '\r' returns to column 0, ESC [K erases to
// the end of the line, '\n' starts the next line, anything else overwrites the cell under the
// cursor. The last element is the cursor's line.
func replay(t *testing.T, out string) []string {
	t.Helper()
	var lines []string
	var cur []rune
	x := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur = cur[:x]
			i += 3
			continue
		case out[i] == '\x1b':
			t.Fatalf("unexpected escape sequence at %d: %q", i, out[i:min(len(out), i+8)])
		case out[i] == '\r':
			x = 0
		case out[i] == '\n':
			lines = append(lines, string(cur))
			cur, x = nil, 0
		default:
			r, n := utf8.DecodeRuneInString(out[i:])
			if x < len(cur) {
				cur[x] = r
			} else {
				cur = append(cur, r)
			}
			x++
			i += n
			continue
		}
		i++
	}
	return append(lines, string(cur))
}

var (
	logLineRe = regexp.MustCompile(`^time=\S+ level=INFO msg=tick i=[0-9]+$`)
	barLineRe = regexp.MustCompile(`^crunching( step [0-9]+)? +[0-9]+% \|[█ ]{20}\| \([0-9]+/[0-9]+\) \[[^]]*\]$`)
)

// TestLogsNeverInsideBar drives a live bar and a slog text handler through one fake terminal from
// two goroutines and checks the output both raw and as a terminal shows it: every piece between
// '\r's and '\n's is log text or bar text, never both, and every line left on the screen is a
// whole log record or the finished bar.
func TestLogsNeverInsideBar(t *testing.T) {
	ft := &testenv.SyncBuffer{}
	term := NewScreen().Terminal(ft, func() int { return 0 })
	const steps, records = 1500, 400
	bar := New(term, steps, "crunching", time.Hour)
	bar.throttle = 0 // draw on every Add: as many chances to interleave as there are
	log := slog.New(slog.NewTextHandler(term, nil))
	start := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		<-start
		for i := range steps {
			bar.Add(1, fmt.Sprintf("step %d", i+1))
		}
	}()
	go func() {
		defer wg.Done()
		<-start
		for i := range records {
			log.Info("tick", "i", i)
		}
	}()
	close(start)
	wg.Wait()
	bar.Finish()
	out := ft.String()

	raw := strings.NewReplacer("\x1b[K", "").Replace(out)
	pieces := strings.FieldsFunc(raw, func(r rune) bool { return r == '\r' || r == '\n' })
	nlog := 0
	for _, p := range pieces {
		isLog, isBar := strings.Contains(p, "level="), strings.Contains(p, "crunching")
		if isLog && isBar {
			t.Fatalf("a log record and the bar share a line: %q", p)
		}
		if isLog {
			if !logLineRe.MatchString(p) {
				t.Fatalf("log record cut: %q", p)
			}
			nlog++
		} else if !barLineRe.MatchString(p) {
			t.Fatalf("neither a log record nor a bar: %q", p)
		}
	}
	if nlog != records {
		t.Errorf("%d log records written whole, want %d", nlog, records)
	}

	lines := replay(t, out)
	if last := lines[len(lines)-1]; last != "" {
		t.Errorf("cursor line %q, want the cursor at the start of an empty line", last)
	}
	lines = lines[:len(lines)-1]
	nlog = 0
	for i, l := range lines {
		switch {
		case logLineRe.MatchString(l):
			nlog++
		case barLineRe.MatchString(l) && i == len(lines)-1:
			if !strings.Contains(l, fmt.Sprintf("(%d/%d)", steps, steps)) {
				t.Errorf("final bar %q", l)
			}
		default:
			t.Errorf("screen line %d is neither a whole log record nor the final bar: %q", i, l)
		}
	}
	if nlog != records {
		t.Errorf("%d log lines on the screen, want %d", nlog, records)
	}
}

// TestBarAfterPartialLine: a write that leaves the cursor inside a line (a prompt) is not
// continued by the bar; the bar comes back after the line ends.
func TestBarAfterPartialLine(t *testing.T) {
	ft := &testenv.SyncBuffer{}
	term := NewScreen().Terminal(ft, nil)
	bar := New(term, 10, "work", time.Hour)
	bar.throttle = 0
	io.WriteString(term, "name? ")
	bar.Add(1, "")
	if got := ft.String(); !strings.HasSuffix(got, "\r\x1b[Kname? ") {
		t.Fatalf("bar drawn after a partial line: %q", got)
	}
	io.WriteString(term, "x\n")
	bar.Add(1, "")
	lines := replay(t, ft.String())
	if len(lines) != 2 || lines[0] != "name? x" || !strings.HasPrefix(lines[1], "work  20% |") {
		t.Fatalf("screen %q", lines)
	}
	bar.Finish()
}

// TestFinishKeepsCount: a bar finished early shows the count it reached, not the total.
func TestFinishKeepsCount(t *testing.T) {
	ft := &testenv.SyncBuffer{}
	bar := New(NewScreen().Terminal(ft, nil), 150, "training", time.Hour)
	bar.Add(37, "loss 1.2")
	bar.Finish()
	bar.Finish()
	bar.Add(1, "after")
	lines := replay(t, ft.String())
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "training loss 1.2  25% |████ ") || !strings.Contains(lines[0], "(37/150)") || lines[1] != "" {
		t.Fatalf("screen %q", lines)
	}
}

// TestNestedBars: a bar started while another is live is drawn instead of it; when it finishes
// its line stays and the first bar is drawn again.
func TestNestedBars(t *testing.T) {
	ft := &testenv.SyncBuffer{}
	term := NewScreen().Terminal(ft, nil)
	outer := New(term, 2, "outer", time.Hour)
	inner := New(term, 1, "inner", time.Hour)
	inner.Add(1, "")
	inner.Finish()
	outer.Add(2, "")
	outer.Finish()
	lines := replay(t, ft.String())
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "inner 100%") || !strings.HasPrefix(lines[1], "outer 100%") {
		t.Fatalf("screen %q", lines)
	}
}

// TestCloseEndsLiveBars: Screen.Close leaves an unfinished bar on its own line.
func TestCloseEndsLiveBars(t *testing.T) {
	ft := &testenv.SyncBuffer{}
	scr := NewScreen()
	bar := New(scr.Terminal(ft, nil), 4, "stopped", time.Hour)
	bar.Add(1, "")
	scr.Close()
	io.WriteString(scr.Terminal(ft, nil), "error\n")
	lines := replay(t, ft.String())
	if len(lines) != 3 || !strings.Contains(lines[0], "(1/4)") || lines[1] != "error" {
		t.Fatalf("screen %q", lines)
	}
}

// TestRenderWidth: a bar is cut to the terminal's width less one column, its description first.
func TestRenderWidth(t *testing.T) {
	b := &Bar{desc: "self-play", status: strings.Repeat("x", 100), total: 10, done: 5, start: time.Now()}
	for _, w := range []int{0, 20, 60, 200} {
		got := b.render(w)
		n := len([]rune(got))
		if w > 0 && n > w-1 {
			t.Errorf("width %d: %d columns: %q", w, n, got)
		}
		if w >= 60 && !strings.Contains(got, "(5/10)") {
			t.Errorf("width %d: count cut: %q", w, got)
		}
	}
}

// TestWriterNotTerminal: output that is not a terminal is used as it is.
func TestWriterNotTerminal(t *testing.T) {
	var buf bytes.Buffer
	if w := NewScreen().Writer(&buf); w != io.Writer(&buf) {
		t.Errorf("Writer wrapped a buffer: %T", w)
	}
	if IsTerminal(&buf) || !IsTerminal(NewScreen().Terminal(&buf, nil)) {
		t.Error("IsTerminal")
	}
}
