package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// notifyWriter signals each write on a channel.
type notifyWriter struct {
	buf   bytes.Buffer
	wrote chan struct{}
}

func (n *notifyWriter) Write(p []byte) (int, error) {
	n.buf.Write(p)
	n.wrote <- struct{}{}
	return len(p), nil
}

func TestSlow(t *testing.T) {
	// stopped in time: nothing
	var quiet bytes.Buffer
	if Slow(&quiet, time.Hour, "loading")() || quiet.Len() != 0 {
		t.Errorf("fast step announced: %q", quiet.String())
	}
	// no delay: at once
	var now bytes.Buffer
	if stop := Slow(&now, 0, "loading"); now.String() != "loading\n" || !stop() {
		t.Errorf("after 0: %q", now.String())
	}
	// a step still running when the timer fires: one line, through the terminal above the bar
	w := &notifyWriter{wrote: make(chan struct{}, 8)}
	term := NewScreen().Terminal(w, nil)
	bar := New(term, 2, "work", time.Hour)
	<-w.wrote // the bar's first drawing
	stop := Slow(term, time.Millisecond, "fetching the network…")
	<-w.wrote // clearing the bar
	<-w.wrote // the line
	<-w.wrote // the bar again
	if !stop() || stop() != true {
		t.Error("stop after the line: want true")
	}
	lines := replay(t, w.buf.String())
	if len(lines) != 2 || lines[0] != "fetching the network…" || !strings.HasPrefix(lines[1], "work   0%") {
		t.Errorf("screen %q", lines)
	}
	bar.Finish() // two more writes, within the channel's buffer
}
