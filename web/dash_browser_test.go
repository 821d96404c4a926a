package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDashboardCharts: every chart of the dashboard names its y axis (with units) and its x
// axis "generation" with integer ticks only, keeps its legend out of the plot, and shows the
// generation and each series' value when the pointer moves over the plot; at 400 px wide the charts
// fit the window and their axis text stays readable. The run list follows the runs directory
// without a click: a new run and a run's new generation appear as the list is polled.
func TestBrowserDashboardCharts(t *testing.T) {
	runs, _ := makeRuns(t)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs, Poll: 50 * time.Millisecond})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0&poll=100#dashboard")
	b.waitJS("the charts", `document.querySelectorAll('#d-charts svg polyline').length >= 5`, `document.getElementById('d-live').textContent`)

	charts := eval[[]map[string]any](b, `[...document.querySelectorAll('#d-charts figure')].map((f) => {
	  const svg = f.querySelector('svg'), plot = svg.querySelector('.hover-area').getBoundingClientRect();
	  const legend = f.querySelector('.chart-legend'), lr = legend ? legend.getBoundingClientRect() : null;
	  const inPlot = [...svg.querySelectorAll('text')].filter((e) => { const r = e.getBoundingClientRect();
	    return r.left > plot.left + 1 && r.right < plot.right - 1 && r.top > plot.top + 1 && r.bottom < plot.bottom - 1; }).map((e) => e.textContent);
	  return { title: svg.dataset.chart, y: (svg.querySelector('.axis-y') || {}).textContent || '',
	    x: (svg.querySelector('.axis-x') || {}).textContent || '',
	    xticks: [...svg.querySelectorAll('.tick-x')].map((e) => e.textContent),
	    legend: legend ? legend.textContent : '', legendBelow: !!lr && lr.top >= plot.bottom, inPlot };
	})`)
	if len(charts) != 5 {
		t.Fatalf("%d charts", len(charts))
	}
	wantY := map[string]string{"losses": "loss", "game length (actions)": "actions", "self-play games/hour": "games/hour", "score against baselines": "score"}
	for _, c := range charts {
		title := fmt.Sprint(c["title"])
		want := wantY[title]
		if strings.HasPrefix(title, "Elo") {
			want = "Elo"
		}
		if want == "" || !strings.Contains(fmt.Sprint(c["y"]), want) {
			t.Errorf("chart %q: y axis %q, want %q", title, c["y"], want)
		}
		if c["x"] != "generation" {
			t.Errorf("chart %q: x axis %q", title, c["x"])
		}
		ticks, _ := c["xticks"].([]any)
		if len(ticks) == 0 {
			t.Errorf("chart %q: no x ticks", title)
		}
		for _, tk := range ticks {
			if strings.ContainsAny(fmt.Sprint(tk), ".e") {
				t.Errorf("chart %q: x tick %q is not an integer (ticks %v)", title, tk, ticks)
			}
		}
		if c["legend"] == "" || c["legendBelow"] != true {
			t.Errorf("chart %q: legend %q not under the plot", title, c["legend"])
		}
		if in, _ := c["inPlot"].([]any); len(in) > 0 {
			t.Errorf("chart %q: text over the plot: %v", title, in)
		}
	}

	// hover: the pointer over the plot, near generation 2, shows it with each series' value
	for _, title := range []string{"losses", "self-play games/hour"} {
		sel := `#d-charts svg[data-chart="` + title + `"] .hover-area`
		pos := eval[[]float64](b, `(() => { const e = document.querySelector('`+sel+`'); e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return [r.right - 3, r.top + r.height / 2]; })()`)
		b.do("hover "+title, chromedp.MouseEvent(chromedp.MouseMoved, pos[0]-20, pos[1]), chromedp.MouseEvent(chromedp.MouseMoved, pos[0], pos[1]))
		got := eval[string](b, `document.querySelector('`+sel+`').closest('figure').querySelector('.chart-readout').textContent`)
		want := map[string][]string{"losses": {"generation 2", "total 3.5", "policy 3.1", "value 0.9"}, "self-play games/hour": {"generation 2", "games/h 900"}}[title]
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("hovering %q: readout %q, want %q", title, got, w)
			}
		}
	}
	b.shot("dashboard-axes.png")

	// the run list, live: a new run, and r1's third generation, without clicking the tab again
	if err := os.MkdirAll(filepath.Join(runs, "r3"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "r3", "metrics.jsonl"), []byte(metricsLine(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(runs, "r1", "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(metricsLine(3))
	f.Close()
	b.waitJS("the run list follows", `(() => { const o = [...document.getElementById('d-run').options].map((o) => o.textContent);
	  return o.some((t) => t.startsWith('r3 (1 gen')) && o.some((t) => t.startsWith('r1 (3 gen')) &&
	    !!document.querySelector('#d-compare option[value="r3"]'); })()`,
		`[...document.getElementById('d-run').options].map((o) => o.textContent).join(' | ')`)

	// at 400 px wide: every chart inside the window, its axis text at least 9.5 px on screen
	b.do("400 px", chromedp.EmulateViewport(400, 800))
	b.waitJS("the charts redrawn", `document.querySelectorAll('#d-charts svg polyline').length >= 5`, `''`)
	small := eval[[]string](b, `(() => { const bad = [];
	  for (const f of document.querySelectorAll('#d-charts figure')) {
	    const svg = f.querySelector('svg'), r = f.getBoundingClientRect(), k = svg.getScreenCTM().a;
	    if (r.right > window.innerWidth + 0.5) bad.push(svg.dataset.chart + ' overflows: right ' + r.right);
	    for (const e of svg.querySelectorAll('.tick, .axis-label')) {
	      const px = parseFloat(getComputedStyle(e).fontSize) * k;
	      if (px < 9.5) bad.push(svg.dataset.chart + ' ' + e.textContent + ' at ' + px.toFixed(1) + ' px');
	    }
	  }
	  return bad; })()`)
	if len(small) > 0 {
		t.Errorf("at 400 px: %v", small[:min(len(small), 8)])
	}
	b.shot("dashboard-400.png")
}
