// YINSH board in SVG: geometry of the 85 points, pieces, marks and click targets. No library.
"use strict";

const YINSH = (() => {
  const COLS = "abcdefghijk";
  // valid rows per column, as in docs/rules.md
  const RANGES = [[2, 5], [1, 7], [1, 8], [1, 9], [1, 10], [2, 10], [2, 11], [3, 11], [4, 11], [5, 11], [7, 10]];
  const S = 44; // distance between neighbouring points
  const X0 = 50, Y0 = 50 + 8 * S;
  const NS = "http://www.w3.org/2000/svg";
  const MOVE_MS = 200; // a ring's glide, and a flipped marker's turn after half of it

  const points = []; // in point order (the position text's): {name, c, r, x, y}
  const byName = {};
  RANGES.forEach(([lo, hi], c) => {
    for (let r = lo; r <= hi; r++) {
      const p = { name: COLS[c] + r, c, r, x: X0 + c * S * 0.8660254, y: Y0 - (r - c / 2) * S };
      points.push(p);
      byName[p.name] = p;
    }
  });
  const valid = (c, r) => c >= 0 && c < 11 && r >= RANGES[c][0] && r <= RANGES[c][1];
  // the centre of the points (a4..g11 span y = 50 .. 50 + 9S): the board turns about it
  const CX = X0 + 5 * S * 0.8660254, CY = 50 + 4.5 * S;
  const at = (c, r) => ({ x: X0 + c * S * 0.8660254, y: Y0 - (r - c / 2) * S });

  function el(name, attrs, parent) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  // parse an action token into its kind and points
  function parseToken(tok) {
    if (tok === "pass") return { kind: "pass" };
    let m = /^x([a-k]\d+)-([a-k]\d+)$/.exec(tok);
    if (m) return { kind: "row", from: m[1], to: m[2] };
    m = /^x([a-k]\d+)$/.exec(tok);
    if (m) return { kind: "ring", at: m[1] };
    m = /^([a-k]\d+)-([a-k]\d+)$/.exec(tok);
    if (m) return { kind: "move", from: m[1], to: m[2] };
    if (byName[tok]) return { kind: "place", at: tok };
    return null;
  }

  // the points of the line from a to b, both included
  function linePoints(a, b) {
    const pa = byName[a], pb = byName[b];
    if (!pa || !pb) return [];
    const dc = Math.sign(pb.c - pa.c), dr = Math.sign(pb.r - pa.r);
    const out = [];
    let c = pa.c, r = pa.r;
    for (let i = 0; i < 12; i++) {
      out.push(COLS[c] + r);
      if (c === pb.c && r === pb.r) break;
      c += dc; r += dr;
    }
    return out;
  }

  class Board {
    constructor(svg) {
      this.svg = svg;
      this.handlers = { point: null, row: null };
      svg.setAttribute("viewBox", "0 0 " + (X0 * 2 + 10 * S * 0.866) + " " + (Y0 + 1.9 * S + 20));
      // everything in one group, which flip turns by 180° about the board's centre (the board is
      // symmetric under that turn; texts are turned back so they stay upright)
      this.flipped = false;
      this.gRoot = el("g", { class: "root" }, svg);
      const root = this.gRoot;
      this.gGrid = el("g", { class: "grid" }, root);
      this.gHeat = el("g", { class: "heat" }, root);
      this.gFours = el("g", { class: "fours" }, root);
      this.gLast = el("g", { class: "last" }, root);
      this.gPieces = el("g", { class: "pieces" }, root);
      this.gHints = el("g", { class: "hints" }, root);
      this.gArrows = el("g", { class: "arrows" }, root);
      this.gTargets = el("g", { class: "targets" }, root);
      this.gRows = el("g", { class: "rows" }, root);
      this.drawGrid();
      for (const p of points) {
        const t = el("circle", { cx: p.x, cy: p.y, r: S * 0.45, class: "target", "data-point": p.name }, this.gTargets);
        t.addEventListener("click", () => this.handlers.point && this.handlers.point(p.name));
      }
    }

    drawGrid() {
      for (const p of points) {
        for (const [dc, dr] of [[0, 1], [1, 0], [1, 1]]) {
          if (valid(p.c + dc, p.r + dr)) {
            const q = at(p.c + dc, p.r + dr);
            el("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y }, this.gGrid);
          }
        }
      }
      // coordinates on the edges: each column's letter below its lowest point, each row's number
      // beyond its first point (rows run down to the right, so the numbers stand on the left edges)
      RANGES.forEach(([lo], c) => {
        const q = at(c, lo - 0.8);
        el("text", { x: q.x, y: q.y + 4, class: "coord coord-col" }, this.gGrid).textContent = COLS[c];
      });
      for (let r = 1; r <= 11; r++) {
        let cmin = 11;
        for (let c = 0; c < 11; c++) if (valid(c, r)) cmin = Math.min(cmin, c);
        const q = at(cmin - 0.8, r);
        el("text", { x: q.x, y: q.y + 4, class: "coord coord-row" }, this.gGrid).textContent = r;
      }
    }

    // flip turns the board by 180° (black's side at the bottom) or back; on: true, false or
    // undefined to toggle. It returns whether the board is flipped now.
    flip(on) {
      this.flipped = on === undefined ? !this.flipped : !!on;
      if (this.flipped) this.gRoot.setAttribute("transform", `rotate(180 ${CX} ${CY})`);
      else this.gRoot.removeAttribute("transform");
      this.svg.dataset.flipped = this.flipped ? "1" : "0";
      this.uprightTexts();
      return this.flipped;
    }

    // uprightTexts turns each text back about its own anchor on a flipped board
    uprightTexts() {
      for (const t of this.gRoot.querySelectorAll("text")) {
        if (this.flipped) t.setAttribute("transform", `rotate(180 ${t.getAttribute("x")} ${t.getAttribute("y")})`);
        else t.removeAttribute("transform");
      }
    }

    onPoint(fn) { this.handlers.point = fn; }
    onRow(fn) { this.handlers.row = fn; }

    // render draws a board view (the server's boardView) with optional marks:
    // hints: point names to highlight as clickable; selected: a point; rows: row tokens to offer;
    // arrows: [{token, label, weight}]; heat: {point: value in [0,1]}; animate: show a ring move
    // that came since the last render (animateMove).
    render(view, marks) {
      marks = marks || {};
      for (const g of [this.gHeat, this.gFours, this.gLast, this.gPieces, this.gHints, this.gArrows, this.gRows]) g.replaceChildren();
      const board = view ? view.board : "";
      this.svg.dataset.phase = view ? view.phase : "";
      this.svg.dataset.result = view ? view.result : "";
      this.svg.dataset.position = view ? view.position || "" : "";
      if (marks.heat) {
        for (const name in marks.heat) {
          const p = byName[name], v = marks.heat[name];
          if (p && v > 0) el("circle", { cx: p.x, cy: p.y, r: S * 0.48, class: "heatspot", "fill-opacity": (0.15 + 0.8 * v).toFixed(3) }, this.gHeat);
        }
      }
      if (view) {
        // a row of four: a dashed line over the window and a hollow circle on the point that
        // completes it (rows to remove are solid bars: the two differ by more than colour)
        for (const f of view.fours || []) {
          const [a, b] = f.row.split("-");
          const pa = byName[a], pb = byName[b], pf = byName[f.fifth];
          if (!pa || !pb || !pf) continue;
          el("line", { x1: pa.x, y1: pa.y, x2: pb.x, y2: pb.y, class: "four four-" + f.color, "data-four": f.row }, this.gFours);
          el("circle", { cx: pf.x, cy: pf.y, r: 9, class: "four-fifth four-" + f.color }, this.gFours);
        }
        if (view.last) this.drawLast(view.last, board);
      }
      const pieces = {}; // point → its piece's circle
      points.forEach((p, i) => {
        const ch = board[i];
        if (ch === "W" || ch === "B") {
          pieces[p.name] = el("circle", { cx: p.x, cy: p.y, r: S * 0.36, class: "ring ring-" + (ch === "W" ? "w" : "b"), "data-piece": ch }, this.gPieces);
        } else if (ch === "w" || ch === "b") {
          pieces[p.name] = el("circle", { cx: p.x, cy: p.y, r: S * 0.24, class: "marker marker-" + ch, "data-piece": ch }, this.gPieces);
        }
      });
      if (marks.animate && view) this.animateMove(view.last, this.prevBoard || "", board, pieces);
      this.prevBoard = board;
      for (const name of marks.hints || []) {
        const p = byName[name];
        if (p) el("circle", { cx: p.x, cy: p.y, r: 7, class: "hint", "data-hint": name }, this.gHints);
      }
      if (marks.selected && byName[marks.selected]) {
        const p = byName[marks.selected];
        el("circle", { cx: p.x, cy: p.y, r: S * 0.44, class: "selected" }, this.gHints);
      }
      this.drawArrows(marks.arrows || []);
      this.drawRows(marks.rows || []);
      if (this.flipped) this.uprightTexts();
    }

    // animateMove shows the ring move last that turned the board before into board: the ring
    // glides from its origin to its destination and the markers it flipped turn over to their new
    // colour (~200 ms, Web Animations on the SVG circles). Only on the first drawing of the move
    // (the board before still has the ring at its origin), and never with prefers-reduced-motion.
    animateMove(last, before, board, pieces) {
      const t = last ? parseToken(last) : null;
      if (!t || t.kind !== "move" || !before || before === board) return;
      if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
      const i = (name) => points.indexOf(byName[name]);
      const ring = pieces[t.to], a = byName[t.from], b = byName[t.to];
      if (!ring || !a || !b || !"WB".includes(before[i(t.from)] || "-") || before[i(t.from)] !== board[i(t.to)]) return;
      if (typeof ring.animate !== "function") return;
      ring.animate([{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px)` }, { transform: "translate(0px, 0px)" }],
        { duration: MOVE_MS, easing: "ease-out" });
      const css = getComputedStyle(document.documentElement); // the pieces' colours: style.css's --piece-w, --piece-b
      const fill = { w: css.getPropertyValue("--piece-w").trim(), b: css.getPropertyValue("--piece-b").trim() };
      for (const name of linePoints(t.from, t.to)) {
        const was = before[i(name)], now = board[i(name)], m = pieces[name];
        if (!m || !fill[was] || !fill[now] || was === now) continue;
        m.animate([{ fill: fill[was], transform: "scaleX(1)" }, { fill: fill[was], transform: "scaleX(0)", offset: 0.5 },
          { fill: fill[now], transform: "scaleX(1)" }], { duration: MOVE_MS, delay: MOVE_MS / 2, easing: "ease-in-out", fill: "backwards" });
      }
    }

    // drawRows offers rows to remove as solid bars. Rows on one line that share points (six or
    // more in a line) are drawn side by side, shifted across the line, so each has its own bar to
    // click; hovering one marks its five points.
    drawRows(toks) {
      const rows = [];
      for (const tok of toks) {
        const t = parseToken(tok);
        if (!t || t.kind !== "row" || !byName[t.from] || !byName[t.to]) continue;
        const pts = linePoints(t.from, t.to), pa = byName[t.from], pb = byName[t.to];
        const len = Math.hypot(pb.x - pa.x, pb.y - pa.y) || 1;
        rows.push({ tok, pts, pa, pb, dir: [(pb.x - pa.x) / len, (pb.y - pa.y) / len], slot: 0 });
      }
      const parallel = (a, b) => Math.abs(a.dir[0] * b.dir[1] - a.dir[1] * b.dir[0]) < 1e-6;
      const overlap = (a, b) => parallel(a, b) && a.pts.some((p) => b.pts.includes(p));
      // a slot per row, different from the slots of the rows it overlaps; then each group of
      // overlapping rows is centred on its line
      rows.forEach((r, i) => {
        const used = new Set(rows.slice(0, i).filter((o) => overlap(o, r)).map((o) => o.slot));
        while (used.has(r.slot)) r.slot++;
      });
      const GAP = 12;
      for (const r of rows) {
        const group = rows.filter((o) => o === r || overlap(o, r));
        const n = Math.max(...group.map((o) => o.slot)) + 1;
        const off = (r.slot - (n - 1) / 2) * GAP, nx = -r.dir[1] * off, ny = r.dir[0] * off;
        const g = el("g", { class: "row-choice-g", "data-action": r.tok }, this.gRows);
        for (const p of r.pts) {
          const q = byName[p];
          el("circle", { cx: q.x, cy: q.y, r: S * 0.3, class: "row-point" }, g);
        }
        const x1 = r.pa.x + nx, y1 = r.pa.y + ny, x2 = r.pb.x + nx, y2 = r.pb.y + ny;
        el("line", { x1, y1, x2, y2, class: "row-bar" }, g);
        el("rect", { x: x1 - 4, y: y1 - 4, width: 8, height: 8, class: "row-end" }, g);
        el("rect", { x: x2 - 4, y: y2 - 4, width: 8, height: 8, class: "row-end" }, g);
        const hit = el("line", { x1, y1, x2, y2, class: "row-choice", "data-action": r.tok, "stroke-width": n > 1 ? GAP : 16 }, g);
        el("title", {}, hit).textContent = "remove the row " + r.tok.slice(1);
        hit.addEventListener("click", () => this.handlers.row && this.handlers.row(r.tok));
      }
      this.gRows.classList.toggle("active", rows.length > 0);
    }

    drawLast(tok, board) {
      const t = parseToken(tok);
      if (!t) return;
      const mark = (name) => { const p = byName[name]; if (p) el("circle", { cx: p.x, cy: p.y, r: S * 0.47, class: "lastmark" }, this.gLast); };
      switch (t.kind) {
        case "place": mark(t.at); break;
        case "move": {
          const a = byName[t.from], b = byName[t.to];
          el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "lastline" }, this.gLast);
          mark(t.from); mark(t.to);
          break;
        }
        case "row": {
          const a = byName[t.from], b = byName[t.to];
          el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "lastrow" }, this.gLast);
          break;
        }
        case "ring": {
          const p = byName[t.at], d = S * 0.25;
          el("path", { d: `M${p.x - d},${p.y - d}L${p.x + d},${p.y + d}M${p.x - d},${p.y + d}L${p.x + d},${p.y - d}`, class: "lastx" }, this.gLast);
          break;
        }
      }
    }

    // drawArrows draws candidates: a line or a spot each, and its label beside the point it ends
    // on; labels of candidates that end on one point are set around it, not on each other, and
    // that point's hover target gives all their numbers.
    drawArrows(arrows) {
      const LABEL_AT = [[10, -9], [10, 15], [-20, -9], [-20, 15], [-5, -19], [-5, 26], [22, 3], [-31, 3]];
      const at = {}; // point → [{label, title}]
      for (const a of arrows) {
        const t = parseToken(a.token);
        if (!t || t.kind === "pass") continue;
        const w = 2 + 6 * (a.weight || 0);
        let end;
        if (t.kind === "move" || t.kind === "row") {
          const p = byName[t.from], q = byName[t.to];
          if (!p || !q) continue;
          el("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y, class: "arrow arrow-" + t.kind, "stroke-width": w.toFixed(1) }, this.gArrows);
          el("circle", { cx: q.x, cy: q.y, r: 4 + w / 2, class: "arrowhead" }, this.gArrows);
          end = t.to;
        } else {
          const p = byName[t.at];
          if (!p) continue;
          el("circle", { cx: p.x, cy: p.y, r: S * 0.3, class: "arrow-spot", "stroke-width": w.toFixed(1) }, this.gArrows);
          end = t.at;
        }
        (at[end] = at[end] || []).push(a);
      }
      for (const name in at) {
        const p = byName[name], list = at[name];
        list.forEach((a, k) => {
          if (!a.label) return;
          const [dx, dy] = LABEL_AT[k % LABEL_AT.length], ring = 1 + Math.floor(k / LABEL_AT.length);
          el("text", { x: p.x + dx * ring, y: p.y + dy * ring, class: "arrow-label", "data-label": a.label }, this.gArrows).textContent = a.label;
        });
        const titles = list.filter((a) => a.title).map((a) => (a.label ? a.label + ". " : "") + a.title);
        if (titles.length) {
          // the candidates' numbers where the pointer is: a hover target over the point
          const hot = el("circle", { cx: p.x, cy: p.y, r: 12, class: "arrow-hover" }, this.gArrows);
          el("title", {}, hot).textContent = titles.join("\n");
        }
      }
    }
  }

  return { Board, points, byName, parseToken, linePoints };
})();
