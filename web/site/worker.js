// YINSH Zero web export: the Web Worker that runs the agent (yinsh.wasm, yinsh serve's handler
// built for js/wasm). The page's shim posts {id, method, path, type, body}; the answer comes back
// as {id, status, type, body}. Nothing is fetched but yinsh.wasm and wasm_exec.js, from this site.
"use strict";

// An in-memory file system in Node's fs shape, which Go's os package uses under js/wasm: the
// agent's players read each variant's reference network through a file (nets.Path writes it once
// under /tmp). Standard output and error go to the console.
self.fs = (() => {
  const S_IFDIR = 0o040000, S_IFREG = 0o100000;
  const C = { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536 };
  const nodes = new Map([["/", { dir: true, mode: 0o755, data: null, mtime: Date.now() }]]);
  const fds = new Map();
  let nextFd = 3;
  const fail = (code) => { const e = new Error(code); e.code = code; return e; };
  const norm = (p) => {
    const out = [];
    for (const s of String(p).split("/")) {
      if (s === "" || s === ".") continue;
      if (s === "..") out.pop(); else out.push(s);
    }
    return "/" + out.join("/");
  };
  const parent = (p) => p.slice(0, p.lastIndexOf("/")) || "/";
  const stat = (n) => ({
    dev: 1, ino: 0, mode: (n.dir ? S_IFDIR : S_IFREG) | n.mode, nlink: 1, uid: 0, gid: 0, rdev: 0,
    size: n.dir ? 0 : n.size, blksize: 4096, blocks: n.dir ? 0 : Math.ceil(n.size / 512),
    atimeMs: n.mtime, mtimeMs: n.mtime, ctimeMs: n.mtime, isDirectory: () => n.dir,
  });
  // callbacks run as Node's do, after the call returns
  const done = (cb, err, val) => queueMicrotask(() => cb(err, val));
  const decoder = new TextDecoder();
  const out = { 1: "", 2: "" };
  const fd = (n) => fds.get(n);
  const file = (n) => { const f = fds.get(n); if (!f) throw fail("EBADF"); return f; };
  const wrap = (cb, f) => { try { done(cb, null, f()); } catch (e) { done(cb, e.code ? e : fail("EIO")); } };
  const writeAt = (n, buf, at) => {
    const end = at + buf.length;
    if (end > n.data.length) {
      const grown = new Uint8Array(Math.max(end, 2 * n.data.length));
      grown.set(n.data.subarray(0, n.size));
      n.data = grown;
    }
    n.data.set(buf, at);
    n.size = Math.max(n.size, end);
    n.mtime = Date.now();
  };
  const lookup = (path) => { const n = nodes.get(norm(path)); if (!n) throw fail("ENOENT"); return n; };
  return {
    constants: C,
    writeSync(fd, buf) {
      out[fd] = (out[fd] || "") + decoder.decode(buf);
      const nl = out[fd].lastIndexOf("\n");
      if (nl !== -1) {
        (fd === 2 ? console.warn : console.log)(out[fd].substring(0, nl));
        out[fd] = out[fd].substring(nl + 1);
      }
      return buf.length;
    },
    open(path, flags, mode, cb) {
      wrap(cb, () => {
        const p = norm(path);
        let n = nodes.get(p);
        if (n && (flags & C.O_CREAT) && (flags & C.O_EXCL)) throw fail("EEXIST");
        if (!n) {
          if (!(flags & C.O_CREAT)) throw fail("ENOENT");
          const d = nodes.get(parent(p));
          if (!d || !d.dir) throw fail("ENOENT");
          n = { dir: false, mode: mode & 0o777, data: new Uint8Array(0), size: 0, mtime: Date.now() };
          nodes.set(p, n);
        }
        if (n.dir && (flags & (C.O_WRONLY | C.O_RDWR))) throw fail("EISDIR");
        if (!n.dir && (flags & C.O_DIRECTORY)) throw fail("ENOTDIR");
        if (!n.dir && (flags & C.O_TRUNC)) n.size = 0;
        const k = nextFd++;
        fds.set(k, { node: n, pos: 0, append: !!(flags & C.O_APPEND) });
        return k;
      });
    },
    close(k, cb) { wrap(cb, () => { file(k); fds.delete(k); }); },
    fstat(k, cb) { wrap(cb, () => stat(file(k).node)); },
    stat(path, cb) { wrap(cb, () => stat(lookup(path))); },
    lstat(path, cb) { wrap(cb, () => stat(lookup(path))); },
    read(k, buf, off, len, pos, cb) {
      wrap(cb, () => {
        const f = file(k), n = f.node;
        if (n.dir) throw fail("EISDIR");
        const at = pos === null || pos === undefined ? f.pos : pos;
        const m = Math.max(0, Math.min(len, n.size - at));
        buf.set(n.data.subarray(at, at + m), off);
        if (pos === null || pos === undefined) f.pos += m;
        return m;
      });
    },
    write(k, buf, off, len, pos, cb) {
      wrap(cb, () => {
        const chunk = buf.subarray(off, off + len);
        if ((k === 1 || k === 2) && !fd(k)) return this.writeSync(k, chunk);
        const f = file(k), n = f.node;
        if (n.dir) throw fail("EISDIR");
        const at = f.append ? n.size : pos === null || pos === undefined ? f.pos : pos;
        writeAt(n, chunk, at);
        if (pos === null || pos === undefined) f.pos = at + len;
        return len;
      });
    },
    mkdir(path, perm, cb) {
      wrap(cb, () => {
        const p = norm(path);
        if (nodes.has(p)) throw fail("EEXIST");
        const d = nodes.get(parent(p));
        if (!d || !d.dir) throw fail("ENOENT");
        nodes.set(p, { dir: true, mode: perm & 0o777, data: null, mtime: Date.now() });
      });
    },
    readdir(path, cb) {
      wrap(cb, () => {
        const p = norm(path), n = lookup(p);
        if (!n.dir) throw fail("ENOTDIR");
        const pre = p === "/" ? "/" : p + "/";
        return [...nodes.keys()].filter((q) => q !== p && q.startsWith(pre) && !q.slice(pre.length).includes("/")).map((q) => q.slice(pre.length));
      });
    },
    rename(from, to, cb) {
      wrap(cb, () => {
        const a = norm(from), b = norm(to), n = lookup(a);
        const d = nodes.get(parent(b));
        if (!d || !d.dir) throw fail("ENOENT");
        if (n.dir) throw fail("ENOSYS"); // the agent renames files only
        const old = nodes.get(b);
        if (old && old.dir) throw fail("EISDIR");
        nodes.delete(a);
        nodes.set(b, n);
      });
    },
    unlink(path, cb) {
      wrap(cb, () => { const p = norm(path); if (lookup(p).dir) throw fail("EISDIR"); nodes.delete(p); });
    },
    rmdir(path, cb) {
      wrap(cb, () => {
        const p = norm(path), n = lookup(p);
        if (!n.dir) throw fail("ENOTDIR");
        for (const q of nodes.keys()) if (q.startsWith(p + "/")) throw fail("ENOTEMPTY");
        nodes.delete(p);
      });
    },
    fsync(k, cb) { wrap(cb, () => { file(k); }); },
    chmod(path, mode, cb) { wrap(cb, () => { lookup(path).mode = mode & 0o777; }); },
    fchmod(k, mode, cb) { wrap(cb, () => { file(k).node.mode = mode & 0o777; }); },
    chown(path, uid, gid, cb) { wrap(cb, () => { lookup(path); }); },
    fchown(k, uid, gid, cb) { wrap(cb, () => { file(k); }); },
    lchown(path, uid, gid, cb) { wrap(cb, () => { lookup(path); }); },
    truncate(path, length, cb) { wrap(cb, () => { const n = lookup(path); n.size = Math.min(n.size, length); }); },
    ftruncate(k, length, cb) { wrap(cb, () => { const n = file(k).node; n.size = Math.min(n.size, length); }); },
    utimes(path, atime, mtime, cb) { wrap(cb, () => { lookup(path).mtime = mtime * 1000; }); },
    link(path, link, cb) { done(cb, fail("ENOSYS")); },
    symlink(path, link, cb) { done(cb, fail("ENOSYS")); },
    readlink(path, cb) { done(cb, fail("ENOSYS")); },
  };
})();

importScripts("wasm_exec.js");

// yinsh.wasm reads its agent from these (the page's ?player= and ?variant=)
const args = new URLSearchParams(location.search);
self.yinshPlayer = args.get("player") || "";
self.yinshVariant = args.get("variant") || "";

self.onmessage = (e) => {
  const m = e.data;
  if (self.yinshRequest) self.yinshRequest(m.id, m.method, m.path, m.type || "", m.body || "");
  else postMessage({ id: m.id, status: 503, type: "application/json", body: JSON.stringify({ error: "the agent has not started" }) });
};

(async () => {
  try {
    const go = new Go();
    let inst;
    try {
      inst = (await WebAssembly.instantiateStreaming(fetch("yinsh.wasm"), go.importObject)).instance;
    } catch (err) { // a server that does not send application/wasm
      const res = await fetch("yinsh.wasm");
      if (!res.ok) throw new Error("yinsh.wasm: " + res.status + " " + res.statusText);
      inst = (await WebAssembly.instantiate(await res.arrayBuffer(), go.importObject)).instance;
    }
    await go.run(inst);
    postMessage({ fatal: "the agent stopped (yinsh.wasm exited)" });
  } catch (err) {
    postMessage({ fatal: "the agent did not start: " + err });
  }
})();
