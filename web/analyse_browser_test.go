package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// loadAnalyse opens the analysis board at the end of a blitz opening.
func loadAnalyse(b *browser, url string) {
	b.t.Helper()
	b.open(url + "/#analyse")
	b.do("a blitz position", chromedp.SetValue(chromedp.CSS("#an-input"), "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"),
		chromedp.SetValue(chromedp.CSS("#an-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#an-top"), "5"))
	b.click("#an-load")
	b.waitJS("the position", `document.getElementById('an-ply').textContent.startsWith('ply 10/10')`, `document.getElementById('an-ply').textContent`)
}

// TestBrowserAnalyseLive: Live streams the search of the board's position (its visits grow on the
// board and in the table while it runs); a step moves the search to the new position (the server
// runs one search for the page, not two) and stepping back shows the position's cached analysis at
// once; Stop ends the search on the server; the server's bound stops it and the page says so.
func TestBrowserAnalyseLive(t *testing.T) {
	s, ts := newTestServer(t, Options{Player: "rollout:16", MaxStream: 1500 * time.Millisecond})
	running := func() int {
		s.pool.mu.Lock()
		defer s.pool.mu.Unlock()
		return len(s.pool.slots)
	}
	b := newBrowser(t, 1280, 900)
	loadAnalyse(b, ts.URL)
	visits := `((Analyse.cache.get(Analyse.stepper.current().position) || {}).visits || 0)`
	b.click("#an-live")
	b.waitJS("live updates", visits+` > 0 && document.querySelectorAll('#an-board .arrow').length > 0`, `document.getElementById('an-message').textContent`)
	v0 := eval[float64](b, visits)
	b.waitJS("more visits", visits+` > `+fmt.Sprint(v0), `document.getElementById('an-message').textContent`)
	st := eval[map[string]any](b, `({state: document.getElementById('an-live').dataset.state, label: document.getElementById('an-live').textContent,
	  msg: document.getElementById('an-message').textContent, table: document.getElementById('an-table').rows.length})`)
	if st["state"] != "running" || st["label"] != "Stop" || !strings.Contains(fmt.Sprint(st["msg"]), "live") || st["table"].(float64) < 2 {
		t.Fatalf("while live: %v", st)
	}
	b.shot("analyse-live.png")
	ply10 := eval[float64](b, visits)

	// a step back: the search follows; the server runs it alone
	b.click("#an-prev")
	b.waitJS("ply 9's live updates", `document.getElementById('an-ply').textContent.startsWith('ply 9/10') && `+visits+` > 0`, `document.getElementById('an-message').textContent`)
	waitFor(t, "one search on the server", func() bool { return running() == 1 })
	// forward again: ply 10's analysis at once (drawn in the click's handler), never less deep
	b.click("#an-next")
	st = eval[map[string]any](b, `({visits: `+visits+`, arrows: document.querySelectorAll('#an-board .arrow').length, msg: document.getElementById('an-message').textContent})`)
	if st["visits"].(float64) < ply10 || st["arrows"] == 0.0 || !strings.Contains(fmt.Sprint(st["msg"]), "visits") {
		t.Fatalf("back at ply 10 (%v visits before): %v", ply10, st)
	}
	// Stop: the page stops, the server's search ends
	b.click("#an-live")
	if st := eval[string](b, `document.getElementById('an-live').dataset.state + ' ' + document.getElementById('an-live').textContent`); st != "off Live" {
		t.Fatalf("after Stop the button is %q", st)
	}
	waitFor(t, "the search stopped on the server", func() bool { return running() == 0 })
	// the server's bound (1.5 s here) ends a live search; the page says so
	b.click("#an-live")
	b.waitJS("the server's bound", `document.getElementById('an-live').dataset.state === 'done'`, `document.getElementById('an-live').dataset.state`)
	if msg := eval[string](b, `document.getElementById('an-message').textContent`); !strings.Contains(msg, "server's limit") {
		t.Errorf("after the server's bound the message is %q", msg)
	}
	// leaving the page stops it
	b.click("#an-live") // Stop (the button says Stop while live is on)
	b.click("#an-live")
	b.waitJS("live again", `document.getElementById('an-live').dataset.state === 'running'`, `document.getElementById('an-live').dataset.state`)
	b.click("#tab-play")
	waitFor(t, "no search once the page is left", func() bool { return running() == 0 })

	n := newBrowser(t, 400, 800)
	n.do("size", chromedp.EmulateViewport(400, 800))
	loadAnalyse(n, ts.URL)
	n.click("#an-live")
	n.waitJS("live updates", visits+` > 0`, `document.getElementById('an-message').textContent`)
	if w := eval[float64](n, `document.documentElement.scrollWidth`); w > 400 {
		t.Errorf("at 400 px the page is %v px wide", w)
	}
	n.shot("analyse-live-400.png")
}
