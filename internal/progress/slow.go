package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Slow announces a step that may take long: unless the returned stop is called within after, it
// writes "msg\n" to w (through w's Screen when w is a Terminal, so above any bar), once. after <= 0
// writes it at once. stop reports whether the line was written; after stop returns nothing more is
// written. Typical use, before loading a large replay window or fetching a network:
//
//	defer progress.Slow(stderr, time.Second, "loading the replay window of runs/x…")()
func Slow(w io.Writer, after time.Duration, msg string) (stop func() bool) {
	var mu sync.Mutex
	said, stopped := false, false
	say := func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped && !said {
			said = true
			fmt.Fprintln(w, msg)
		}
	}
	if after <= 0 {
		say()
		return func() bool { return true }
	}
	t := time.AfterFunc(after, say)
	return func() bool {
		t.Stop()
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		return said
	}
}
