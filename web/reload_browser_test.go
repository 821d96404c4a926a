package web

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserReloadTime is the page's reload benchmark, opt-in (YINSH_RELOAD_BENCH=1; it measures,
// so it is not part of the suite's timing): headless Chromium at 1280×900 loads the page once, then
// reloads it 15 times, and reports the time to page ready of each reload, min, median and max.
// Page ready is the app's "yinsh-ready" performance mark, from the navigation's start: the page
// parsed, its scripts run, the board drawn, the address's tab shown and the saved game (if any)
// fetched and drawn, just before body[data-ready="1"]. Two cases: a first visit's page (no saved
// game) and a page that resumes a saved game of 40 actions (one more request before ready). It
// fails when a median is 300 ms or more. The server is the test server (the handler of yinsh
// serve), or the running yinsh serve at $YINSH_RELOAD_URL (the resumed case then plays its game
// there).
func TestBrowserReloadTime(t *testing.T) {
	if os.Getenv("YINSH_RELOAD_BENCH") != "1" {
		t.Skip("the reload benchmark runs with YINSH_RELOAD_BENCH=1")
	}
	url := os.Getenv("YINSH_RELOAD_URL")
	if url == "" {
		_, ts := newTestServer(t, Options{Player: "random"})
		url = ts.URL
	}
	b := newBrowser(t, 1280, 900)
	measure := func(name string) {
		t.Helper()
		var ms []float64
		for i := range 16 {
			if i == 0 {
				b.open(url + "/#play") // the first load, not counted
				continue
			}
			b.do("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
			v := eval[float64](b, `(() => { const m = performance.getEntriesByName('yinsh-ready')[0]; return m ? m.startTime : -1; })()`)
			if v < 0 {
				t.Fatal("no yinsh-ready mark")
			}
			ms = append(ms, v)
		}
		slices.Sort(ms)
		med := (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
		if len(ms)%2 == 1 {
			med = ms[len(ms)/2]
		}
		t.Logf("%s: %d reloads, page ready min %.0f ms, median %.0f ms, max %.0f ms (all: %v)", name, len(ms), ms[0], med, ms[len(ms)-1], rounded(ms))
		if med >= 300 {
			t.Errorf("%s: median %.0f ms to page ready, target under 300 ms", name, med)
		}
	}
	measure("no saved game")
	g := apiGame(t, url, 40, 11)
	b.js(`localStorage.setItem('yinsh.game', '` + g.ID + `')`)
	measure("a saved game resumed")
	if id := eval[string](b, `Play.game ? Play.game.id : ''`); id != g.ID {
		t.Fatalf("the page resumed %q, not the saved game %s", id, g.ID)
	}
}

func rounded(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%.0f", x)
	}
	return out
}
