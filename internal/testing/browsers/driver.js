// driver.js: inserted by the Go package internal/testing/browsers as the first
// script of every page. It reports the page's problems and evaluates what Go
// sends it. The Go side bakes the configuration in.
(() => {
  "use strict";
  const cfg = __CONFIG__;
  if (cfg.noWaitAsync && typeof Atomics !== "undefined") {
    delete Atomics.waitAsync;
  }
  if (!cfg.session) {
    return; // not opened by a Driver
  }
  // Keep our own references: a page's scripts may replace these.
  const fetch = window.fetch.bind(window);
  const stringify = JSON.stringify;
  const setTimeout = window.setTimeout.bind(window);
  const indirectEval = window.eval;
  const doc = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const query = `?s=${cfg.session}&p=${cfg.page}&d=${doc}`;
  const url = (name) => cfg.prefix + name + query;
  const inFlight = new Set();

  // The page's workers, ended when Go closes the page: the closed page stays
  // in the tab, idle, until Go opens the next one from it. (Their workers'
  // own workers end with them.)
  const workers = new Set();
  if (typeof window.Worker === "function") {
    window.Worker = new Proxy(window.Worker, {
      construct(target, args, newTarget) {
        const w = Reflect.construct(target, args, newTarget);
        workers.add(w);
        return w;
      },
    });
  }
  function endWorkers() {
    for (const w of workers) {
      try { w.terminate(); } catch {}
    }
    workers.clear();
  }

  // post sends a report; keepalive lets small ones outlive the page.
  function post(name, body) {
    const text = stringify(body);
    const p = fetch(url(name), { method: "POST", body: text, cache: "no-store", keepalive: text.length < 32000 })
      .catch(() => {});
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
    return p;
  }
  // flush resolves once every report sent so far has reached Go.
  const flush = () => Promise.all([...inFlight]);

  function errorText(e) {
    if (e instanceof Error || (e && typeof e === "object" && "message" in e && "stack" in e)) {
      let head;
      try { head = String(e); } catch { head = `${e.name}: ${e.message}`; }
      const stack = typeof e.stack === "string" ? cleanStack(e.stack) : "";
      if (!stack) return head;
      return stack.startsWith(head) ? stack : head + "\n" + stack;
    }
    return valueText(e);
  }
  // cleanStack drops the frames of driver.js itself from a stack and names
  // the evaluated code's frames <eval>.
  function cleanStack(stack) {
    const self = /__driver\/driver\.js:\d+:\d+\)?$|^\s*(at )?eval( \(<anonymous>\)|@\[native code\])$/;
    return stack.split("\n")
      .filter((l) => !self.test(l))
      .map((l) => l
        .replace(/eval at evaluate \(\S*__driver\/driver\.js:\d+:\d+\), <anonymous>/, "<eval>")
        .replace(/https?:\/\/[^\s@()]*__driver\/driver\.js line \d+ > eval/, "<eval>"))
      .join("\n").trim();
  }
  function valueText(v) {
    if (typeof v === "string") return v;
    if (v instanceof Error) return errorText(v);
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
    try { return stringify(v) ?? String(v); } catch { return String(v); }
  }
  const problem = (kind, text) => post("problem", { kind, text: String(text).slice(0, 16000) });

  const consoleError = console.error;
  console.error = function (...args) {
    try { problem("console.error", args.map(valueText).join(" ")); } catch {}
    return consoleError.apply(this, args);
  };
  window.addEventListener("error", (e) => {
    const t = e.target;
    if (t && t !== window && t.nodeType === 1) { // a resource that failed to load
      problem("load", `<${t.localName}> ${t.src || t.href || ""}`);
      return;
    }
    const file = e.filename && e.filename !== "undefined" ? cleanStack(e.filename) : "";
    const where = file ? ` (${file}:${e.lineno}:${e.colno})` : "";
    problem("uncaught", (e.error !== undefined && e.error !== null ? errorText(e.error) : e.message) + where);
  }, true);
  window.addEventListener("unhandledrejection", (e) => problem("unhandledrejection", errorText(e.reason)));
  window.addEventListener("pagehide", () => post("bye", {}));

  async function evaluate({ id, expr }) {
    let res;
    try {
      const v = await indirectEval(expr);
      res = stringify({ id, ok: v });
    } catch (e) {
      let msg;
      try { msg = errorText(e); } catch { msg = "(an exception that cannot be shown)"; }
      res = stringify({ id, err: msg });
    }
    await flush(); // problems before the result, so Go sees them first
    fetch(url("result"), { method: "POST", body: res, cache: "no-store" }).catch(() => {});
  }

  async function loop() {
    let closed = false;
    for (;;) {
      let c;
      try {
        const r = await fetch(url("poll"), { method: "POST", cache: "no-store" });
        c = await r.json();
      } catch {
        if (closed && cfg.home) {
          // Closed, and its server gone (a test's own server): the runner
          // is on the one Go started the engine at.
          location.replace(cfg.home);
          return;
        }
        await new Promise((ok) => setTimeout(ok, 200));
        continue;
      }
      if (c.stop) return;
      for (const e of c.evals || []) evaluate(e).catch(() => {});
      if (c.navigate) {
        document.cookie = `__sabdrv=${cfg.session}.${c.navigate.token}; path=/; SameSite=Lax`;
        location.replace(c.navigate.url);
        return;
      }
      if (c.close) {
        await flush();
        await post("closed", {});
        endWorkers();
        closed = true;
      }
      if (c.home) {
        location.replace(c.home);
        return;
      }
    }
  }

  function start() {
    post("hello", { href: location.href });
    loop();
  }
  if (document.readyState === "complete") start();
  else window.addEventListener("load", () => setTimeout(start, 0), { once: true });
})();
