// YINSH Zero web export: window.yinshFetch, the page's fetch for /api (app.js's api()), answered by
// yinsh serve's handler running in a Web Worker (worker.js) instead of a server.
"use strict";
(() => {
  // the agent: ?player=SPEC (reference, level:N, heuristic, …) and ?variant=standard|blitz of the
  // page's address, passed on to the worker
  const q = new URLSearchParams(location.search), w = new URLSearchParams();
  for (const k of ["player", "variant"]) if (q.has(k)) w.set(k, q.get(k));
  const worker = new Worker("worker.js" + (w.size ? "?" + w : ""));
  const pending = new Map(); // id → {resolve, reject}
  const waiting = []; // requests sent before the agent started
  let ready = false, fatal = null, next = 1;
  const stop = (msg) => {
    fatal = msg;
    for (const p of pending.values()) p.reject(new Error(msg));
    for (const w of waiting.splice(0)) w.reject(new Error(msg));
    pending.clear();
  };
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.ready) {
      ready = true;
      for (const w of waiting.splice(0)) w.send();
      return;
    }
    if (m.fatal) return stop(m.fatal);
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    const empty = m.status === 204 || m.status === 205 || m.status === 304;
    p.resolve(new Response(empty ? null : m.body, { status: m.status, headers: { "Content-Type": m.type || "text/plain" } }));
  };
  worker.onerror = (e) => stop("the agent's worker failed: " + (e.message || "error"));
  window.yinshFetch = (path, opts = {}) => new Promise((resolve, reject) => {
    const send = () => {
      const id = next++;
      pending.set(id, { resolve, reject });
      const headers = opts.headers || {};
      worker.postMessage({ id, method: opts.method || "GET", path: String(path), type: headers["Content-Type"] || "", body: opts.body || "" });
    };
    if (fatal) reject(new Error(fatal));
    else if (ready) send();
    else waiting.push({ send, reject });
  });
})();
