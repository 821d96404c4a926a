// YINSH Zero web board: play, analyse, watch, dashboard. Talks only to this server's /api.
"use strict";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const AGENT_DELAY = params.has("delay") ? Number(params.get("delay")) : 350; // ms between agent actions

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
  if (!res.ok) throw new Error((data && data.error) || res.status + " " + res.statusText);
  return data;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const colorWord = (c) => (c === "w" ? "white" : "black");
const phaseWord = { place: "place a ring", move: "move a ring", "remove-row": "remove one of your rows", "remove-ring": "remove one of your rings" };

function resultText(view) {
  if (view.result === "ongoing") return "";
  if (view.result === "draw") return "Draw.";
  const winner = view.result;
  const you = view.you === (winner === "white" ? "w" : "b");
  return (winner === "white" ? "White" : "Black") + " wins" + (view.you ? (you ? " — you win!" : " — the agent wins.") : ".");
}

// ---------- tabs

// the views other than play are built on first show, to keep the page's load short
const views = () => ({ analyse: Analyse, watch: Watch, dashboard: Dash });
const built = {};

function showTab(name) {
  const v = views()[name];
  if (v && !built[name]) { built[name] = true; v.init(); }
  for (const s of document.querySelectorAll(".page")) s.hidden = s.id !== name;
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  if (name === "watch") Watch.refreshRuns();
  if (name === "dashboard") Dash.refreshRuns();
  history.replaceState(null, "", location.pathname + location.search + "#" + name);
}

// ---------- play

const Play = {
  board: null, game: null, selected: null, busy: false,

  init() {
    this.board = new YINSH.Board($("play-board"));
    this.board.onPoint((p) => this.click(p));
    this.board.onRow((tok) => this.play([tok]));
    $("new-game").addEventListener("submit", (e) => { e.preventDefault(); this.start(); });
    $("play-undo").addEventListener("click", () => this.undo());
    $("play-pass").addEventListener("click", () => this.play(["pass"]));
    $("play-keys").addEventListener("submit", (e) => {
      e.preventDefault();
      const toks = $("play-tokens").value.trim().toLowerCase().split(/[\s,]+/).filter(Boolean);
      if (toks.length) this.play(toks).then((ok) => { if (ok) $("play-tokens").value = ""; });
    });
    $("play-to-analyse").addEventListener("click", () => {
      if (!this.game) return;
      $("an-input").value = this.game.moves.join(" ");
      $("an-variant").value = this.game.variant;
      showTab("analyse");
      Analyse.load(true);
    });
    this.render();
  },

  message(text) { $("play-message").textContent = text || ""; },

  async start() {
    this.message("");
    try {
      this.game = await api("POST", "/api/games", { variant: $("ng-variant").value, color: $("ng-color").value });
    } catch (e) { this.message(e.message); return; }
    $("dl-tokens").href = "/api/games/" + this.game.id + "/tokens";
    $("dl-sgf").href = "/api/games/" + this.game.id + "/sgf";
    this.selected = null;
    this.render();
    this.agentLoop();
  },

  // the agent plays while it is its turn, each action drawn as it comes
  async agentLoop() {
    if (this.busy) return;
    this.busy = true;
    $("play-board").dataset.busy = "1";
    try {
      while (this.game && this.game.result === "ongoing" && !this.game.your_turn) {
        this.status("The agent (" + this.game.agent + ") is thinking…");
        const g = await api("POST", "/api/games/" + this.game.id + "/agent");
        this.game = g;
        this.render();
        if (AGENT_DELAY > 0 && g.result === "ongoing" && !g.your_turn) await sleep(AGENT_DELAY);
      }
    } catch (e) { this.message(e.message); }
    this.busy = false;
    $("play-board").dataset.busy = "0";
    this.render();
  },

  async play(toks) {
    if (!this.game || this.busy) return false;
    this.message("");
    try {
      this.game = await api("POST", "/api/games/" + this.game.id + "/play", { actions: toks });
    } catch (e) { this.message(e.message); this.render(); return false; }
    this.selected = null;
    this.render();
    this.agentLoop();
    return true;
  },

  async undo() {
    if (!this.game || this.busy) return;
    try { this.game = await api("POST", "/api/games/" + this.game.id + "/undo"); } catch (e) { this.message(e.message); return; }
    this.selected = null;
    this.render();
    this.agentLoop();
  },

  legal() { return this.game && this.game.your_turn && !this.busy ? this.game.legal : []; },

  click(p) {
    const g = this.game;
    if (!g || !g.your_turn || this.busy) return;
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

  render() {
    const g = this.game;
    if (!g) { this.board.render(null); return; }
    const legal = this.legal();
    const marks = { hints: [], rows: [], selected: this.selected };
    if (g.phase === "place") marks.hints = legal.filter((t) => !t.includes("-") && t !== "pass");
    if (g.phase === "move") {
      if (this.selected) marks.hints = legal.filter((t) => t.startsWith(this.selected + "-")).map((t) => t.split("-")[1]);
      else marks.hints = [...new Set(legal.filter((t) => t.includes("-")).map((t) => t.split("-")[0]))];
    }
    if (g.phase === "remove-ring") marks.hints = legal.map((t) => t.slice(1));
    if (g.phase === "remove-row") marks.rows = legal;
    this.board.render(g, marks);
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
      if (av.top && av.top.length > 1) t += "; considered " + av.top.map((s) => s.action + " (" + s.visits + ")").join(", ");
      p.textContent = t;
      box.appendChild(p);
    }
    $("play-moves").textContent = g.moves.length ? "Moves: " + g.moves.join(" ") : "";
  },
};

const pct = (x) => (100 * x).toFixed(0) + "%";

// ---------- a position stepper shared by analyse and watch

class Stepper {
  constructor(board, prefix, onChange) {
    this.board = board; this.prefix = prefix; this.plies = []; this.moves = []; this.i = 0; this.onChange = onChange;
    $(prefix + "-first").addEventListener("click", () => this.go(0));
    $(prefix + "-prev").addEventListener("click", () => this.go(this.i - 1));
    $(prefix + "-next").addEventListener("click", () => this.go(this.i + 1));
    $(prefix + "-last").addEventListener("click", () => this.go(this.plies.length - 1));
  }
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
  }
}

// ---------- analyse

const Analyse = {
  init() {
    this.board = new YINSH.Board($("an-board"));
    $("an-board").classList.add("view-only"); // no clicks on points: the candidates' numbers show on hover
    this.stepper = new Stepper(this.board, "an", (v) => { this.result = null; this.draw(v); });
    $("an-load").addEventListener("click", () => this.load(true));
    $("an-go").addEventListener("click", () => this.analyse());
    $("an-heat").addEventListener("change", () => this.draw(this.stepper.current()));
    this.board.render(null);
  },
  message(t) { $("an-message").textContent = t || ""; },

  async load(toEnd) {
    this.message("");
    const text = $("an-input").value.trim();
    const body = { variant: $("an-variant").value };
    if (text.startsWith("(")) { body.sgf = text; delete body.variant; }
    else if (/^[.WBwb]{85}\s/.test(text)) body.position = text;
    else body.tokens = text;
    try {
      const r = await api("POST", "/api/replay", body);
      this.stepper.set(r, toEnd ? undefined : 0);
    } catch (e) { this.message(e.message); }
  },

  async analyse() {
    const v = this.stepper.current();
    if (!v) { await this.load(true); if (!this.stepper.current()) return; }
    const cur = this.stepper.current();
    const body = { position: cur.position, variant: this.stepper.variant || $("an-variant").value, top: Number($("an-top").value) || 8 };
    if ($("an-movetime").value) body.movetime = Number($("an-movetime").value);
    else if ($("an-sims").value) body.sims = Number($("an-sims").value);
    if ($("an-player").value.trim()) body.player = $("an-player").value.trim();
    this.message("searching…");
    try {
      this.result = await api("POST", "/api/analyze", body);
      this.message(this.result.player + ": " + this.result.visits + " visits, " + this.result.time_ms.toFixed(0) + " ms of search");
    } catch (e) { this.message(e.message); this.result = null; }
    this.draw(cur);
  },

  draw(view) {
    const r = this.result;
    const marks = {};
    const table = $("an-table"), wdl = $("an-wdl");
    table.replaceChildren(); wdl.replaceChildren(); $("an-pv").textContent = "";
    if (r && view && r.position === view.position) {
      const maxV = Math.max(1, ...r.top.map((a) => a.visits));
      marks.arrows = r.top.map((a, i) => ({ token: a.action, label: String(i + 1), weight: r.searched ? a.visits / maxV : a.prior,
        title: a.action + ": prior " + a.prior.toFixed(3) + ", visits " + a.visits + ", Q " + (a.q === null ? "–" : a.q.toFixed(3)) }));
      if (r.wdl) {
        for (const [k, cls] of [[0, "win"], [1, "draw"], [2, "loss"]]) {
          const d = document.createElement("div");
          d.className = "wdl-" + cls;
          d.style.width = (100 * r.wdl[k]).toFixed(1) + "%";
          d.textContent = pct(r.wdl[k]);
          d.title = cls + " for " + colorWord(r.side);
          wdl.appendChild(d);
        }
      }
      const head = table.insertRow();
      for (const h of ["#", "action", "prior", "visits", "Q"]) { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); }
      r.top.forEach((a, i) => {
        const tr = table.insertRow();
        for (const c of [i + 1, a.action, a.prior.toFixed(3), a.visits, a.q === null ? "–" : a.q.toFixed(3)]) tr.insertCell().textContent = c;
      });
      $("an-pv").textContent = r.pv.length ? "PV: " + r.pv.join(" ") : "";
      const heatBy = $("an-heat").value;
      const policy = r.policy || []; // omitted for players that do not search
      if (heatBy && policy.length) {
        const heat = {};
        const total = policy.reduce((s, a) => s + a.visits, 0) || 1;
        for (const a of policy) {
          const w = heatBy === "visits" ? a.visits / total : a.prior;
          const t = YINSH.parseToken(a.action);
          if (!t) continue;
          const pts = t.kind === "move" ? [t.to] : t.kind === "row" ? YINSH.linePoints(t.from, t.to) : t.at ? [t.at] : [];
          for (const p of pts) heat[p] = (heat[p] || 0) + w;
        }
        const m = Math.max(...Object.values(heat)) || 1;
        for (const k in heat) heat[k] /= m;
        marks.heat = heat;
      }
    }
    this.board.render(view, marks);
  },
};

// ---------- runs (watch and dashboard)

async function listRuns(select) {
  const keep = select.value;
  let runs = [];
  try { runs = (await api("GET", "/api/runs")).runs; } catch (e) { return []; }
  select.replaceChildren();
  for (const r of runs) {
    const o = document.createElement("option");
    o.value = r.name;
    o.textContent = r.name + " (" + r.generations + " gen, " + (r.shards + r.live) + " shards" + (r.sgf ? ", " + r.sgf + " sgf" : "") + ")";
    select.appendChild(o);
  }
  if (keep && runs.some((r) => r.name === keep)) select.value = keep;
  return runs;
}

const Watch = {
  init() {
    this.board = new YINSH.Board($("w-board"));
    $("w-board").classList.add("view-only");
    this.stepper = new Stepper(this.board, "w");
    this.board.render(null);
    $("w-run").addEventListener("change", () => this.open());
    $("w-follow").addEventListener("change", () => this.open());
  },
  async refreshRuns() {
    const runs = await listRuns($("w-run"));
    if (!runs.length) { $("w-message").textContent = "No runs (start yinsh serve with --runs DIR)."; return; }
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
    try { d = await api("GET", "/api/runs/" + encodeURIComponent(this.run) + "/games"); } catch (e) { $("w-message").textContent = e.message; return; }
    if (seq !== this.listSeq) return; // a later listing is on its way
    t.replaceChildren();
    $("w-message").textContent = d.games.length + " games in " + d.shards + " shards" + (d.sgf.length ? ", " + d.sgf.length + " SGF files" : "");
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
      this.stepper.set(r, toEnd ? undefined : 0);
    } catch (e) { $("w-message").textContent = e.message; }
  },
  async showSGF(f) {
    const seq = this.seq = (this.seq || 0) + 1;
    try {
      const r = await api("GET", "/api/runs/" + encodeURIComponent(this.run) + "/sgf/" + encodeURIComponent(f));
      if (seq !== this.seq) return;
      $("w-title").textContent = f + " · " + r.variant + " · result " + r.recorded_result;
      this.stepper.set(r, 0);
    } catch (e) { $("w-message").textContent = e.message; }
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

function niceTicks(lo, hi, n) {
  if (!(hi > lo)) { hi = lo + 1; }
  const step0 = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

// chart draws series [{name, pts: [{x, y, lo, hi}]}] into a new SVG
function chart(parent, title, xLabel, series) {
  const W = 460, H = 250, L = 52, R = 10, T = 26, B = 36;
  const box = document.createElement("figure");
  box.className = "chart";
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", "data-chart": title });
  box.appendChild(svg);
  parent.appendChild(box);
  svgEl("text", { x: L, y: 16, class: "chart-title" }, svg).textContent = title;
  const all = series.flatMap((s) => s.pts).filter((p) => Number.isFinite(p.y));
  if (!all.length) { svgEl("text", { x: W / 2, y: H / 2, class: "chart-empty" }, svg).textContent = "no data yet"; return; }
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
  for (const t of niceTicks(x0, x1, 6)) {
    svgEl("text", { x: sx(t), y: H - B + 15, class: "tick tick-x" }, svg).textContent = t;
  }
  svgEl("text", { x: (L + W - R) / 2, y: H - 4, class: "axis-label" }, svg).textContent = xLabel;
  series.forEach((s, k) => {
    const pts = s.pts.filter((p) => Number.isFinite(p.y));
    if (!pts.length) return;
    const cls = "series s" + (k % 5);
    for (const p of pts) {
      if (Number.isFinite(p.lo) && Number.isFinite(p.hi)) svgEl("line", { x1: sx(p.x), x2: sx(p.x), y1: sy(p.lo), y2: sy(p.hi), class: cls + " errbar" }, svg);
    }
    svgEl("polyline", { points: pts.map((p) => sx(p.x).toFixed(1) + "," + sy(p.y).toFixed(1)).join(" "), class: cls + " line" }, svg);
    for (const p of pts) svgEl("circle", { cx: sx(p.x), cy: sy(p.y), r: 2.5, class: cls + " dot" }, svg);
    svgEl("text", { x: W - R - 4, y: T + 4 + 13 * k, class: cls + " legend" }, svg).textContent = s.name;
  });
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
    const cmp = $("d-compare"), keep = new Set([...cmp.selectedOptions].map((o) => o.value));
    cmp.replaceChildren();
    for (const r of runs) {
      const o = document.createElement("option");
      o.value = o.textContent = r.name;
      o.selected = keep.has(r.name);
      cmp.appendChild(o);
    }
    if (!runs.length) { $("d-live").textContent = "No runs (start yinsh serve with --runs DIR)."; this.draw(); return; }
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
        $("d-live").textContent = "live: " + counts.join(", ") + " (updated " + new Date().toLocaleTimeString() + ")";
        this.draw();
      });
      r.es.onerror = () => { $("d-live").textContent = "disconnected, retrying…"; };
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
      chart(box, "training loss (total)", xl, each((m) => g(m, "train", "loss")));
      chart(box, "Elo (95% interval) vs each run's anchor", xl, each(elo));
      chart(box, "game length (actions)", xl, each((m) => g(m, "selfplay", "mean_length")));
      chart(box, "self-play games/hour", xl, each((m) => g(m, "selfplay", "games_per_hour")));
      chart(box, "score against baselines", xl, runs.flatMap((r) =>
        baselines(r.lines).map((k) => series(r.name + ": " + k, r.lines, (m) => g(m, "eval", "baselines", k)))));
      return;
    }
    const lines = runs.length ? runs[0].lines : [];
    const S = (name, f) => series(name, lines, f);
    chart(box, "losses", xl, [S("total", (m) => g(m, "train", "loss")), S("policy", (m) => g(m, "train", "loss_policy")), S("value", (m) => g(m, "train", "loss_value"))]);
    chart(box, "Elo (95% interval) vs " + ((lines.find((m) => m.rating_anchor) || {}).rating_anchor || "anchor"), xl, [S("elo", elo)]);
    chart(box, "game length (actions)", xl, [S("mean length", (m) => g(m, "selfplay", "mean_length"))]);
    chart(box, "self-play games/hour", xl, [S("games/h", (m) => g(m, "selfplay", "games_per_hour"))]);
    chart(box, "score against baselines", xl, baselines(lines).map((k) => S(k, (m) => g(m, "eval", "baselines", k))));
  },
};

// ---------- start

window.addEventListener("DOMContentLoaded", async () => {
  for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => showTab(b.dataset.tab));
  Play.init();
  try {
    // the page carries the /api/info answer inlined (one request fewer); ask for it otherwise
    const inlined = document.getElementById("info-json");
    const info = (inlined && JSON.parse(inlined.textContent)) || await api("GET", "/api/info");
    $("server-info").textContent = "agent: " + info.player + (info.runs ? "" : " · no --runs");
    $("ng-variant").value = info.variant;
    $("an-variant").value = info.variant;
    if (info.sims) $("an-sims").value = Math.min(info.sims, info.max_sims);
    Play.info = info;
  } catch (e) { $("server-info").textContent = e.message; }
  const tab = location.hash.slice(1);
  showTab(["play", "analyse", "watch", "dashboard"].includes(tab) ? tab : "play");
  document.body.dataset.ready = "1";
});
