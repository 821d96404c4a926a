package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/yinsh-zero/yinsh/env"
)

// The browser test drives headless Chromium through the page as a person would: it plays a whole
// blitz game against random by clicking the board (one action typed as a token), then looks at the
// analysis, the watch and the dashboard pages, saving screenshots into $YINSH_ARTIFACTS (.ci/run
// sets it; without it no screenshot is taken: Chromium's captures cost CPU for files nobody would
// look at). Without Chromium it is skipped, unless YINSH_BROWSER_TEST=1 (as .ci/run
// sets), which makes it fail instead. It is skipped under -short (the race detector's run).

// chromiumPath finds the browser: $YINSH_CHROMIUM, else chromium or google-chrome on the PATH.
func chromiumPath() string {
	if p := os.Getenv("YINSH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// artifactsDir is $YINSH_ARTIFACTS, made if need be, or "" when it is unset: no screenshots.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("YINSH_ARTIFACTS")
	if dir == "" {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

// pageState is what the test reads of the play page to choose its next click.
type pageState struct {
	Phase  string   `json:"phase"`
	Your   string   `json:"your"`
	Busy   string   `json:"busy"`
	Result string   `json:"result"`
	Hints  []string `json:"hints"`
	Rows   []string `json:"rows"`
	Pass   bool     `json:"pass"`
	Sel    bool     `json:"selected"`
	Moves  int      `json:"moves"`
	Status string   `json:"status"`
	ID     string   `json:"id"`
	Msg    string   `json:"message"`
}

const pageStateJS = `(() => {
  const b = document.getElementById('play-board');
  return {
    phase: b.dataset.phase || '', your: b.dataset.yourTurn || '', busy: b.dataset.busy || '', result: b.dataset.result || '',
    hints: [...b.querySelectorAll('[data-hint]')].map(e => e.dataset.hint),
    rows: [...b.querySelectorAll('.row-choice')].map(e => e.dataset.action),
    pass: !document.getElementById('play-pass').hidden,
    selected: !!b.querySelector('.selected'),
    moves: Play.game ? Play.game.moves.length : -1,
    id: Play.game ? Play.game.id : '',
    status: document.getElementById('play-status').textContent,
    message: document.getElementById('play-message').textContent,
  };
})()`

func TestBrowserPlaysBlitzGame(t *testing.T) {
	needBrowser(t)
	art := artifactsDir(t)
	runs, _, writer := makeRunsWriter(t)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs, Poll: 50 * time.Millisecond})
	// after the server: cleanups run last first, so the page closes (ending its event streams)
	// before the server's Close waits for its connections
	ctx := newPage(t, 1280, 900, 120*time.Second)

	run := func(what string, acts ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, acts...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	shot := func(name, sel string) {
		t.Helper()
		if art == "" {
			return
		}
		act := chromedp.CaptureScreenshot() // the viewport, as PNG
		if sel != "" {
			act = chromedp.Screenshot(chromedp.CSS(sel))
		}
		buf, err := chromedp.Run(ctx, act)
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(art, name), buf, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot %s", filepath.Join(art, name))
	}
	state := func() pageState {
		t.Helper()
		st, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](pageStateJS))
		if err != nil {
			t.Fatalf("read the page: %v", err)
		}
		return st
	}
	// settle waits until the page is idle on the human's turn or the game is over
	settle := func(moves int) pageState {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(15 * time.Millisecond) {
			st := state()
			if st.Busy != "1" && st.Moves > moves && (st.Your == "1" || st.Result != "ongoing") {
				return st
			}
			if st.Msg != "" {
				t.Fatalf("the page says %q", st.Msg)
			}
		}
		t.Fatalf("the page did not settle: %+v", state())
		return pageState{}
	}
	click := func(sel string) {
		t.Helper()
		if err := clickCSS(ctx, sel); err != nil {
			t.Fatalf("click %s: %v", sel, err)
		}
	}

	run("load the page", chromedp.Navigate(ts.URL+"/?delay=0#play"), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	// the page's load as the browser measures it (navigation start to the load event)
	var loadMS float64
	for deadline := time.Now().Add(5 * time.Second); loadMS <= 0; time.Sleep(10 * time.Millisecond) {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.loadEventEnd - n.startTime : 0; })()`))
		if err != nil {
			t.Fatal(err)
		}
		if loadMS = v; time.Now().After(deadline) {
			t.Fatal("no load event")
		}
	}
	timing := func() string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const n = performance.getEntriesByType('navigation')[0];
		  const r = performance.getEntriesByType('resource').map(e => e.name.split('/').pop() + ' ' + e.startTime.toFixed(0) + '-' + e.responseEnd.toFixed(0)).join(', ');
		  return 'response ' + n.responseEnd.toFixed(1) + ' ms, DOMContentLoaded ' + n.domContentLoadedEventEnd.toFixed(1) + ' ms, load ' + n.loadEventEnd.toFixed(1) + ' ms; ' + r; })()`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Logf("page load in the browser, first visit: %s", timing())
	// a gross bound only: a freshly started browser on a loaded 2-core CI machine has taken 870 ms
	// (BENCHMARKS.md has the figures; the server's part is TestPageLoad's)
	if loadMS > 3000 {
		t.Fatalf("the page took %.0f ms to load from loopback", loadMS)
	}
	run("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)))
	time.Sleep(50 * time.Millisecond) // for the load event's end to be recorded
	t.Logf("page load in the browser, reload: %s", timing())
	run("choose blitz as white", chromedp.SetValue(chromedp.CSS("#ng-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	click("#ng-start")
	st := settle(-1)
	if st.Phase != "place" || len(st.Hints) != 85 || !strings.Contains(st.Status, "blitz") {
		t.Fatalf("new game: %+v", st)
	}
	// the first action by keyboard
	run("type a token", chromedp.SendKeys(chromedp.CSS("#play-tokens"), "e5\n"))
	st = settle(0)
	if st.Moves != 2 || st.Phase != "place" {
		t.Fatalf("after e5 and the agent's answer: %+v", st)
	}
	// undo takes back the agent's answer and e5; type it again
	click("#play-undo")
	for deadline := time.Now().Add(5 * time.Second); state().Moves != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("undo: %+v", state())
		}
	}
	run("type a token again", chromedp.SendKeys(chromedp.CSS("#play-tokens"), "e5\n"))
	st = settle(0)
	rng := rand.New(rand.NewPCG(7, 7))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	shotTaken := false
	for n := 0; st.Result == "ongoing"; n++ {
		if n > 400 {
			t.Fatal("the game does not end")
		}
		if !shotTaken && st.Moves >= 24 && st.Phase == "move" {
			shot("board-midgame.png", "#play-board")
			shotTaken = true
		}
		before := st.Moves
		switch st.Phase {
		case "place", "remove-ring":
			click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(st.Hints)))
		case "move":
			if len(st.Hints) == 0 && st.Pass {
				click("#play-pass")
				break
			}
			click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(st.Hints)))
			sel := state()
			if !sel.Sel || len(sel.Hints) == 0 {
				t.Fatalf("clicking a ring selected nothing: %+v", sel)
			}
			click(fmt.Sprintf(`#play-board [data-point="%s"]`, pick(sel.Hints)))
		case "remove-row":
			if len(st.Rows) == 0 {
				t.Fatalf("remove-row without rows to click: %+v", st)
			}
			click(fmt.Sprintf(`#play-board .row-choice[data-action="%s"]`, pick(st.Rows)))
		default:
			t.Fatalf("unexpected phase %+v", st)
		}
		st = settle(before)
	}
	if !shotTaken {
		shot("board-midgame.png", "#play-board")
	}
	shot("board-final.png", "#play-board")
	shot("play-final.png", "")
	if !strings.Contains(st.Status, "Game over") || !(strings.Contains(st.Status, "wins") || strings.Contains(st.Status, "Draw")) {
		t.Fatalf("the result is not shown: %q", st.Status)
	}
	var g gameView
	callJSON(t, nil, "GET", ts.URL+"/api/games/"+st.ID, nil, 200, &g)
	if g.Result != st.Result || len(g.Moves) != st.Moves {
		t.Fatalf("page result %s after %d moves, server %s after %d", st.Result, st.Moves, g.Result, len(g.Moves))
	}
	wantWord := map[string]string{"white": "White wins", "black": "Black wins", "draw": "Draw"}[g.Result]
	if !strings.Contains(st.Status, wantWord) {
		t.Fatalf("status %q does not say %q", st.Status, wantWord)
	}
	t.Logf("game over after %d actions: %s", st.Moves, st.Status)

	// analysis: a position, a searching player's view drawn on the board
	click("#tab-analyse")
	run("analyse", chromedp.SetValue(chromedp.CSS("#an-input"), "e5 f6 e6 f7 e7 f8 e8 f9 d4 g6"),
		chromedp.SetValue(chromedp.CSS("#an-variant"), "blitz"), chromedp.SetValue(chromedp.CSS("#an-player"), "rollout:200"),
		chromedp.SetValue(chromedp.CSS("#an-sims"), "300"))
	click("#an-load")
	run("wait for the position", chromedp.WaitVisible(chromedp.CSS(`#an-board .ring`)))
	run("heat map of the prior", chromedp.SetValue(chromedp.CSS("#an-heat"), "prior"))
	click("#an-go")
	run("wait for the analysis", chromedp.WaitVisible(chromedp.CSS(`#an-table tr:nth-child(4)`)), chromedp.WaitVisible(chromedp.CSS(`#an-board .arrow`)),
		chromedp.WaitVisible(chromedp.CSS(`#an-wdl .wdl-win`)), chromedp.WaitReady(chromedp.CSS(`#an-board .heatspot`)))
	tip, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#an-board .arrow-hover title').textContent`))
	if err != nil || !strings.Contains(tip, "prior") || !strings.Contains(tip, "visits") || !strings.Contains(tip, "Q ") {
		t.Fatalf("a candidate drawn on the board does not give its numbers: %q %v", tip, err)
	}
	shot("analyse.png", "")

	// watch: a run's game stepped through
	click("#tab-watch")
	run("wait for the games", chromedp.WaitVisible(chromedp.CSS(`#w-games tr:nth-child(3)`)))
	click(`#w-games tr:nth-child(3)`)
	// the stepper says "ply 0/0" until a game is loaded, then "ply 0/N"
	for deadline := time.Now().Add(10 * time.Second); text("#w-title") == "" || text("#w-ply") == "ply 0/0"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the game did not load: %q %q", text("#w-ply"), text("#w-message"))
		}
	}
	for range 12 {
		click("#w-next")
	}
	ply := text("#w-ply")
	if !strings.HasPrefix(ply, "ply 12/") {
		t.Fatalf("watch stepper says %q", ply)
	}
	shot("watch.png", "")
	// following the run live: a game that self-play finishes now is shown as it is written
	run("follow live", chromedp.Click(chromedp.CSS("#w-follow")))
	// The page subscribes to the stream as it follows; a game written before the subscription is
	// not an event. So games are written one after another (ids 777, 778, …) until one is shown
	// live, rather than sleeping for the subscription and writing one.
	shown := false
	for id, deadline := uint64(777), time.Now().Add(10*time.Second); !shown && time.Now().Before(deadline); id++ {
		if err := writer.Append(randomGame(rand.New(rand.NewPCG(8, id)), id, env.Blitz)); err != nil {
			t.Fatal(err)
		}
		for wait := time.Now().Add(time.Second); time.Now().Before(wait); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(text("#w-title"), fmt.Sprintf("game %d ", id)) {
				shown = true
				break
			}
		}
	}
	if !shown {
		t.Fatalf("the live game was not shown: %q", text("#w-title"))
	}

	// dashboard: the run's curves, then a generation appended while the page is open
	click("#tab-dashboard")
	run("wait for the charts", chromedp.WaitVisible(chromedp.CSS(`#d-charts svg[data-chart="losses"] polyline`)))
	f, err := os.OpenFile(filepath.Join(runs, "r1", "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(metricsLine(3))
	f.Close()
	var live string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		live = text("#d-live")
		if strings.Contains(live, "3 generations") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard did not update: %q", live)
		}
	}
	charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#d-charts svg polyline').length`))
	if err != nil {
		t.Fatal(err)
	}
	if charts < 5 {
		t.Fatalf("%d curves drawn", charts)
	}
	shot("dashboard.png", "")

	// compare: a second run appears, is picked in "compare with", and every chart overlays both
	if err := os.MkdirAll(filepath.Join(runs, "r2"), 0o755); err != nil {
		t.Fatal(err)
	}
	var r2 strings.Builder
	for gen := 1; gen <= 4; gen++ {
		fmt.Fprintf(&r2, `{"generation":%d,"selfplay":{"games":16,"mean_length":%d,"games_per_hour":%d},"train":{"steps":100,"loss":%.2f},`+
			`"eval":{"baselines":{"random":%.2f}},"rating_anchor":"gen-0000","elo":{"value":%d,"low":%d,"high":%d},"elapsed_s":500}`+"\n",
			gen, 70-2*gen, 1100+50*gen, 4.8-0.6*float64(gen), 0.7+0.07*float64(gen), 45*gen, 45*gen-35, 45*gen+35)
	}
	if err := os.WriteFile(filepath.Join(runs, "r2", "metrics.jsonl"), []byte(r2.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	click("#tab-watch")
	click("#tab-dashboard") // showing the tab lists the runs again
	run("wait for r2 in the list", chromedp.WaitReady(chromedp.CSS(`#d-compare option[value="r2"]`)))
	run("compare with r2", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('d-compare');
	  s.querySelector('option[value="r2"]').selected = true; s.dispatchEvent(new Event('change')); })()`))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		live = text("#d-live")
		if strings.Contains(live, "r1 3 generations") && strings.Contains(live, "r2 4 generations") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard does not compare r1 and r2: %q", live)
		}
	}
	per, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('#d-charts svg')].map((s) => s.querySelectorAll('polyline').length)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(per) != 5 || per[0] != 2 || per[1] != 2 || per[4] != 2 {
		t.Fatalf("curves per chart when comparing two runs: %v", per)
	}
	shot("dashboard-compare.png", "")
}

// failOnPageErrors fails t, as it ends, for every uncaught JavaScript exception (unhandled promise
// rejections included) and console error of ctx's page.
func failOnPageErrors(t *testing.T, ctx context.Context) {
	t.Helper()
	var mu sync.Mutex
	var jsErrors []string
	if err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			msg = e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type != cdpruntime.ConsoleAPICalledTypeError {
				return
			}
			msg = "console.error"
			for _, a := range e.Args {
				msg += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		mu.Lock()
		jsErrors = append(jsErrors, msg)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range jsErrors {
			t.Errorf("JavaScript error in the page: %s", e)
		}
	})
}
