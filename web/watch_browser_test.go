package web

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

// TestBrowserWatchTargets: Watch shows, for each ply of a self-play record, the training target
// recorded there: the policy target as a heat map on the board (a spot on each point its actions end
// on, the hottest where most probability is) and the value target, (1-m)·z + m·q with the run's
// value_q_mix m, as a WDL bar and a number, both saying whose view they are (the side to act); a
// position that is no training target and the final position say so; the heat map can be turned
// off; an SGF game (no targets) shows none.
func TestBrowserWatchTargets(t *testing.T) {
	runs, _ := makeRuns(t)
	recs := makeTargetRun(t, runs, "0.25")
	rec := recs[0] // game 201, index 0 of the shard: the list's last row (newest first)
	_, ts := newTestServer(t, Options{Player: "random", Runs: runs})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/#watch")
	b.waitJS("the run t1", `!!document.querySelector('#w-run option[value="t1"]')`, `document.getElementById('w-run').innerHTML`)
	b.js(`(() => { const s = document.getElementById('w-run'); s.value = 't1'; s.dispatchEvent(new Event('change')); })()`)
	b.waitJS("t1's games", `document.querySelectorAll('#w-games tr').length === 3`, `document.getElementById('w-message').textContent`)
	b.click(`#w-games tr:last-child`)
	b.waitJS("game 201", `document.getElementById('w-title').textContent.includes('game 201 ')`, `document.getElementById('w-title').textContent`)

	// heat reads the board's heat spots: point → fill opacity
	heat := func() map[string]float64 {
		return eval[map[string]float64](b, `(() => { const out = {};
		  for (const h of document.querySelectorAll('#w-board .heatspot')) {
		    const p = YINSH.points.find((q) => Math.abs(q.x - h.getAttribute('cx')) < 0.01 && Math.abs(q.y - h.getAttribute('cy')) < 0.01);
		    out[p ? p.name : '?'] = Number(h.getAttribute('fill-opacity'));
		  }
		  return out; })()`)
	}
	type shown struct {
		Hidden bool    `json:"hidden"`
		Ply    string  `json:"ply"`
		Text   string  `json:"text"`
		Policy string  `json:"policy"`
		Side   string  `json:"side"`
		Value  *string `json:"value"`
		Bar    string  `json:"bar"`
	}
	at := func(i int) shown {
		t.Helper()
		b.js(fmt.Sprintf(`Watch.stepper.go(%d)`, i))
		return eval[shown](b, `(() => { const v = document.getElementById('w-value');
		  return {hidden: document.getElementById('w-target').hidden, ply: document.getElementById('w-target').dataset.ply,
		    text: v.textContent, policy: document.getElementById('w-policy').textContent, side: v.dataset.side || '',
		    value: v.dataset.value === undefined ? null : v.dataset.value, bar: document.getElementById('w-wdl').getAttribute('aria-label') || ''}; })()`)
	}
	// ends returns the points a policy target's actions end on (rows excluded: the caller skips them)
	ends := func(tg datasets.Target) (map[string]bool, string, bool) {
		pts, best, bestP := map[string]bool{}, "", float32(-1)
		for _, e := range tg.Policy {
			tok := env.Action(e.Action).String()
			if strings.HasPrefix(tok, "x") && strings.Contains(tok, "-") {
				return nil, "", false
			}
			p := strings.TrimPrefix(tok, "x")
			if _, to, ok := strings.Cut(p, "-"); ok {
				p = to
			}
			pts[p] = true
			if e.Prob > bestP {
				best, bestP = p, e.Prob
			}
		}
		return pts, best, true
	}
	keys := func(m map[string]float64) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	s := env.NewState(rec.Variant)
	checked, moves := 0, 0
	for i, a := range rec.Actions {
		tg := rec.Targets[i]
		side := colorName(s.CurrentPlayer())
		got := at(i)
		if got.Hidden || got.Ply != fmt.Sprint(i) {
			t.Fatalf("ply %d: the target box is hidden or shows ply %s", i, got.Ply)
		}
		h := heat()
		if !tg.IsTarget() {
			if len(h) != 0 || !strings.Contains(got.Text, "not a training target") || got.Value != nil {
				t.Fatalf("ply %d (no target): heat %v, text %q, value %v", i, h, got.Text, got.Value)
			}
			s.ApplyAction(a)
			continue
		}
		// the value target: the outcome's WDL mixed with the root WDL (m = 0.25), z alone without one
		v := datasets.ValueFor(rec.Outcome, s.CurrentPlayer())
		want := v[0] - v[2]
		if q := tg.RootWDL; q != [3]float32{} {
			want = 0.75*want + 0.25*(q[0]-q[2])
		}
		var value float64
		if got.Value == nil {
			t.Fatalf("ply %d: no value shown: %q", i, got.Text)
		}
		fmt.Sscan(*got.Value, &value)
		who := map[string]string{"w": "white", "b": "black"}[side]
		if math.Abs(value-float64(want)) > 1e-3 || got.Side != side || !strings.Contains(got.Text, "Value target for "+who+" (to act)") ||
			!strings.HasPrefix(got.Bar, who+"'s view: win") || !strings.Contains(got.Policy, "Policy target") {
			t.Fatalf("ply %d (%s to act, value target %.4f): shown %+v", i, side, want, got)
		}
		if pts, best, ok := ends(tg); ok && len(pts) > 1 {
			if fmt.Sprint(keys(h)) != fmt.Sprint(keys(map[string]float64(func() map[string]float64 {
				m := map[string]float64{}
				for p := range pts {
					m[p] = 1
				}
				return m
			}()))) {
				t.Fatalf("ply %d: heat spots on %v, the policy target's actions end on %v", i, keys(h), pts)
			}
			for p, o := range h {
				if p != best && o >= h[best] {
					t.Fatalf("ply %d: %s is as hot as %s, which has the most probability: %v", i, p, best, h)
				}
			}
			checked++
			if strings.Contains(a.String(), "-") {
				moves++
			}
		}
		if checked >= 12 && moves >= 3 {
			break
		}
		s.ApplyAction(a)
	}
	if checked < 12 || moves < 3 {
		t.Fatalf("only %d plies' heat maps checked, %d of ring moves", checked, moves)
	}
	at(1)
	b.shot("watch-targets.png")
	// the final position has no target; the heat map turned off draws nothing
	if got := at(len(rec.Actions)); !strings.Contains(got.Text, "final position") || len(heat()) != 0 {
		t.Fatalf("the final position: %+v, heat %v", got, heat())
	}
	at(1)
	b.click("#w-heat")
	if h := heat(); len(h) != 0 {
		t.Fatalf("the heat map turned off draws %v", h)
	}
	b.click("#w-heat")
	if h := heat(); len(h) == 0 {
		t.Fatal("the heat map turned back on draws nothing")
	}
	// an SGF game of r1: no targets
	b.js(`(() => { const s = document.getElementById('w-run'); s.value = 'r1'; s.dispatchEvent(new Event('change')); })()`)
	b.waitJS("r1's games", `[...document.querySelectorAll('#w-games td')].some((c) => c.textContent === 'game.sgf')`, `document.getElementById('w-message').textContent`)
	b.js(`[...document.querySelectorAll('#w-games tr')].find((r) => r.cells[0].textContent === 'game.sgf').click()`)
	b.waitJS("the SGF game", `document.getElementById('w-title').textContent.startsWith('game.sgf')`, `document.getElementById('w-title').textContent`)
	if eval[bool](b, `!document.getElementById('w-target').hidden || document.querySelectorAll('#w-board .heatspot').length > 0`) {
		t.Fatal("an SGF game shows a training target")
	}
}
