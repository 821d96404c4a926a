package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserMoveAnimation: on the Play board a ring move, the player's and the agent's, glides the
// ring from its origin to its destination, and the markers it flips turn over (Web Animations on the
// SVG circles, counted through Element.animate); with prefers-reduced-motion: reduce nothing is
// animated. The Sound box is off by default and is remembered across a reload (the click itself,
// WebAudio, is not listened to).
func TestBrowserMoveAnimation(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	b := newBrowser(t, 1280, 900)
	b.open(ts.URL + "/?delay=0#play")
	b.js(`(() => { window.__anims = []; const a0 = Element.prototype.animate;
	  Element.prototype.animate = function (k, o) { window.__anims.push(this.getAttribute('class')); return a0.call(this, k, o); };
	  window.__clicks = 0; const o0 = AudioContext.prototype.createOscillator;
	  AudioContext.prototype.createOscillator = function () { window.__clicks++; return o0.call(this); }; })()`)
	anims := func() []string { return eval[[]string](b, `window.__anims.slice()`) }
	count := func(list []string, prefix string) int {
		n := 0
		for _, c := range list {
			if strings.HasPrefix(c, prefix) {
				n++
			}
		}
		return n
	}

	// sound: off by default
	if got := eval[[]any](b, `[document.getElementById('play-sound').checked, localStorage.getItem('yinsh.sound')]`); got[0] != false || got[1] != nil {
		t.Fatalf("the sound box at first: %v", got)
	}

	b.do("standard", chromedp.SetValue(chromedp.CSS("#ng-variant"), "standard"), chromedp.SetValue(chromedp.CSS("#ng-color"), "white"))
	b.click("#ng-start")
	ready := `Play.game && Play.game.your_turn && !Play.busy`
	// toMove plays the first legal action until it is the human's ring move
	toMove := func() {
		t.Helper()
		for range 40 {
			b.waitJS("the human's turn", `!!(`+ready+` || (Play.game && Play.game.result !== 'ongoing'))`, `document.getElementById('play-status').textContent`)
			if eval[string](b, `Play.game.result`) != "ongoing" {
				t.Skip("the game ended before a ring move") // random play: very unlikely this early
			}
			if eval[string](b, `Play.game.phase`) == "move" {
				return
			}
			if !eval[bool](b, `Play.play([Play.game.legal[0]])`) {
				t.Fatalf("the page refused the human's action: %s", eval[string](b, `document.getElementById('play-message').textContent`))
			}
		}
		t.Fatal("no ring move came")
	}
	moveOnce := func() {
		t.Helper()
		toMove()
		if !eval[bool](b, `window.__anims = []; window.__n = Play.game.moves.length; Play.play([Play.game.legal.find((t) => t.includes('-'))])`) {
			t.Fatalf("the page refused the ring move: %s", eval[string](b, `document.getElementById('play-message').textContent`))
		}
		b.waitJS("the agent's answer", `Play.game.moves.length >= window.__n + 2 && !Play.busy && (Play.game.your_turn || Play.game.result !== 'ongoing')`,
			`JSON.stringify({moves: Play.game.moves.join(' '), from: window.__n, busy: Play.busy, your_turn: Play.game.your_turn, message: document.getElementById('play-message').textContent})`)
		b.waitJS("the animations' end", `document.getAnimations().length === 0`, `''`)
	}
	moveOnce()
	if n := eval[int](b, `window.__clicks`); n != 0 {
		t.Errorf("sound off: %d clicks played", n)
	}
	if got := anims(); count(got, "ring") < 2 {
		t.Errorf("the player's and the agent's ring moves: animations %v, want two ring glides", got)
	}
	// a move over markers: the ring glides, each flipped marker turns (a board of its own)
	flip := `(() => { window.__anims = [];
	  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg'); document.body.append(svg);
	  const bd = new YINSH.Board(svg), at = (n) => YINSH.points.findIndex((p) => p.name === n);
	  const b0 = Array(85).fill('.'), b1 = Array(85).fill('.');
	  b0[at('e4')] = 'W'; b0[at('e5')] = 'b'; b0[at('e6')] = 'b';
	  b1[at('e4')] = 'w'; b1[at('e5')] = 'w'; b1[at('e6')] = 'w'; b1[at('e8')] = 'W';
	  bd.render({ board: b0.join(''), phase: 'move', result: 'ongoing' }, { animate: true });
	  bd.render({ board: b1.join(''), phase: 'move', result: 'ongoing', last: 'e4-e8' }, { animate: true });
	  const n = document.getAnimations().length, c = (e) => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
	  // at its start the glide puts the ring on its origin, at its end on its destination
	  const ring = svg.querySelector('.ring'), ga = ring.getAnimations()[0], near = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]) < 2;
	  const from = c(svg.querySelector('.target[data-point="e4"]')), to = c(svg.querySelector('.target[data-point="e8"]'));
	  let ok = !ga;
	  if (ga) { ga.pause(); ga.currentTime = 0; const a = c(ring); ga.currentTime = 199; const b = c(ring); ok = near(a, from) && near(b, to); }
	  svg.remove(); return ok ? n : -n; })()`
	if n := eval[int](b, flip); n != 3 || count(anims(), "ring") != 1 || count(anims(), "marker") != 2 {
		t.Errorf("a move over two markers: %d animations %v, want a ring glide and two marker flips (negative: the ring does not glide from e4 to e8)", n, anims())
	}
	b.shot("move-animation.png")

	// reduced motion: no animation at all
	b.do("prefers-reduced-motion", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}})
		return err
	}))
	if !eval[bool](b, `matchMedia('(prefers-reduced-motion: reduce)').matches`) {
		t.Fatal("reduced motion is not emulated")
	}
	moveOnce()
	if got := anims(); len(got) > 0 || eval[int](b, `document.getAnimations().length`) > 0 {
		t.Errorf("with reduced motion: animations %v", got)
	}
	if n := eval[int](b, flip); n != 0 || len(anims()) > 0 {
		t.Errorf("with reduced motion, a move over markers: %d animations %v", n, anims())
	}

	// sound: ticked, each action clicks (the player's ring move and the agent's answer at least), and
	// it stays on after a reload (and off again after unticking)
	b.click("#play-sound")
	moveOnce()
	if n := eval[int](b, `window.__clicks`); n < 2 {
		t.Errorf("sound on: %d clicks for a move and its answer, want at least 2", n)
	}
	b.open(ts.URL + "/?delay=0#play")
	if got := eval[[]any](b, `[document.getElementById('play-sound').checked, localStorage.getItem('yinsh.sound')]`); got[0] != true || got[1] != "1" {
		t.Fatalf("the sound box after a reload: %v", got)
	}
	b.click("#play-sound")
	b.open(ts.URL + "/?delay=0#play")
	if eval[bool](b, `document.getElementById('play-sound').checked`) {
		t.Fatal("the sound box unticked comes back ticked")
	}
}
