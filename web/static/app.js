// YINSH Zero web board: play, analyse, watch, dashboard. Talks only to this server's /api.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const AGENT_DELAY = params.has("delay") ? Number(params.get("delay")) : 350; // ms between agent actions
const RUNS_POLL = params.has("poll") ? Number(params.get("poll")) : 5000; // ms between run list refreshes
const GAME_KEY = "yinsh.game"; // local storage: the id of the game in play, resumed on a reload
const SOUND_KEY = "yinsh.sound"; // local storage: "1" when Play's sound is on (off by default)

async function api(method, path, body, signal) {
  const opts = { method, headers: {}, signal };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await (window.yinshFetch || fetch)(path, opts);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
  if (!res.ok) throw new Error((data && data.error) || res.status + " " + res.statusText);
  return data;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// say shows a message: kind "error" (red) or "info"
function say(el, text, kind) {
  el.textContent = text || "";
  el.classList.toggle("error", !!text && kind !== "info");
  el.classList.toggle("info", !!text && kind === "info");
}

// tokens fills el with a label and action tokens, each one unbreakable (lines break between them)
function tokens(el, label, toks) {
  el.replaceChildren();
  if (!toks.length) return;
  el.append(label);
  for (const t of toks) {
    const s = document.createElement("span");
    s.className = "tok";
    s.textContent = t;
    el.append(" ", s);
  }
}
const colorWord = (c) => (c === "w" ? "white" : "black");
const phaseWord = { place: "place a ring", move: "move a ring", "remove-row": "remove one of your rows", "remove-ring": "remove one of your rings" };

const other = (c) => (c === "w" ? "b" : "w");

// actorsOf says who played each action of a game from the start, from the tokens alone: placements
// alternate from white; a ring move is by its ring's owner and a pass by the side after the last
// mover; a ring removal by the ring's owner; a row removal by the owner of the ring removed right
// after it (toAct, the side to act now, for a row whose ring is still to come).
function actorsOf(moves, toAct) {
  const rings = {}; // point → colour of the ring on it
  let mover = "b"; // who made the last placement, ring move or pass
  return moves.map((tok, i) => {
    const t = YINSH.parseToken(tok);
    switch (t && t.kind) {
      case "place": mover = other(mover); rings[t.at] = mover; return mover;
      case "move": mover = rings[t.from] || other(mover); delete rings[t.from]; rings[t.to] = mover; return mover;
      case "pass": mover = other(mover); return mover;
      case "ring": { const c = rings[t.at] || mover; delete rings[t.at]; return c; }
      case "row": {
        const n = i + 1 < moves.length ? YINSH.parseToken(moves[i + 1]) : null;
        return n && n.kind === "ring" && rings[n.at] ? rings[n.at] : i + 1 === moves.length && toAct ? toAct : mover;
      }
      default: return mover;
    }
  });
}

// moveList fills el with the numbered move list: a turn is one player's actions in a row (a ring
// move with the rows and rings it removes, or the rows the opponent's move gave them), and each
// numbered line holds white's turn and black's after it. actors[i] is who played moves[i]; the
// action that leads to ply cur is marked; a click on an action calls pick with the ply after it.
function moveList(el, moves, actors, cur, pick, notes) {
  el.replaceChildren();
  const turns = [];
  moves.forEach((tok, i) => {
    const t = turns[turns.length - 1];
    if (t && t.color === actors[i]) t.acts.push(i);
    else turns.push({ color: actors[i], acts: [i] });
  });
  let line = null, n = 0, mark = null;
  const cell = (cls, text) => {
    const d = document.createElement("span");
    d.className = cls;
    if (text) d.textContent = text;
    el.append(d, " ");
    return d;
  };
  for (const t of turns) {
    if (!line || t.color === "w" || line.b) {
      n++;
      line = { num: cell("ml-num", n + "."), w: null, b: null };
      if (t.color === "b") line.w = cell("ml-turn ml-w ml-empty", "…");
    }
    const c = cell("ml-turn ml-" + t.color);
    c.dataset.turn = String(n);
    c.dataset.color = t.color;
    c.title = (t.color === "w" ? "white" : "black") + "'s turn " + n;
    t.acts.forEach((i) => {
      const a = document.createElement("button");
      a.type = "button";
      a.className = "mv tok";
      a.dataset.ply = String(i + 1);
      a.textContent = moves[i];
      if (notes && notes[i]) { a.classList.add(notes[i]); a.append(NOTE_SIGN[notes[i]]); a.title = notes[i]; }
      if (i + 1 === cur) { a.classList.add("cur"); a.setAttribute("aria-current", "step"); mark = a; }
      if (pick) a.addEventListener("click", () => pick(i + 1));
      c.append(a, " ");
    });
    line[t.color] = c;
  }
  // keep the marked action in sight, scrolling the list only (not the page)
  if (mark && el.scrollHeight > el.clientHeight) {
    const top = mark.offsetTop, h = mark.offsetHeight; // the list is the mark's offset parent
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + h > el.scrollTop + el.clientHeight) el.scrollTop = top + h - el.clientHeight;
  }
}

// the marks of moves by the win chance they cost their mover (Analyse game)
const NOTE_SIGN = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const NOTE_AT = [[0.3, "blunder"], [0.2, "mistake"], [0.1, "inaccuracy"]];

// boardInfo fills el, the bar over a board, with both sides: the rings each has removed as a tray
// (the score: 3 to win, blitz 1), and which side acts now and what it does, or the result.
function boardInfo(el, view, variant) {
  el.replaceChildren();
  if (!view) return;
  const need = variant === "blitz" ? 1 : 3;
  const over = view.result && view.result !== "ongoing";
  el.dataset.toAct = over ? "" : view.to_act;
  [["w", 0], ["b", 1]].forEach(([c, k]) => {
    const side = document.createElement("div");
    const acts = !over && view.to_act === c, won = over && view.result === (c === "w" ? "white" : "black");
    side.className = "side side-" + c + (acts ? " to-act" : "") + (won ? " won" : "");
    side.dataset.color = c;
    const name = document.createElement("span");
    name.className = "side-name";
    name.textContent = c === "w" ? "White" : "Black";
    const tray = svgEl("svg", { class: "tray", viewBox: "0 0 " + (need * 22 + 2) + " 24", role: "img",
      "aria-label": colorWord(c) + " has removed " + view.rings_removed[k] + " of " + need + " rings" });
    for (let j = 0; j < need; j++) {
      const got = j < view.rings_removed[k];
      svgEl("circle", { cx: 12 + 22 * j, cy: 12, r: 8, class: got ? "tray-ring ring-" + c : "tray-slot", "data-removed": got ? "1" : "0" }, tray);
    }
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = view.rings_removed[k] + "/" + need;
    const tag = document.createElement("span");
    tag.className = "side-tag";
    tag.textContent = acts ? "▶ to act: " + (phaseWord[view.phase] || view.phase) : won ? "wins" : over && view.result === "draw" ? "draw" : "";
    side.append(name, tray, score, tag);
    el.appendChild(side);
  });
}

function resultText(view) {
  if (view.result === "ongoing") return "";
  if (view.result === "draw") return "Draw.";
  const winner = view.result;
  const you = view.you === (winner === "white" ? "w" : "b");
  if (view.timeout) return (view.timeout === view.you ? "you lost on time; " : "the agent lost on time; ") + winner + " wins.";
  if (view.resigned) return (view.resigned === view.you ? "you resigned; " : colorWord(view.resigned) + " resigned; ") + winner + " wins.";
  return (winner === "white" ? "White" : "Black") + " wins" + (view.you ? (you ? " — you win!" : " — the agent wins.") : ".");
}

// ---------- tabs

// the views other than play are built on first show, to keep the page's load short
const views = () => ({ analyse: Analyse, watch: Watch, dashboard: Dash });
const built = {};
const TABS = ["play", "analyse", "watch", "dashboard"];
let currentTab = "";

// showTab shows a page (built on first show); the address's #tab follows it
function showTab(name) {
  const v = views()[name];
  if (v && !built[name]) { built[name] = true; v.init(); }
  currentTab = name;
  if (name !== "analyse" && built.analyse) Analyse.stopLive(); // no live search for a page out of sight
  for (const s of document.querySelectorAll(".page")) s.hidden = s.id !== name;
  for (const b of document.querySelectorAll(".tab")) {
    b.classList.toggle("active", b.dataset.tab === name);
    b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
    b.tabIndex = b.dataset.tab === name ? 0 : -1; // one tab in the tab order; ← → move between them
  }
  refreshRuns();
}

// tabKeys: on a focused tab, ← → go to the tab before or after (round), Home and End to the first
// and last, each opened and focused (the WAI-ARIA tabs pattern); the board's keys do not see them
function tabKeys(e) {
  const k = TABS.indexOf(e.target.dataset && e.target.dataset.tab);
  if (k < 0 || e.ctrlKey || e.metaKey || e.altKey) return;
  const to = { ArrowLeft: (k + TABS.length - 1) % TABS.length, ArrowRight: (k + 1) % TABS.length, Home: 0, End: TABS.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  e.stopPropagation();
  openTab(TABS[to]);
  $("tab-" + TABS[to]).focus();
}

// announce adds a line to a live region of role log (kept to its last 8 lines) or, for any other
// live region, replaces its text: what a screen reader says of the moves and results
function announce(el, text) {
  if (!text) return;
  if (el.getAttribute("role") !== "log") { el.textContent = text; return; }
  const p = document.createElement("p");
  p.textContent = text;
  el.append(p);
  while (el.children.length > 8) el.firstElementChild.remove();
}
const Colour = (c) => (c === "w" ? "White" : "Black");

// openTab shows a page as a new history entry, so Back returns to the page before (Play's address
// names its game: #play/ID)
function openTab(name) {
  const h = "#" + (name === "play" && Play.game ? "play/" + Play.game.id : name);
  if (location.hash !== h) history.pushState(null, "", location.pathname + location.search + h);
  showTab(name);
}

// the page the address names (#watch, #play/ID), on load, on Back and Forward, and when it is edited
function tabOfAddress() {
  const t = location.hash.slice(1).split("/")[0];
  return TABS.includes(t) ? t : "play";
}

// the game the address names (#play/ID), or ""
function gameOfAddress() {
  const m = /^#play\/([^/]+)$/.exec(location.hash);
  return m ? m[1] : "";
}

function followAddress() {
  const t = tabOfAddress();
  if (t !== currentTab) showTab(t);
  const id = gameOfAddress();
  if (id && (!Play.game || Play.game.id !== id)) Play.resume(id);
}

// the run lists of watch and dashboard, refreshed while one of them is shown (new runs, new
// generations: the lists name each run's count)
function refreshRuns() {
  if (currentTab === "watch") Watch.refreshRuns();
  if (currentTab === "dashboard") Dash.refreshRuns();
}

// ---------- play

const Play = {
  board: null, game: null, selected: null, busy: false,
  gen: 0, // the game's generation: a new game or an undo makes answers to earlier requests stale

  init() {
    this.board = new YINSH.Board($("play-board"));
    this.board.onPoint((p) => this.click(p));
    this.board.onRow((tok) => this.play([tok]));
    $("new-game").addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
    $("play-undo").addEventListener("click", () => this.undo());
    $("play-resign").addEventListener("click", () => this.resign());
    $("play-pass").addEventListener("click", () => this.play(["pass"]));
    $("play-keys").addEventListener("submit", (e) => {
      e.preventDefault();
      const toks = $("play-tokens").value.trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
      if (toks.length) this.play(toks).then((ok) => { if (ok) $("play-tokens").value = ""; });
    });
    $("play-to-analyse").addEventListener("click", () => this.toAnalyse());
    try { $("play-sound").checked = localStorage.getItem(SOUND_KEY) === "1"; } catch (e) { /* storage off: sound off */ }
    $("play-sound").addEventListener("change", () => {
      try { localStorage.setItem(SOUND_KEY, $("play-sound").checked ? "1" : "0"); } catch (e) { /* not remembered */ }
    });
    this.render();
  },

  message(text, kind) { say($("play-message"), text, kind); },

  // why the human cannot act now ("" if they can)
  blocked(what) {
    const g = this.game;
    if (!g) return "Start a game first (New game).";
    if (g.result !== "ongoing") return "The game is over: start a new game (New game), or analyse this one.";
    if (this.busy || !g.your_turn) return "The agent (" + g.agent + ") is thinking: " + what + " once it has moved.";
    return "";
  },

  // show makes g the game in play (a new, resumed or changed one): its id goes into the address
  // (#play/ID, a new history entry for a new game) and into local storage
  show(g, isNew) {
    this.game = g;
    if (currentTab === "play" && location.hash !== "#play/" + g.id) {
      const url = location.pathname + location.search + "#play/" + g.id;
      if (isNew) history.pushState(null, "", url); else history.replaceState(null, "", url);
    }
    $("dl-tokens").href = "/api/games/" + g.id + "/tokens";
    $("dl-sgf").href = "/api/games/" + g.id + "/sgf";
    $("ng-variant").value = g.variant;
    $("ng-color").value = colorWord(g.you);
    if (g.player && [...$("ng-player").options].some((o) => o.value === g.player)) $("ng-player").value = g.player;
    try { localStorage.setItem(GAME_KEY, g.id); } catch (e) { /* storage off: no resume */ }
  },

  async start() {
    this.message("");
    // a new generation: the agent loop of the game before stops, its answers are dropped
    const gen = ++this.gen;
    this.busy = false;
    $("play-board").dataset.busy = "0";
    this.resetResign();
    let g;
    try {
      const req = { variant: $("ng-variant").value, color: $("ng-color").value };
      if ($("ng-player").value) req.player = $("ng-player").value;
      const clk = /^(\d+(?:\.\d+)?)\+(\d+(?:\.\d+)?)$/.exec($("ng-clock").value);
      if (clk) req.clock = { base: Number(clk[1]), increment: Number(clk[2]) };
      g = await api("POST", "/api/games", req);
    } catch (e) { if (gen === this.gen) this.message(e.message); return; }
    if (gen !== this.gen) return;
    this.show(g, true);
    this.selected = null;
    this.render();
    this.agentLoop();
  },

  // resume takes up the game the address names (#play/ID, a shared link) or else the one of the
  // last visit (local storage), which the server keeps (on disk across its restarts, with a
  // bound); one it no longer has gives way to a new game, with a note
  async resume(id) {
    const fromAddress = id || gameOfAddress();
    if (!fromAddress) { try { id = localStorage.getItem(GAME_KEY); } catch (e) { return; } }
    else id = fromAddress;
    if (!id) return;
    const gen = ++this.gen;
    this.busy = false;
    $("play-board").dataset.busy = "0";
    let g = null;
    if (/^[0-9a-f]{24}$/.test(id)) {
      try { g = await api("GET", "/api/games/" + id); } catch (e) { g = null; }
    }
    if (gen !== this.gen) return; // a game was started meanwhile
    if (!g) {
      try { if (localStorage.getItem(GAME_KEY) === id) localStorage.removeItem(GAME_KEY); } catch (e2) { /* nothing to forget */ }
      await this.start();
      this.message("The game " + id.slice(0, 8) + " is no longer on the server: a new game started.", "info");
      return;
    }
    this.show(g);
    this.selected = null;
    this.message("Resumed your game " + id.slice(0, 8) + " (" + g.moves.length + " actions).", "info");
    this.render();
    this.agentLoop();
  },

  // the agent plays while it is its turn, each action drawn as it comes; a new game or an undo
  // (a new generation) ends the loop, and the answer it was waiting for is dropped
  async agentLoop() {
    if (this.busy) return;
    const gen = this.gen;
    this.busy = true;
    $("play-board").dataset.busy = "1";
    try {
      while (gen === this.gen && this.game && this.game.result === "ongoing" && !this.game.your_turn) {
        this.status("The agent (" + this.game.agent + ") is thinking…");
        const g = await api("POST", "/api/games/" + this.game.id + "/agent");
        if (gen !== this.gen) return;
        this.game = g;
        this.render();
        if (AGENT_DELAY > 0 && g.result === "ongoing" && !g.your_turn) await sleep(AGENT_DELAY);
      }
    } catch (e) {
      if (gen === this.gen) {
        this.message(e.message);
        // the server's game as it is now (a flag may have fallen meanwhile)
        try { const g = await api("GET", "/api/games/" + this.game.id); if (gen === this.gen) this.game = g; } catch (e2) { /* keep the last */ }
      }
    }
    if (gen !== this.gen) return;
    this.busy = false;
    $("play-board").dataset.busy = "0";
    this.render();
  },

  // play sends the human's actions; until the answer (and then the agent's) the page is busy, so a
  // second click or a script meanwhile is told to wait instead of acting on the game before this
  // action (still your_turn), which the server would refuse as played in the agent's turn
  async play(toks) {
    const why = this.blocked("play");
    if (why) { this.message(why, "info"); return false; }
    this.message("");
    const gen = this.gen;
    this.busy = true;
    $("play-board").dataset.busy = "1";
    let g;
    try {
      g = await api("POST", "/api/games/" + this.game.id + "/play", { actions: toks });
    } catch (e) {
      if (gen === this.gen) { this.busy = false; $("play-board").dataset.busy = "0"; this.message(e.message); this.render(); }
      return false;
    }
    if (gen !== this.gen) return false; // a new game, an undo or a resignation meanwhile (it reset busy)
    this.game = g;
    this.selected = null;
    // not busy for a moment: agentLoop takes over at once (no await between), or it is your turn again
    this.busy = false;
    $("play-board").dataset.busy = "0";
    this.render();
    this.agentLoop();
    return true;
  },

  async undo() {
    const g0 = this.game; // undo works after the end too: take back the last decision, play on
    if (!g0) { this.message("Start a game first (New game).", "info"); return; }
    if (this.busy) { this.message(this.blocked("undo"), "info"); return; }
    if (!g0.moves.length) { this.message("Nothing to undo yet.", "info"); return; }
    if (g0.clock) { this.message("No undo in a game on the clock.", "info"); return; }
    const gen = ++this.gen;
    let g;
    try { g = await api("POST", "/api/games/" + g0.id + "/undo"); } catch (e) { if (gen === this.gen) this.message(e.message); return; }
    if (gen !== this.gen) return;
    this.game = g;
    this.message("");
    this.selected = null;
    this.render();
    this.agentLoop();
  },

  // resign asks once more (the button says "Really resign?" for a few seconds), then ends the
  // game, during the agent's turn too (its loop stops; the server lets its action finish first)
  async resign() {
    const g0 = this.game, btn = $("play-resign");
    if (!g0) { this.message("Start a game first (New game).", "info"); return; }
    if (g0.result !== "ongoing") { this.message("The game is over already.", "info"); return; }
    clearTimeout(this.resignTimer);
    if (btn.dataset.confirm !== "1") {
      btn.dataset.confirm = "1";
      btn.textContent = "Really resign?";
      this.message("Click “Really resign?” to resign: the agent wins this game.", "info");
      this.resignTimer = setTimeout(() => this.resetResign(), 5000);
      return;
    }
    this.resetResign();
    const gen = ++this.gen;
    this.busy = false;
    $("play-board").dataset.busy = "0";
    let g;
    try { g = await api("POST", "/api/games/" + g0.id + "/resign"); } catch (e) {
      if (gen !== this.gen) return;
      this.message(e.message);
      try { this.game = await api("GET", "/api/games/" + g0.id); } catch (e2) { return; }
      this.render();
      this.agentLoop();
      return;
    }
    if (gen !== this.gen) return;
    this.game = g;
    this.selected = null;
    this.message("");
    this.render();
  },

  resetResign() {
    const btn = $("play-resign");
    btn.dataset.confirm = "0";
    btn.textContent = "Resign";
  },

  legal() { return this.game && this.game.your_turn && !this.busy ? this.game.legal : []; },

  click(p) {
    const g = this.game;
    const why = this.blocked("play");
    if (why) { this.message(why, "info"); return; }
    const legal = this.legal();
    switch (g.phase) {
      case "place":
        if (legal.includes(p)) this.play([p]);
        break;
      case "move":
        if (this.selected && legal.includes(this.selected + "-" + p)) { this.play([this.selected + "-" + p]); return; }
        this.selected = legal.some((t) => t.startsWith(p + "-")) ? (this.selected === p ? null : p) : null;
        this.render();
        break;
      case "remove-ring":
        if (legal.includes("x" + p)) this.play(["x" + p]);
        break;
    }
  },

  status(text) { $("play-status").textContent = text; },

  // clickSound plays a short click (WebAudio, no audio file) when the Sound box is ticked: one per action
  // that came since the last render (named apart from click, a point clicked, and tick, the clocks' display)
  clickSound(n) {
    if (!$("play-sound").checked || !n) return;
    const AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return;
    try {
      const ctx = this.audio = this.audio || new AC();
      for (let k = 0; k < Math.min(n, 4); k++) {
        const t = ctx.currentTime + 0.09 * k, o = ctx.createOscillator(), g = ctx.createGain();
        o.type = "triangle";
        o.frequency.value = 1100;
        g.gain.setValueAtTime(0.15, t);
        g.gain.exponentialRampToValueAtTime(0.001, t + 0.05);
        o.connect(g).connect(ctx.destination);
        o.start(t);
        o.stop(t + 0.06);
      }
    } catch (e) { /* no sound */ }
  },

  // say announces what changed since the last announcement: a new or resumed game, each action
  // since (who played it), an undo, the result, and when it is the human's turn
  say(g) {
    const prev = this.said && this.said.id === g.id ? this.said : null;
    const your = g.result === "ongoing" && g.your_turn && !this.busy;
    if (prev && prev.n === g.moves.length && prev.result === g.result && prev.your === your) return;
    const out = [];
    if (!prev) out.push(g.moves.length ? "Game " + g.id.slice(0, 8) + ", " + g.moves.length + " actions played: you play " + colorWord(g.you) + "." :
      "New game: you play " + colorWord(g.you) + " against " + g.agent + ".");
    else if (g.moves.length < prev.n) out.push("Took back " + (prev.n - g.moves.length) + " actions.");
    else {
      const by = actorsOf(g.moves, g.to_act);
      for (let i = prev.n; i < g.moves.length; i++) out.push(Colour(by[i]) + " played " + g.moves[i] + ".");
    }
    if (g.result !== "ongoing") { if (!prev || prev.result !== g.result) out.push("Game over: " + resultText(g)); }
    else if (your) out.push("Your turn: " + phaseWord[g.phase] + ".");
    this.said = { id: g.id, n: g.moves.length, result: g.result, your };
    announce($("play-announce"), out.join(" "));
  },

  render() {
    const g = this.game;
    if (!g) { this.board.render(null); boardInfo($("play-info"), null); $("play-clocks").hidden = true; return; }
    this.say(g);
    const legal = this.legal();
    const marks = { hints: [], rows: [], selected: this.selected, animate: true };
    // actions since the last render of this game: a click each (after a new game or an undo, none)
    const seen = this.seen && this.seen.id === g.id ? this.seen.n : g.moves.length;
    if (g.moves.length > seen) this.clickSound(g.moves.length - seen);
    this.seen = { id: g.id, n: g.moves.length };
    if (g.phase === "place") marks.hints = legal.filter((t) => !t.includes("-") && t !== "pass");
    if (g.phase === "move") {
      if (this.selected) marks.hints = legal.filter((t) => t.startsWith(this.selected + "-")).map((t) => t.split("-")[1]);
      else marks.hints = [...new Set(legal.filter((t) => t.includes("-")).map((t) => t.split("-")[0]))];
    }
    if (g.phase === "remove-ring") marks.hints = legal.map((t) => t.slice(1));
    if (g.phase === "remove-row") marks.rows = legal.filter((t) => t.startsWith("x") && t.includes("-"));
    this.board.render(g, marks);
    // the rows to remove also as buttons (overlapping rows of six or more in a line are easier to
    // tell apart by name), and what the row marks mean
    const rowBox = $("play-rows");
    rowBox.replaceChildren();
    if (marks.rows.length) {
      rowBox.append("Remove a row: ");
      for (const tok of marks.rows) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "row-button";
        b.dataset.action = tok;
        b.textContent = tok.slice(1);
        b.addEventListener("click", () => this.play([tok]));
        rowBox.append(b, " ");
      }
    }
    const legend = [];
    if ((g.fours || []).length) legend.push("dotted line: white's row of four, dashed: black's (the circle is the point that makes it five)");
    if (marks.rows.length) legend.push("solid bar with square ends: a row you may remove (click it)");
    $("play-legend").textContent = legend.join(" · ");
    $("play-board").dataset.yourTurn = g.your_turn ? "1" : "0";
    $("play-pass").hidden = !legal.includes("pass");
    const head = "You play " + colorWord(g.you) + " against " + g.agent + " (" + g.variant + "). Rings removed: white " + g.rings_removed[0] + ", black " + g.rings_removed[1] + "; markers in the pool " + g.markers_in_pool + ". ";
    if (g.result !== "ongoing") this.status(head + "Game over: " + resultText(g));
    else if (g.your_turn) this.status(head + "Your turn: " + phaseWord[g.phase] + (g.phase === "move" && this.selected ? " (ring " + this.selected + " selected)" : "") + ".");
    else this.status(head + "The agent's turn.");
    $("play-status").dataset.result = g.result;
    const av = g.agent_view;
    const box = $("play-agent");
    box.replaceChildren();
    if (av) {
      const p = document.createElement("p");
      let t = "Agent played " + av.action + " (" + av.time_ms.toFixed(0) + " ms)";
      if (av.wdl) t += " — its view: win " + pct(av.wdl[0]) + ", draw " + pct(av.wdl[1]) + ", loss " + pct(av.wdl[2]);
      if (av.top && av.top.length > 1) {
        // the move played first among those searched as much (the server lists it so; kept here
        // for answers that do not)
        const top = av.top.slice();
        const i = top.findIndex((s) => s.action === av.action);
        if (i > 0 && top[i].visits >= top[0].visits) top.unshift(...top.splice(i, 1));
        t += "; considered " + top.map((s) => s.action + " (" + s.visits + ")").join(", ");
      }
      p.textContent = t;
      box.appendChild(p);
    }
    boardInfo($("play-info"), g, g.variant);
    this.clockFrom(g);
    moveList($("play-moves"), g.moves, actorsOf(g.moves, g.to_act), g.moves.length, (ply) => this.toAnalyse(ply));
  },

  // clockFrom takes the clocks of a game answer: the side to act's ticks from the answer's arrival
  clockFrom(g) {
    if (this.clockGame === g) return;
    this.clockGame = g;
    this.clockAt = performance.now();
    const box = $("play-clocks");
    box.hidden = !g.clock;
    clearInterval(this.clockTimer);
    this.clockTimer = 0;
    if (!g.clock) return;
    this.tick();
    if (g.clock.running) this.clockTimer = setInterval(() => this.tick(), 100);
  },

  // tick shows both clocks; when the side to act's reaches zero the server is asked for its
  // verdict (it decides whether the flag fell)
  tick() {
    const g = this.clockGame, c = g && g.clock;
    if (!c) return;
    const gone = performance.now() - this.clockAt;
    for (const side of ["w", "b"]) {
      const el = $("clock-" + side);
      const ms = Math.max(0, (side === "w" ? c.white_ms : c.black_ms) - (c.running === side ? gone : 0));
      el.textContent = clockText(ms);
      el.dataset.label = side === "w" ? "White" : "Black";
      el.dataset.ms = String(Math.round(ms));
      el.classList.toggle("running", c.running === side);
      el.classList.toggle("low", ms < 10000 && c.running === side);
      el.classList.toggle("flagged", c.flagged === side);
      el.setAttribute("aria-label", colorWord(side) + "'s clock: " + clockText(ms) + (c.flagged === side ? ", lost on time" : ""));
      if (c.running === side && ms <= 0 && !this.flagAsk) this.askFlag(g);
    }
  },

  async askFlag(g0) {
    this.flagAsk = true;
    let g = null;
    try { g = await api("GET", "/api/games/" + g0.id); } catch (e) { /* asked again on the next tick */ }
    setTimeout(() => { this.flagAsk = false; }, 300);
    if (!g || !this.game || this.game.id !== g.id || this.clockGame !== g0) return;
    if (g.result !== "ongoing") { ++this.gen; this.busy = false; $("play-board").dataset.busy = "0"; }
    this.game = g;
    this.render();
  },

  // toAnalyse opens this game on the analysis board, at ply (the end without one)
  toAnalyse(ply) {
    if (!this.game) return;
    $("an-input").value = this.game.moves.join(" ");
    $("an-variant").value = this.game.variant;
    openTab("analyse");
    Analyse.load(ply);
  },
};

// clockText: m:ss, and tenths under ten seconds
function clockText(ms) {
  if (ms < 10000) return (Math.floor(ms / 100) / 10).toFixed(1);
  const s = Math.floor(ms / 1000);
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

const pct = (x) => (100 * x).toFixed(0) + "%";

// ---------- a position stepper shared by analyse and watch

class Stepper {
  constructor(board, prefix, onChange) {
    this.board = board; this.prefix = prefix; this.plies = []; this.moves = []; this.i = 0; this.onChange = onChange;
    $(prefix + "-first").addEventListener("click", () => this.go(0));
    $(prefix + "-prev").addEventListener("click", () => this.go(this.i - 1));
    $(prefix + "-next").addEventListener("click", () => this.go(this.i + 1));
    $(prefix + "-last").addEventListener("click", () => this.go(this.plies.length - 1));
    $(prefix + "-flip").addEventListener("click", () => this.flip());
  }
  flip() { this.board.flip(); $(this.prefix + "-flip").setAttribute("aria-pressed", this.board.flipped ? "true" : "false"); }
  set(replay, at) {
    this.plies = replay.plies; this.moves = replay.moves; this.variant = replay.variant;
    this.go(at === undefined ? this.plies.length - 1 : at);
  }
  current() { return this.plies[this.i]; }
  go(i) {
    if (!this.plies.length) return;
    this.i = Math.max(0, Math.min(this.plies.length - 1, i));
    $(this.prefix + "-ply").textContent = "ply " + this.i + "/" + (this.plies.length - 1) + (this.i > 0 ? " · " + this.moves[this.i - 1] : "");
    if (this.onChange) this.onChange(this.current()); else this.board.render(this.current());
    boardInfo($(this.prefix + "-info"), this.current(), this.variant);
    // the ply, who played what to reach it (and where it stands among the variations), the result
    const v = this.current(), n = this.plies.length - 1;
    let said = "Ply " + this.i + " of " + n + (this.i > 0 ? ": " + Colour(this.plies[this.i - 1].to_act) + " played " + this.moves[this.i - 1] : ": the start");
    if (this.where) said += this.where();
    said += ".";
    if (v.result && v.result !== "ongoing") said += " Game over: " + (v.result === "draw" ? "draw." : Colour(v.result[0]) + " wins.");
    if ($(this.prefix + "-announce")) announce($(this.prefix + "-announce"), said);
    if (this.list) this.list(this.i);
    else moveList($(this.prefix + "-moves"), this.moves, this.plies.slice(0, this.moves.length).map((p) => p.to_act), this.i, (ply) => this.go(ply));
  }
}

// ---------- analyse

const Analyse = {
  cache: new Map(), // position text → the last analysis of it, drawn whenever the stepper is there
  seq: 0,
  init() {
    this.board = new YINSH.Board($("an-board"));
    // only the points of legal actions take clicks: the candidates' numbers show on hover elsewhere
    $("an-board").classList.add("view-only");
    this.stepper = new Stepper(this.board, "an", (v) => { this.node = this.line[this.stepper.i]; this.selected = null; this.follow(v); this.draw(v); });
    this.stepper.list = () => this.list();
    this.stepper.where = () => {
      const n = this.node, ks = n && n.parent ? n.parent.kids : [];
      return ks.length > 1 ? ", variation " + (ks.indexOf(n) + 1) + " of " + ks.length + " at this ply" : "";
    };
    this.board.onPoint((p) => this.click(p));
    this.board.onRow((tok) => this.move(tok));
    // the PV: hovering an action shows the position after it, a click plays the PV up to it
    const pv = $("an-pv");
    pv.addEventListener("mouseover", (e) => { const b = e.target.closest(".pv-tok"); if (b) this.showPreview(b.pv, Number(b.dataset.k)); });
    pv.addEventListener("mouseleave", () => this.endPreview());
    pv.addEventListener("focusin", (e) => { const b = e.target.closest(".pv-tok"); if (b) this.showPreview(b.pv, Number(b.dataset.k)); });
    pv.addEventListener("focusout", () => this.endPreview());
    pv.addEventListener("click", (e) => { const b = e.target.closest(".pv-tok"); if (b) this.playPV(b.pv, Number(b.dataset.k)); });
    $("an-load").addEventListener("click", () => this.load());
    $("an-go").addEventListener("click", () => { this.stopLive(); this.analyse(); });
    $("an-live").addEventListener("click", () => (this.live ? this.stopLive() : this.startLive()));
    $("an-game").addEventListener("click", () => this.analyseGame());
    $("an-promote").addEventListener("click", () => this.promote());
    $("an-delete").addEventListener("click", () => this.deleteNode());
    $("an-heat").addEventListener("change", () => this.draw(this.stepper.current()));
    this.board.render(null);
  },
  message(t, kind) { say($("an-message"), t, kind); },

  // load replays the input onto the stepper, at ply at (the end without one)
  async load(at) {
    this.message("");
    const text = $("an-input").value.trim();
    const body = { variant: $("an-variant").value };
    if (text.startsWith("(")) { body.sgf = text; delete body.variant; }
    else if (/^[.WBwb]{85}\s/.test(text)) body.position = text;
    else body.tokens = text;
    try {
      const r = await api("POST", "/api/replay", body);
      this.setTree(r, at);
    } catch (e) { this.message(e.message); }
  },

  // ---- the variation tree: nodes {tok, view, parent, kids}; kids[0] is the main continuation.
  // The stepper walks the current line: the path from the root to the current node, then on
  // along the first continuations.
  line: [],
  setTree(r, at) {
    this.variant = r.variant;
    this.nodes = 0;
    this.root = this.newNode(null, r.plies[0], null);
    let n = this.root;
    r.moves.forEach((tok, i) => { n = this.newNode(tok, r.plies[i + 1], n); });
    const main = this.lineOf(this.root);
    this.goNode(main[at === undefined ? main.length - 1 : Math.max(0, Math.min(main.length - 1, at))]);
  },
  newNode(tok, view, parent) {
    const n = { id: ++this.nodes, tok, view, parent, kids: [] };
    if (parent) parent.kids.push(n);
    return n;
  },
  path(n) { const out = []; for (; n; n = n.parent) out.unshift(n); return out; },
  lineOf(n) { const out = this.path(n); for (n = n.kids[0]; n; n = n.kids[0]) out.push(n); return out; },
  goNode(n) {
    this.line = this.lineOf(n);
    this.stepper.set({ plies: this.line.map((x) => x.view), moves: this.line.slice(1).map((x) => x.tok), variant: this.variant }, this.path(n).length - 1);
  },
  // move plays tok from the current node: to its child of that action, or into a new variation
  async move(tok) {
    const n = this.node;
    if (!n) return;
    this.selected = null;
    const known = n.kids.find((k) => k.tok === tok);
    if (known) { this.goNode(known); return; }
    const seq = this.moveSeq = (this.moveSeq || 0) + 1;
    let r;
    try {
      r = await api("POST", "/api/replay", { position: this.root.view.position, variant: this.variant, moves: this.path(n).slice(1).map((x) => x.tok).concat([tok]) });
    } catch (e) { if (seq === this.moveSeq) this.message(e.message); return; }
    if (seq !== this.moveSeq || this.node !== n) return; // the board moved on meanwhile
    this.goNode(n.kids.find((k) => k.tok === tok) || this.newNode(tok, r.plies[r.plies.length - 1], n));
  },
  // promote makes the line through the current node the main line (each node on its path the
  // first continuation of its parent)
  promote() {
    for (let n = this.node; n && n.parent; n = n.parent) {
      const ks = n.parent.kids;
      ks.splice(ks.indexOf(n), 1);
      ks.unshift(n);
    }
    if (this.node) this.goNode(this.node);
  },
  // sibling goes to the variation d places after (1) or before (-1) the current node among its
  // parent's continuations (the main one first); nothing past either end
  sibling(d) {
    const n = this.node;
    if (!n || !n.parent) return;
    const ks = n.parent.kids, j = ks.indexOf(n) + d;
    if (j >= 0 && j < ks.length) this.goNode(ks[j]);
  },
  // deleteNode removes the current node and all that follows it; the board goes to its parent
  deleteNode() {
    const n = this.node;
    if (!n || !n.parent) return;
    n.parent.kids.splice(n.parent.kids.indexOf(n), 1);
    this.goNode(n.parent);
  },
  legal() { const v = this.node && this.node.view; return v && v.result === "ongoing" ? v.legal || [] : []; },
  click(p) {
    const v = this.node && this.node.view, legal = this.legal();
    if (!legal.length) return;
    switch (v.phase) {
      case "place": if (legal.includes(p)) this.move(p); break;
      case "move":
        if (this.selected && legal.includes(this.selected + "-" + p)) { this.move(this.selected + "-" + p); return; }
        this.selected = legal.some((t) => t.startsWith(p + "-")) ? (this.selected === p ? null : p) : null;
        this.draw(v);
        break;
      case "remove-ring": if (legal.includes("x" + p)) this.move("x" + p); break;
    }
  },
  // ---- the whole game: every ply of the main line searched with the board's budget, the win
  // chance graph and the marks of the moves that cost their mover win chance
  // whiteWin is White's win chance at node n: win + draw/2 of its analysis, or its result
  whiteWin(n) {
    const v = n.view;
    if (v.result === "white") return 1;
    if (v.result === "black") return 0;
    if (v.result === "draw") return 0.5;
    const r = this.cache.get(v.position);
    if (!r || !r.wdl) return null;
    const p = r.wdl[0] + r.wdl[1] / 2;
    return r.side === "w" ? p : 1 - p;
  },
  // notes maps each node whose move cost its mover ≥ 10% of win chance to its mark
  notes() {
    const out = new Map();
    const walk = (n) => {
      for (const k of n.kids) {
        const a = this.whiteWin(n), b = this.whiteWin(k);
        if (a !== null && b !== null) {
          const drop = n.view.to_act === "w" ? a - b : b - a;
          const m = NOTE_AT.find(([t]) => drop >= t - 1e-9);
          if (m) out.set(k, m[1]);
        }
        walk(k);
      }
    };
    if (this.root) walk(this.root);
    return out;
  },
  async analyseGame() {
    if (this.gameRun) { this.stopGame(); return; }
    if (!this.root) { await this.load(); if (!this.root) return; }
    this.stopLive();
    const run = { abort: new AbortController() };
    this.gameRun = run;
    const plies = this.lineOf(this.root).filter((n) => n.view.result === "ongoing");
    const bar = $("an-game-progress"), btn = $("an-game");
    bar.hidden = false; bar.max = Math.max(1, plies.length); bar.value = 0;
    btn.textContent = "Stop"; btn.dataset.state = "running";
    const budget = {};
    if ($("an-movetime").value) budget.movetime = Number($("an-movetime").value);
    else budget.sims = Number($("an-sims").value) || 400;
    const player = $("an-player").value.trim();
    let k = 0;
    try {
      for (const n of plies) {
        if (this.gameRun !== run) return;
        $("an-game-status").textContent = "ply " + (this.path(n).length - 1) + " (" + k + "/" + plies.length + ")";
        const old = this.cache.get(n.view.position);
        if (!(old && old.wdl && old.searched)) {
          const body = { position: n.view.position, variant: this.variant, top: Number($("an-top").value) || 8, ...budget };
          if (player) body.player = player;
          const r = await api("POST", "/api/analyze", body, run.abort.signal);
          if (this.gameRun !== run) return;
          this.keep(r);
          if (n === this.node) this.draw(n.view);
        }
        bar.value = ++k;
        this.list();
      }
      $("an-game-status").textContent = "analysed " + plies.length + " plies";
      btn.dataset.state = "done";
    } catch (e) {
      if (this.gameRun === run) { this.message("Analyse game: " + e.message); btn.dataset.state = "error"; }
    } finally {
      if (this.gameRun === run) { this.gameRun = null; btn.textContent = "Analyse game"; }
    }
  },
  stopGame() {
    if (!this.gameRun) return;
    this.gameRun.abort.abort(); // the search in flight ends on the server too (its request's context)
    this.gameRun = null;
    $("an-game").textContent = "Analyse game";
    $("an-game").dataset.state = "stopped";
    $("an-game-status").textContent += " · stopped";
  },
  // graph draws White's win chance over the main line's plies, marks and the board's ply
  graph() {
    const svg = $("an-graph");
    const main = this.root ? this.lineOf(this.root) : [];
    const pts = main.map((n, i) => ({ i, n, w: this.whiteWin(n) }));
    const any = pts.some((p) => p.w !== null && p.n.view.result === "ongoing");
    svg.toggleAttribute("hidden", !any); $("an-graph-legend").hidden = !any; // an SVG element has no hidden property
    svg.replaceChildren();
    if (!any) return;
    const W = 520, H = 120, L = 4, R = 4, T = 6, B = 6, N = Math.max(1, main.length - 1);
    const x = (i) => L + (i / N) * (W - L - R), y = (w) => T + (1 - w) * (H - T - B);
    svgEl("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "graph-bg" }, svg);
    svgEl("line", { x1: L, x2: W - R, y1: y(0.5), y2: y(0.5), class: "graph-mid" }, svg);
    const known = pts.filter((p) => p.w !== null);
    const d = known.map((p) => x(p.i).toFixed(1) + "," + y(p.w).toFixed(1));
    svgEl("polygon", { points: x(known[0].i).toFixed(1) + "," + y(0) + " " + d.join(" ") + " " + x(known[known.length - 1].i).toFixed(1) + "," + y(0), class: "graph-area" }, svg);
    svgEl("polyline", { points: d.join(" "), class: "graph-line" }, svg);
    const ply = this.line.indexOf(this.node);
    if (ply >= 0 && main[ply] === this.node) svgEl("line", { x1: x(ply), x2: x(ply), y1: T, y2: H - B, class: "graph-cur", "data-cur": String(ply) }, svg);
    const notes = this.notes();
    for (const p of known) {
      const note = p.i > 0 ? notes.get(p.n) : null;
      const c = svgEl("circle", { cx: x(p.i), cy: y(p.w), r: note ? 4 : 2, class: "graph-dot" + (note ? " mark-" + note : ""), "data-ply": String(p.i) }, svg);
      const t = svgEl("title", {}, c);
      t.textContent = "ply " + p.i + (p.i ? " · " + p.n.tok : "") + ": white " + pct(p.w) + (note ? " · " + note : "");
    }
    // a column per ply takes the clicks
    for (let i = 0; i < main.length; i++) {
      const col = svgEl("rect", { x: x(i) - (W - L - R) / N / 2, y: 0, width: (W - L - R) / N, height: H, class: "graph-hit", "data-ply": String(i) }, svg);
      col.addEventListener("click", () => this.goNode(main[i]));
    }
  },

  // ---- the PV: its actions are buttons; pv is {position, pv} of the analysis drawn
  pvList(r) {
    const el = $("an-pv");
    el.replaceChildren();
    if (!r.pv || !r.pv.length) return;
    el.append("PV:");
    const pv = { position: r.position, pv: r.pv.slice() };
    r.pv.forEach((tok, k) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "mv tok pv-tok";
      b.dataset.k = String(k);
      b.textContent = tok;
      b.title = "hover: the position after " + tok + "; click: play the PV up to here";
      b.pv = pv;
      el.append(" ", b);
    });
  },
  // pvPlies returns the board views along pv (plies[k+1] is after pv.pv[k]), asked once per PV
  async pvPlies(pv) {
    if (pv.plies) return pv.plies;
    if (!pv.asked) pv.asked = api("POST", "/api/replay", { position: pv.position, variant: this.variant, moves: pv.pv }).then((r) => (pv.plies = r.plies));
    return pv.asked;
  },
  async showPreview(pv, k) {
    this.preview = { pv, k };
    let plies;
    try { plies = await this.pvPlies(pv); } catch (e) { this.message(e.message); return; }
    if (!this.preview || this.preview.pv !== pv || this.preview.k !== k) return; // the pointer moved on
    this.board.render(plies[k + 1], {});
    $("an-board").dataset.preview = String(k);
    boardInfo($("an-info"), plies[k + 1], this.variant);
    for (const t of $("an-board").querySelectorAll(".target.on")) t.classList.remove("on");
    for (const b of $("an-pv").querySelectorAll(".pv-tok")) b.classList.toggle("cur", Number(b.dataset.k) === k);
  },
  endPreview() {
    if (!this.preview) return;
    this.preview = null;
    delete $("an-board").dataset.preview;
    for (const b of $("an-pv").querySelectorAll(".pv-tok")) b.classList.remove("cur");
    boardInfo($("an-info"), this.stepper.current(), this.variant);
    this.draw(this.stepper.current());
  },
  // playPV plays pv's actions up to k from the node of its position (the board's), into the tree
  async playPV(pv, k) {
    let plies;
    try { plies = await this.pvPlies(pv); } catch (e) { this.message(e.message); return; }
    let n = this.node;
    if (!n || n.view.position !== pv.position) return; // the board moved on meanwhile
    pv.pv.slice(0, k + 1).forEach((tok, i) => { n = n.kids.find((c) => c.tok === tok) || this.newNode(tok, plies[i + 1], n); });
    this.preview = null;
    delete $("an-board").dataset.preview;
    this.goNode(n);
  },

  // list shows the moves: the numbered list while there is one line, else the tree with its
  // variations in parentheses, indented under the move they are alternatives to (as lichess)
  list() {
    const el = $("an-moves");
    const onMain = !this.node || this.path(this.node).every((n) => !n.parent || n.parent.kids[0] === n);
    $("an-promote").disabled = onMain;
    $("an-delete").disabled = !this.node || !this.node.parent;
    const forks = (n) => n.kids.length > 1 || n.kids.some(forks);
    if (!this.root || !forks(this.root)) {
      const notes = this.notes();
      moveList(el, this.stepper.moves, this.stepper.plies.slice(0, this.stepper.moves.length).map((p) => p.to_act), this.stepper.i, (ply) => this.stepper.go(ply),
        this.line.slice(1).map((n) => notes.get(n)));
      el.classList.remove("tree");
      this.graph();
      return;
    }
    el.classList.add("tree");
    el.replaceChildren();
    let mark = null;
    const notes = this.notes();
    const btn = (n, numbered) => {
      const depth = this.path(n).length - 1;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "mv tok ml-" + n.parent.view.to_act + (n.parent.kids[0] === n ? "" : " alt");
      b.dataset.node = String(n.id);
      b.dataset.path = this.path(n).slice(1).map((x) => x.tok).join(" ");
      b.title = colorWord(n.parent.view.to_act) + ", ply " + depth;
      if (numbered || n.parent.view.to_act === "w" && n.parent.parent && n.parent.parent.view.to_act === "b") {
        const num = document.createElement("span");
        num.className = "ml-ply";
        num.textContent = depth + ".";
        b.append(num);
      }
      b.append(n.tok);
      const note = notes.get(n);
      if (note) { b.classList.add(note); b.append(NOTE_SIGN[note]); b.title += ", " + note; }
      if (n === this.node) { b.classList.add("cur"); b.setAttribute("aria-current", "step"); mark = b; }
      else if (this.line.includes(n)) b.classList.add("on-line");
      b.addEventListener("click", () => this.goNode(n));
      return b;
    };
    const renderLine = (box, n) => {
      let numbered = true;
      for (; n; n = n.kids[0]) {
        box.append(btn(n, numbered), " ");
        numbered = false;
        const p = n.parent;
        if (p.kids[0] === n && p.kids.length > 1) {
          for (const alt of p.kids.slice(1)) {
            const d = document.createElement("div");
            d.className = "ml-var";
            d.append("( ");
            renderLine(d, alt);
            d.append(")");
            box.append(d);
          }
          numbered = true;
        }
      }
    };
    const top = document.createElement("div");
    top.className = "ml-main";
    renderLine(top, this.root.kids[0]);
    el.append(top);
    this.graph();
    if (mark && el.scrollHeight > el.clientHeight) {
      const t = mark.offsetTop, h = mark.offsetHeight;
      if (t < el.scrollTop) el.scrollTop = t;
      else if (t + h > el.scrollTop + el.clientHeight) el.scrollTop = t + h - el.clientHeight;
    }
  },

  async analyse() {
    if (!this.stepper.current()) { await this.load(); if (!this.stepper.current()) return; }
    const cur = this.stepper.current(), ply = this.stepper.i;
    const body = { position: cur.position, variant: this.stepper.variant || $("an-variant").value, top: Number($("an-top").value) || 8 };
    if ($("an-movetime").value) body.movetime = Number($("an-movetime").value);
    else if ($("an-sims").value) body.sims = Number($("an-sims").value);
    if ($("an-player").value.trim()) body.player = $("an-player").value.trim();
    // the answer of the latest request only; it is kept for its position and drawn when the
    // stepper is there (now, or when stepped back to it)
    const seq = ++this.seq;
    this.pending = true;
    this.message("searching ply " + ply + "…", "info");
    let r;
    try { r = await api("POST", "/api/analyze", body); } catch (e) {
      if (seq === this.seq) { this.pending = false; this.message(e.message); }
      return;
    }
    this.keep(r);
    if (seq !== this.seq) return;
    this.pending = false;
    this.draw(this.stepper.current());
    const here = this.stepper.current() && this.stepper.current().position === cur.position;
    if (!here) this.message("Analysed ply " + ply + ": " + this.summary(r) + " Step back to it to see it.", "info");
  },

  // keep stores an analysis for its position (the page's cache, never cleared by stepping)
  keep(r) {
    if (this.cache.size >= 500 && !this.cache.has(r.position)) this.cache.delete(this.cache.keys().next().value);
    this.cache.set(r.position, r);
    if (this.graphTimer === undefined) this.graphTimer = setTimeout(() => { this.graphTimer = undefined; if (this.root) this.list(); }, 250);
  },

  // live analysis: a stream of the search's state (POST /api/analyze with "stream": true) for the
  // stepper's position, restarted on each step (the old one is aborted: the server stops its
  // search), until Stop or the server's bound (its --max-stream)
  startLive() {
    this.live = true;
    $("an-live").setAttribute("aria-pressed", "true");
    this.liveAt = null;
    this.follow(this.stepper.current());
  },
  stopLive() {
    if (!this.live) return;
    this.live = false;
    if (this.liveAbort) this.liveAbort.abort();
    this.liveAbort = null;
    this.liveAt = null;
    this.liveState("off");
    const cur = this.stepper.current();
    this.draw(cur);
  },
  liveState(state) {
    const b = $("an-live");
    b.dataset.state = state;
    b.textContent = this.live ? "Stop" : "Live";
    b.setAttribute("aria-pressed", this.live ? "true" : "false");
  },
  // follow starts the live search of view's position when live analysis is on and not already there
  follow(view) {
    if (!this.live || !view) return;
    if (this.liveAt === view.position) return;
    if (this.liveAbort) this.liveAbort.abort();
    this.liveAt = view.position;
    if (view.result && view.result !== "ongoing") { this.liveAbort = null; this.liveState("over"); return; }
    this.stream(view.position);
  },
  async stream(position) {
    const ctl = new AbortController(), id = (this.streams = (this.streams || 0) + 1);
    this.liveAbort = ctl;
    this.liveState("running");
    const body = { position, variant: this.stepper.variant || $("an-variant").value, top: Number($("an-top").value) || 8, stream: true };
    if ($("an-player").value.trim()) body.player = $("an-player").value.trim();
    const mine = () => this.liveAbort === ctl;
    try {
      const res = await (window.yinshFetch || fetch)("/api/analyze", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body), signal: ctl.signal });
      if (!res.ok) {
        let msg = res.status + " " + res.statusText;
        try { msg = (await res.json()).error || msg; } catch (e) { /* not JSON */ }
        throw new Error(msg);
      }
      const rd = res.body.getReader(), dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await rd.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let k;
        while ((k = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, k);
          buf = buf.slice(k + 1);
          if (!line.trim() || !mine()) continue;
          const r = JSON.parse(line);
          if (r.done && r.stop === "superseded") continue; // a newer stream of this client runs
          if (r.done && r.error) throw new Error(r.error);
          r.stream = id;
          // a deeper analysis of this position stays until this one has searched more
          const old = this.cache.get(r.position);
          if (r.best && !(old && old.stream !== id && old.searched && old.visits > r.visits)) this.keep(r);
          this.liveCount = (this.liveCount || 0) + 1;
          if (r.done) this.liveState("done");
          const cur = this.stepper.current();
          if (cur && cur.position === r.position) this.draw(cur);
        }
      }
      if (mine() && $("an-live").dataset.state === "running") this.liveState("done");
    } catch (e) {
      if (e.name === "AbortError" || !mine()) return;
      this.message("live analysis: " + e.message);
      this.live = false;
      this.liveAt = null;
      this.liveState("off");
    }
  },

  // summary says what the analysis is: a search's visits, or a non-searching player's choice
  summary(r) {
    if (this.live && this.liveAt === r.position) {
      const st = $("an-live").dataset.state;
      const how = st === "running" ? "live" : "live, stopped at the server's limit";
      return (r.searched ? r.player + " (" + how + "): " + r.visits + " visits, " + r.time_ms.toFixed(0) + " ms; best " + r.best + "." :
        r.player + " does not search: its move is " + r.best + ".");
    }
    if (!r.searched) return r.player + " does not search: its move is " + r.best + (r.top.length ? ", with its candidates below" : "") + ".";
    return r.player + ": " + r.visits + " visits, " + r.time_ms.toFixed(0) + " ms of search; best " + r.best + ".";
  },

  draw(view) {
    const r = view ? this.cache.get(view.position) : undefined;
    if (!this.pending) this.message(r ? this.summary(r) : "", "info"); // what is drawn, once no search runs
    const marks = { hints: [], rows: [], selected: this.selected };
    const legal = view && this.node && this.node.view === view ? this.legal() : [];
    if (view && view.phase === "place") marks.hints = legal.filter((t) => t !== "pass");
    if (view && view.phase === "move") {
      if (this.selected) marks.hints = legal.filter((t) => t.startsWith(this.selected + "-")).map((t) => t.split("-")[1]);
      else marks.hints = [...new Set(legal.filter((t) => t.includes("-")).map((t) => t.split("-")[0]))];
    }
    if (view && view.phase === "remove-ring") marks.hints = legal.map((t) => t.slice(1));
    if (view && view.phase === "remove-row") marks.rows = legal.filter((t) => t.startsWith("x") && t.includes("-"));
    this.hintTargets = marks.hints;
    const table = $("an-table"), wdl = $("an-wdl");
    table.replaceChildren(); wdlBar(wdl, null); $("an-pv").replaceChildren(); $("an-wdl-caption").textContent = "";
    if (r) {
      // a non-searching player (heuristic, random) may give no candidates: its best move alone
      const top = r.top.length ? r.top : r.best ? [{ action: r.best, prior: null, visits: 0, q: null }] : [];
      const maxV = Math.max(1, ...top.map((a) => a.visits));
      const num = (x, d) => (x === null || x === undefined ? "–" : x.toFixed(d));
      marks.arrows = top.map((a, i) => ({ token: a.action, label: r.top.length ? String(i + 1) : "best",
        weight: r.searched ? a.visits / maxV : a.prior || 0.5,
        title: a.action + ": prior " + num(a.prior, 3) + ", visits " + a.visits + ", Q " + num(a.q, 3) }));
      if (r.wdl) {
        wdlBar(wdl, r.wdl, r.side);
        $("an-wdl-caption").textContent = "For " + colorWord(r.side) + " (to act): win " + pct(r.wdl[0]) + ", draw " + pct(r.wdl[1]) + ", loss " + pct(r.wdl[2]) + ".";
      }
      const head = table.insertRow();
      for (const h of ["#", "action", "prior", "visits", "Q"]) { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); }
      top.forEach((a, i) => {
        const tr = table.insertRow();
        for (const c of [r.top.length ? i + 1 : "best", a.action, num(a.prior, 3), r.searched ? a.visits : "–", num(a.q, 3)]) tr.insertCell().textContent = c;
      });
      this.pvList(r);
      const heatBy = $("an-heat").value;
      const policy = r.policy || []; // omitted for players that do not search
      if (heatBy && policy.length) {
        const total = policy.reduce((s, a) => s + a.visits, 0) || 1;
        marks.heat = policyHeat(policy, (a) => (heatBy === "visits" ? a.visits / total : a.prior));
      }
    }
    if (this.preview) return; // the board shows a PV's position until the pointer leaves the PV
    this.board.render(view, marks);
    // only the legal actions' points take clicks (the others let the candidates' titles show)
    const on = new Set(marks.hints);
    for (const t of $("an-board").querySelectorAll(".target")) t.classList.toggle("on", on.has(t.dataset.point));
  },
};

// policyHeat turns a policy, entries {action, …}, into a heat map of the board (Board.render's
// marks.heat): each entry's weight(entry) goes to the points its action ends on (a placement's or a
// ring removal's point, a ring move's destination, a row's five points), scaled so that the
// hottest point is 1. Analyse draws a search's prior or visits with it, Watch a recorded policy
// target.
function policyHeat(policy, weight) {
  const heat = {};
  for (const a of policy) {
    const w = weight(a), t = YINSH.parseToken(a.action);
    if (!t) continue;
    const pts = t.kind === "move" ? [t.to] : t.kind === "row" ? YINSH.linePoints(t.from, t.to) : t.at ? [t.at] : [];
    for (const p of pts) heat[p] = (heat[p] || 0) + w;
  }
  const m = Math.max(...Object.values(heat)) || 1;
  for (const k in heat) heat[k] /= m;
  return heat;
}

// wdlBar draws [win, draw, loss] for side ("w" or "b") as a bar of three segments in el, its label
// saying whose view it is; without wdl it empties el
function wdlBar(el, wdl, side) {
  el.replaceChildren();
  if (!wdl) { delete el.dataset.side; el.removeAttribute("aria-label"); el.removeAttribute("role"); return; }
  for (const [k, cls] of [[0, "win"], [1, "draw"], [2, "loss"]]) {
    const d = document.createElement("div");
    d.className = "wdl-" + cls;
    d.style.width = (100 * wdl[k]).toFixed(1) + "%";
    d.textContent = pct(wdl[k]);
    d.title = cls + " " + pct(wdl[k]) + " for " + colorWord(side);
    el.appendChild(d);
  }
  // a segment too narrow for its number shows none (the caption has them all)
  for (const d of el.children) if (d.scrollWidth > d.clientWidth + 1) d.textContent = "";
  el.dataset.side = side;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", colorWord(side) + "'s view: win " + pct(wdl[0]) + ", draw " + pct(wdl[1]) + ", loss " + pct(wdl[2]));
}

// ---------- runs (watch and dashboard)

// listRuns fills a run selector from /api/runs (each run with its counts), keeping the choice;
// it leaves the selector alone when nothing changed (it is called every few seconds)
async function listRuns(select) {
  const keep = select.value;
  let runs = [];
  try { runs = (await api("GET", "/api/runs")).runs; } catch (e) { return null; }
  const label = (r) => r.name + " (" + r.generations + " gen, " + (r.shards + r.live) + " shards" + (r.sgf ? ", " + r.sgf + " sgf" : "") + ")";
  const now = [...select.options].map((o) => o.value + "\n" + o.textContent).join("\n");
  if (now === runs.map((r) => r.name + "\n" + label(r)).join("\n")) return runs;
  select.replaceChildren();
  for (const r of runs) {
    const o = document.createElement("option");
    o.value = r.name;
    o.textContent = label(r);
    select.appendChild(o);
  }
  if (keep && runs.some((r) => r.name === keep)) select.value = keep;
  return runs;
}

const Watch = {
  rec: null, // the game shown: a record (with its training targets) or an SGF file
  init() {
    this.board = new YINSH.Board($("w-board"));
    $("w-board").classList.add("view-only");
    this.stepper = new Stepper(this.board, "w", (v) => this.draw(v));
    this.board.render(null);
    $("w-run").addEventListener("change", () => this.open());
    $("w-follow").addEventListener("change", () => this.open());
    $("w-heat").addEventListener("change", () => this.draw(this.stepper.current()));
  },
  // draw shows the stepper's position and, for a record, the training target recorded for it: the
  // policy target as a heat map (and its largest entries), the value target as a WDL bar and a
  // number, both from the view of the side to act there (as the trainer sees them)
  draw(view) {
    const i = this.stepper.i, r = this.rec, tg = r && r.targets ? r.targets[i] : null;
    const marks = {};
    $("w-target").hidden = !(r && r.targets);
    const policy = $("w-policy"), value = $("w-value");
    policy.replaceChildren(); value.textContent = ""; wdlBar($("w-wdl"), null);
    delete value.dataset.value; delete value.dataset.side;
    $("w-target").dataset.ply = String(i);
    if (r && r.targets && !tg) value.textContent = "Ply " + i + " is the game's final position: no target.";
    else if (tg && !tg.policy.length) value.textContent = "Ply " + i + " is not a training target (a fast search of playout-cap randomisation, or a forced action): the record keeps its move only.";
    else if (tg) {
      if ($("w-heat").checked) marks.heat = policyHeat(tg.policy, (e) => e.prob);
      const top = tg.policy.slice().sort((a, b) => b.prob - a.prob);
      tokens(policy, "Policy target (" + tg.policy.length + " actions):", top.slice(0, 6).map((e) => e.action + " " + pct(e.prob)));
      if (top.length > 6) policy.append(" …");
      // the value target as the trainer builds it: (1-m)·z + m·q, each a WDL for the side to act
      const who = colorWord(tg.side), m = r.value_q_mix;
      const zw = tg.z === null ? null : tg.z > 0 ? [1, 0, 0] : tg.z < 0 ? [0, 0, 1] : [0, 1, 0];
      const q = tg.root_wdl, sgn = (x) => (x > 0 ? "+" : x < 0 ? "−" : "") + Math.abs(x).toFixed(2);
      const qText = q ? "q = " + sgn(q[0] - q[2]) + " (the search's root value: win " + pct(q[0]) + ", draw " + pct(q[1]) + ", loss " + pct(q[2]) + ")" : "no root value recorded";
      const zText = zw ? "z = " + sgn(tg.z) + " (the game's result for " + who + ")" : "no result (an unfinished game)";
      // the bar: the value target when the run's mix is known, else z (the text says which)
      let bar = zw, how;
      if (!zw) how = "no value target: " + zText + "; " + qText + ".";
      else if (m === undefined) how = zText + "; " + qText + ". The value target is (1 − m)·z + m·q, the run's value_q_mix m unknown (it has no config.yaml).";
      else if (!q || m === 0) how = "z alone (" + (q ? "value_q_mix 0" : "no root value") + "): " + zText + (q ? "; " + qText : "") + ".";
      else {
        bar = zw.map((z, k) => (1 - m) * z + m * q[k]);
        how = "(1 − m)·z + m·q with the run's value_q_mix m = " + m + ": " + zText + ", " + qText + ".";
      }
      let t = how;
      if (bar) {
        wdlBar($("w-wdl"), bar, tg.side);
        t = (zw && m === undefined ? "Result z" : "Value target") + " for " + who + " (to act): " + sgn(bar[0] - bar[2]) + " (win " + pct(bar[0]) + ", draw " + pct(bar[1]) + ", loss " + pct(bar[2]) + ") = " + how;
      }
      value.textContent = t;
      value.dataset.side = tg.side;
      if (bar) value.dataset.value = (bar[0] - bar[2]).toFixed(4);
    }
    this.board.render(view, marks);
  },
  async refreshRuns() {
    const runs = await listRuns($("w-run"));
    if (!runs) return;
    if (!runs.length) { say($("w-message"), "No runs (start yinsh serve with --runs DIR).", "info"); return; }
    if (this.run !== $("w-run").value) this.open();
  },
  async open() {
    this.run = $("w-run").value;
    if (this.es) { this.es.close(); this.es = null; }
    await this.list();
    if ($("w-follow").checked && this.run) {
      this.es = new EventSource("/api/runs/" + encodeURIComponent(this.run) + "/events");
      this.es.addEventListener("games", (e) => {
        const d = JSON.parse(e.data);
        if (d.latest) this.show(d.latest, true);
        this.list();
      });
    }
  },
  async list() {
    const t = $("w-games");
    if (!this.run) { t.replaceChildren(); return; }
    const seq = this.listSeq = (this.listSeq || 0) + 1;
    let d;
    try { d = await api("GET", "/api/runs/" + encodeURIComponent(this.run) + "/games"); } catch (e) { say($("w-message"), e.message); return; }
    if (seq !== this.listSeq) return; // a later listing is on its way
    t.replaceChildren();
    say($("w-message"), d.games.length + " games in " + d.shards + " shards" + (d.sgf.length ? ", " + d.sgf.length + " SGF files" : ""), "info");
    const head = t.insertRow();
    for (const h of ["shard", "#", "generator", "result", "length"]) { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); }
    for (const f of d.sgf) {
      const tr = t.insertRow();
      for (const c of [f, "", "sgf", "", ""]) tr.insertCell().textContent = c;
      tr.addEventListener("click", () => this.showSGF(f));
    }
    for (const g of d.games.slice().reverse().slice(0, 500)) {
      const tr = t.insertRow();
      for (const c of [g.shard.replace("~", "/") + (g.live ? " (live)" : ""), g.index, g.generator, g.result, g.length]) tr.insertCell().textContent = c;
      tr.addEventListener("click", () => this.show(g));
    }
  },
  async show(g, toEnd) {
    const seq = this.seq = (this.seq || 0) + 1; // answers may come out of order: only the latest request's is shown
    try {
      const r = await api("GET", "/api/runs/" + encodeURIComponent(this.run) + "/games/" + encodeURIComponent(g.shard) + "/" + g.index);
      if (seq !== this.seq) return;
      $("w-title").textContent = r.generator + " · game " + r.id + " · " + r.variant + " · result " + r.recorded_result;
      this.rec = r;
      this.stepper.set(r, toEnd ? undefined : 0);
    } catch (e) { say($("w-message"), e.message); }
  },
  async showSGF(f) {
    const seq = this.seq = (this.seq || 0) + 1;
    try {
      const r = await api("GET", "/api/runs/" + encodeURIComponent(this.run) + "/sgf/" + encodeURIComponent(f));
      if (seq !== this.seq) return;
      $("w-title").textContent = f + " · " + r.variant + " · result " + r.recorded_result;
      this.rec = r;
      this.stepper.set(r, 0);
    } catch (e) { say($("w-message"), e.message); }
  },
};

// ---------- dashboard: metrics.jsonl curves in SVG, live over server-sent events

const NS = "http://www.w3.org/2000/svg";
function svgEl(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// niceTicks: about n round values from lo to hi; integer ones only (a step of at least 1) when integer
function niceTicks(lo, hi, n, integer) {
  if (!(hi > lo)) { hi = lo + 1; }
  const step0 = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  let step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= step0);
  if (integer) step = Math.max(1, Math.round(step));
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

// a value as the hover readout shows it: at most 4 significant digits
const fmtVal = (v) => (Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4))));

// chart draws series [{name, pts: [{x, y, lo, hi}]}] into a new SVG: the y axis named yLabel (its
// units), the x axis xLabel (integer ticks only when it counts generations); the legend is a line
// of HTML under the plot (never over the curves); moving over the plot shows, in the readout above
// the legend, the x nearest the pointer and each series' value there.
function chart(parent, title, xLabel, yLabel, series) {
  const W = 460, H = 250, L = 60, R = 10, T = 26, B = 40;
  const box = document.createElement("figure");
  box.className = "chart";
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", "data-chart": title });
  box.appendChild(svg);
  parent.appendChild(box);
  svgEl("text", { x: L, y: 16, class: "chart-title" }, svg).textContent = title;
  const all = series.flatMap((s) => s.pts).filter((p) => Number.isFinite(p.y));
  if (!all.length) { svgEl("text", { x: W / 2, y: H / 2, class: "chart-empty" }, svg).textContent = "no data yet"; return; }
  const intX = xLabel === "generation";
  let x0 = Math.min(...all.map((p) => p.x)), x1 = Math.max(...all.map((p) => p.x));
  let y0 = Math.min(...all.map((p) => Number.isFinite(p.lo) ? p.lo : p.y)), y1 = Math.max(...all.map((p) => Number.isFinite(p.hi) ? p.hi : p.y));
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) { y0 -= 1; y1 += 1; }
  const pad = (y1 - y0) * 0.06; y0 -= pad; y1 += pad;
  const sx = (x) => L + (x - x0) / (x1 - x0) * (W - L - R), sy = (y) => H - B - (y - y0) / (y1 - y0) * (H - T - B);
  for (const t of niceTicks(y0, y1, 5)) {
    svgEl("line", { x1: L, x2: W - R, y1: sy(t), y2: sy(t), class: "gridline" }, svg);
    svgEl("text", { x: L - 5, y: sy(t) + 4, class: "tick tick-y" }, svg).textContent = t;
  }
  for (const t of niceTicks(x0, x1, 5, intX)) {
    svgEl("text", { x: sx(t), y: H - B + 16, class: "tick tick-x" }, svg).textContent = t;
  }
  svgEl("text", { x: (L + W - R) / 2, y: H - 5, class: "axis-label axis-x" }, svg).textContent = xLabel;
  const yl = svgEl("text", { x: 0, y: 0, class: "axis-label axis-y", transform: `translate(14 ${(T + H - B) / 2}) rotate(-90)` }, svg);
  yl.textContent = yLabel;
  const legend = document.createElement("div");
  legend.className = "chart-legend";
  const drawn = [];
  series.forEach((s, k) => {
    const pts = s.pts.filter((p) => Number.isFinite(p.y));
    if (!pts.length) return;
    const cls = "series s" + (k % 5);
    for (const p of pts) {
      if (Number.isFinite(p.lo) && Number.isFinite(p.hi)) svgEl("line", { x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), class: cls + " errbar" }, svg);
    }
    svgEl("polyline", { points: pts.map((p) => sx(p.x).toFixed(1) + "," + sy(p.y).toFixed(1)).join(" "), class: cls + " line" }, svg);
    for (const p of pts) svgEl("circle", { cx: sx(p.x), cy: sy(p.y), r: 2.5, class: cls + " dot" }, svg);
    const item = document.createElement("span");
    item.className = "legend legend-s" + (k % 5);
    item.textContent = s.name;
    legend.append(item, " ");
    drawn.push({ name: s.name, pts });
  });
  const readout = document.createElement("div");
  readout.className = "chart-readout";
  readout.textContent = "\u00a0"; // keeps its line, so that the charts do not jump on hover
  box.append(readout, legend);
  // hover: the nearest x of any series, a guide line there and the values in the readout
  const xs = [...new Set(drawn.flatMap((s) => s.pts.map((p) => p.x)))].sort((a, b) => a - b);
  const guide = svgEl("line", { x1: 0, x2: 0, y1: T, y2: H - B, class: "guide", visibility: "hidden" }, svg);
  const hit = svgEl("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "hover-area" }, svg);
  hit.addEventListener("mousemove", (e) => {
    const m = svg.getScreenCTM();
    if (!m) return;
    const ux = (e.clientX - m.e) / m.a, x = x0 + (ux - L) / (W - L - R) * (x1 - x0);
    const near = xs.reduce((a, b) => (Math.abs(b - x) < Math.abs(a - x) ? b : a));
    guide.setAttribute("x1", sx(near)); guide.setAttribute("x2", sx(near));
    guide.setAttribute("visibility", "visible");
    const vals = drawn.map((s) => { const p = s.pts.find((q) => q.x === near); return p ? s.name + " " + fmtVal(p.y) : null; }).filter(Boolean);
    readout.textContent = xLabel + " " + fmtVal(near) + ": " + vals.join(", ");
    readout.dataset.x = String(near);
  });
  hit.addEventListener("mouseleave", () => { guide.setAttribute("visibility", "hidden"); readout.textContent = "\u00a0"; delete readout.dataset.x; });
}

// Dash follows one run's metrics.jsonl live, or overlays up to five runs' curves ("compare with").
const Dash = {
  names: [], // the runs shown, the first one chosen in d-run
  runs: {}, // name → {lines, es}
  init() {
    $("d-run").addEventListener("change", () => this.open());
    $("d-compare").addEventListener("change", () => this.open());
    $("d-x").addEventListener("change", () => this.draw());
  },
  async refreshRuns() {
    const runs = await listRuns($("d-run"));
    if (!runs) return;
    const cmp = $("d-compare"), keep = new Set([...cmp.selectedOptions].map((o) => o.value));
    if ([...cmp.options].map((o) => o.value).join("\n") !== runs.map((r) => r.name).join("\n")) {
      cmp.replaceChildren();
      for (const r of runs) {
        const o = document.createElement("option");
        o.value = o.textContent = r.name;
        o.selected = keep.has(r.name);
        cmp.appendChild(o);
      }
    }
    if (!runs.length) { say($("d-live"), "No runs (start yinsh serve with --runs DIR).", "info"); this.draw(); return; }
    if (this.selected().join("\n") !== this.names.join("\n")) this.open();
  },
  selected() {
    const main = $("d-run").value;
    if (!main) return [];
    const more = [...$("d-compare").selectedOptions].map((o) => o.value).filter((n) => n !== main);
    return [main, ...more.slice(0, 4)];
  },
  open() {
    for (const r of Object.values(this.runs)) r.es.close();
    this.names = this.selected();
    this.runs = {};
    for (const name of this.names) {
      const r = { lines: [] };
      r.es = new EventSource("/api/runs/" + encodeURIComponent(name) + "/events");
      r.es.addEventListener("metrics", (e) => {
        const d = JSON.parse(e.data);
        if (d.reset) r.lines = [];
        r.lines.push(...d.lines);
        const counts = this.names.map((n) => (this.names.length > 1 ? n + " " : "") + this.runs[n].lines.length + " generations");
        say($("d-live"), "live: " + counts.join(", ") + " (updated " + new Date().toLocaleTimeString() + ")", "info");
        this.draw();
      });
      r.es.onerror = () => { say($("d-live"), "disconnected, retrying…"); };
      this.runs[name] = r;
    }
    this.draw();
  },
  draw() {
    const box = $("d-charts");
    box.replaceChildren();
    const byTime = $("d-x").value === "time";
    const xl = byTime ? "wall time (hours)" : "generation";
    const g = (o, ...ks) => ks.reduce((a, k) => (a == null ? undefined : a[k]), o);
    // series(name, lines, f): one curve of a run's lines, f(line) a number or {y, lo, hi}
    const series = (name, lines, f) => {
      let t = 0;
      return { name, pts: lines.map((m) => {
        t += m.elapsed_s || 0;
        const x = byTime ? Number((t / 3600).toFixed(4)) : m.generation, v = f(m);
        return v && typeof v === "object" ? { x, ...v } : { x, y: v };
      }) };
    };
    const elo = (m) => (m.elo ? { y: m.elo.value, lo: m.elo.low, hi: m.elo.high } : undefined);
    const baselines = (lines) => {
      const bl = new Set();
      lines.forEach((m) => Object.keys(g(m, "eval", "baselines") || {}).forEach((k) => bl.add(k)));
      return [...bl];
    };
    const runs = this.names.map((n) => ({ name: n, lines: (this.runs[n] || { lines: [] }).lines }));
    if (runs.length > 1) { // one curve per run in every chart
      const each = (f) => runs.map((r) => series(r.name, r.lines, f));
      chart(box, "training loss (total)", xl, "loss", each((m) => g(m, "train", "loss")));
      chart(box, "Elo (95% interval) vs each run's anchor", xl, "Elo", each(elo));
      chart(box, "game length (actions)", xl, "actions per game", each((m) => g(m, "selfplay", "mean_length")));
      chart(box, "self-play games/hour", xl, "games/hour", each((m) => g(m, "selfplay", "games_per_hour")));
      chart(box, "score against baselines", xl, "score (0–1)", runs.flatMap((r) =>
        baselines(r.lines).map((k) => series(r.name + ": " + k, r.lines, (m) => g(m, "eval", "baselines", k)))));
      return;
    }
    const lines = runs.length ? runs[0].lines : [];
    const S = (name, f) => series(name, lines, f);
    chart(box, "losses", xl, "loss", [S("total", (m) => g(m, "train", "loss")), S("policy", (m) => g(m, "train", "loss_policy")), S("value", (m) => g(m, "train", "loss_value"))]);
    chart(box, "Elo (95% interval) vs " + ((lines.find((m) => m.rating_anchor) || {}).rating_anchor || "anchor"), xl, "Elo", [S("elo", elo)]);
    chart(box, "game length (actions)", xl, "actions per game", [S("mean length", (m) => g(m, "selfplay", "mean_length"))]);
    chart(box, "self-play games/hour", xl, "games/hour", [S("games/h", (m) => g(m, "selfplay", "games_per_hour"))]);
    chart(box, "score against baselines", xl, "score (0–1)", baselines(lines).map((k) => S(k, (m) => g(m, "eval", "baselines", k))));
  },
};

// ---------- keys: in Analyse and Watch, ← → step a ply, Home and End go to the first and last, f flips
// the board; in Analyse ↑ ↓ go to the previous and next variation at this ply (the moves played
// instead of the current one, in the move list's order, as lichess); not while typing in a field,
// not with a modifier held

function keys(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target, tag = t && t.tagName;
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
  const v = currentTab === "analyse" ? Analyse : currentTab === "watch" ? Watch : null;
  const s = v && v.stepper;
  if (!s) return;
  switch (e.key) {
    case "ArrowLeft": s.go(s.i - 1); break;
    case "ArrowRight": s.go(s.i + 1); break;
    case "Home": s.go(0); break;
    case "End": s.go(s.plies.length - 1); break;
    case "f": case "F": s.flip(); break;
    case "ArrowUp": case "ArrowDown":
      if (v !== Analyse) return;
      Analyse.sibling(e.key === "ArrowDown" ? 1 : -1);
      break;
    default: return;
  }
  e.preventDefault();
}

// opponents fills the opponent selector with the players the server offers (its own first)
function opponents(sel, list) {
  sel.replaceChildren();
  for (const o of list) {
    const opt = document.createElement("option");
    opt.value = o.player;
    opt.textContent = o.label + (o.default ? " (server's agent)" : "");
    if (o.about) opt.title = o.about;
    sel.appendChild(opt);
  }
  sel.disabled = list.length < 2;
}

// ---------- start

window.addEventListener("DOMContentLoaded", async () => {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => openTab(b.dataset.tab));
  document.querySelector("[role=tablist]").addEventListener("keydown", tabKeys);
  window.addEventListener("hashchange", followAddress);
  document.addEventListener("keydown", keys);
  window.addEventListener("popstate", followAddress);
  if (RUNS_POLL > 0) setInterval(() => { if (!document.hidden) refreshRuns(); }, RUNS_POLL);
  Play.init();
  // the web export answers a request whole, from its worker: no streamed live analysis there
  if (window.yinshFetch) $("an-live").hidden = true;
  try {
    // the page carries the /api/info answer inlined (one request fewer); ask for it otherwise
    const inlined = document.getElementById("info-json");
    const info = (inlined && JSON.parse(inlined.textContent)) || await api("GET", "/api/info");
    $("server-info").textContent = "agent: " + info.player + (info.runs ? "" : " · no --runs");
    $("ng-variant").value = info.variant;
    opponents($("ng-player"), info.opponents || []);
    $("an-variant").value = info.variant;
    if (info.sims) $("an-sims").value = Math.min(info.sims, info.max_sims);
    Play.info = info;
  } catch (e) { $("server-info").textContent = e.message; }
  showTab(tabOfAddress());
  await Play.resume();
  // page ready: the board drawn, the address's page shown, a saved game resumed and drawn; the mark
  // times it from the navigation's start (TestBrowserReloadTime)
  performance.mark("yinsh-ready");
  document.body.dataset.ready = "1";
});
