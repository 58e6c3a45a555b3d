// The debug area's writer and readers, in JavaScript: its layout, the modes
// of a mark and the order of each write and read are Go's
// (internal/core/debugarea.go, whose Debug* functions are sabsync's writer and
// which coretest's TestExploreDebug* explore with the readers' steps);
// here they are followed step by step, so that none of it weighs on
// sabmutex.wasm. A mark's fields: key, mode, label, site, since, gen (0-5);
// an edge's: from, to, modes, from label, from site, to label, to site.
// browsertest's TestDebugGoAgentLockOrder checks that the two agree: a Go
// agent's orders and lock keys, read here, close a cycle with a worker's.
// debug.js uses it.
import * as P from "./protocol.js";

// An area: i32 over its buffer, base its header's first slot, and epochMs,
// the time origin of the clock its marks are on (the registry's epoch).
export class Area {
  /** @param {Int32Array} i32 @param {number} base @param {number} epochMs */
  constructor(i32, base, epochMs) {
    this.i32 = i32;
    this.base = base;
    this.epochMs = epochMs;
  }

  get heldMs() {
    return Atomics.load(this.i32, this.base + P.DEBUG_HELD_MS);
  }

  // The first slot of the n-th region (from 1), or -1 past the last.
  region(n) {
    return n >= 1 && n <= P.DEBUG_REGIONS ? this.base + P.DEBUG_HEADER_LEN + (n - 1) * P.DEBUG_REGION_SLOTS : -1;
  }

  // Now, on the area's clock, in whole ms (a mark's since).
  nowMs() {
    return Math.floor(performance.timeOrigin + performance.now() - this.epochMs);
  }

  // Writer (its own region r only). DebugText: the ref of s, written, or 0
  // when the region's text is full.
  text(r, s) {
    const bytes = new TextEncoder().encode(s);
    const i32 = this.i32, used = Atomics.load(i32, r + P.DEBUG_TEXT_USED), need = 1 + ((bytes.length + 3) >> 2);
    if (used + need > P.DEBUG_TEXT_SLOTS) return 0;
    const at = r + P.DEBUG_TEXT + used;
    Atomics.store(i32, at, bytes.length);
    for (let i = 0; i < bytes.length; i += 4) {
      Atomics.store(i32, at + 1 + (i >> 2), bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    }
    Atomics.store(i32, r + P.DEBUG_TEXT_USED, used + need);
    return used + 1;
  }

  // Writer. DebugMark: whether there was a free mark.
  mark(r, key, mode, label, site) {
    const i32 = this.i32;
    for (let m = r + P.DEBUG_MARKS; m < r + P.DEBUG_EDGE_LIST; m += P.DEBUG_MARK_SLOTS) {
      if (Atomics.load(i32, m) !== 0) continue;
      Atomics.store(i32, m + P.MARK_GEN_AT, Atomics.load(i32, m + P.MARK_GEN_AT) + 1); // gen, first
      Atomics.store(i32, m + P.MARK_MODE_AT, mode);
      Atomics.store(i32, m + P.MARK_LABEL_AT, label);
      Atomics.store(i32, m + P.MARK_SITE_AT, site);
      Atomics.store(i32, m + P.MARK_SINCE_AT, this.nowMs());
      Atomics.store(i32, m, key); // last: whole once its key is there
      return true;
    }
    return false;
  }

  // Writer. DebugUnmark.
  unmark(r, key, mode) {
    const i32 = this.i32;
    for (let m = r + P.DEBUG_MARKS; m < r + P.DEBUG_EDGE_LIST; m += P.DEBUG_MARK_SLOTS) {
      if (Atomics.load(i32, m) === key && Atomics.load(i32, m + P.MARK_MODE_AT) === mode) {
        Atomics.store(i32, m, 0);
        return;
      }
    }
  }

  // Writer. DebugEdge: whether it was published.
  edge(r, from, to) {
    const i32 = this.i32;
    let f = -1, t = -1;
    for (let m = r + P.DEBUG_MARKS; m < r + P.DEBUG_EDGE_LIST; m += P.DEBUG_MARK_SLOTS) {
      const k = Atomics.load(i32, m);
      if (k === from && f < 0 && Atomics.load(i32, m + P.MARK_MODE_AT) !== P.MARK_WAIT) f = m;
      else if (k === to && Atomics.load(i32, m + P.MARK_MODE_AT) !== P.MARK_WAIT && (t < 0 || Atomics.load(i32, m + P.MARK_SINCE_AT) >= Atomics.load(i32, t + P.MARK_SINCE_AT))) t = m;
    }
    const n = Atomics.load(i32, r + P.DEBUG_EDGES);
    if (f < 0 || t < 0 || n >= P.DEBUG_EDGE_ENTRIES) return false;
    const e = r + P.DEBUG_EDGE_LIST + n * P.DEBUG_EDGE_SLOTS;
    Atomics.store(i32, e, from);
    Atomics.store(i32, e + P.EDGE_TO_AT, to);
    Atomics.store(i32, e + P.EDGE_MODES_AT, Atomics.load(i32, f + P.MARK_MODE_AT) | (Atomics.load(i32, t + P.MARK_MODE_AT) << 2));
    Atomics.store(i32, e + P.EDGE_FROM_LABEL_AT, Atomics.load(i32, f + P.MARK_LABEL_AT));
    Atomics.store(i32, e + P.EDGE_FROM_SITE_AT, Atomics.load(i32, f + P.MARK_SITE_AT));
    Atomics.store(i32, e + P.EDGE_TO_LABEL_AT, Atomics.load(i32, t + P.MARK_LABEL_AT));
    Atomics.store(i32, e + P.EDGE_TO_SITE_AT, Atomics.load(i32, t + P.MARK_SITE_AT));
    Atomics.store(i32, r + P.DEBUG_EDGES, n + 1); // last: published whole
    return true;
  }

  // Whether region r has no room for another edge.
  edgesFull(r) {
    return Atomics.load(this.i32, r + P.DEBUG_EDGES) >= P.DEBUG_EDGE_ENTRIES;
  }

  // Reader. The edges of region r from the k-th on: each { from, to,
  // fromMode, toMode, fromLabel, fromSite, toLabel, toSite } (texts).
  edgesFrom(r, k) {
    const i32 = this.i32, n = Math.min(Atomics.load(i32, r + P.DEBUG_EDGES), P.DEBUG_EDGE_ENTRIES), out = [];
    for (let i = k; i < n; i++) {
      const e = r + P.DEBUG_EDGE_LIST + i * P.DEBUG_EDGE_SLOTS, modes = Atomics.load(i32, e + P.EDGE_MODES_AT);
      out.push({
        from: Atomics.load(i32, e),
        to: Atomics.load(i32, e + P.EDGE_TO_AT),
        fromMode: modes & 3,
        toMode: modes >> 2,
        fromLabel: this.readText(r, Atomics.load(i32, e + P.EDGE_FROM_LABEL_AT)),
        fromSite: this.readText(r, Atomics.load(i32, e + P.EDGE_FROM_SITE_AT)),
        toLabel: this.readText(r, Atomics.load(i32, e + P.EDGE_TO_LABEL_AT)),
        toSite: this.readText(r, Atomics.load(i32, e + P.EDGE_TO_SITE_AT)),
      });
    }
    return out;
  }

  // Reader. The marks of region r that are whole as read (gen, the key,
  // the rest, gen unchanged: see debugarea.go): each { key, mode, label,
  // site, sinceMs }.
  marks(r) {
    const i32 = this.i32, out = [];
    for (let m = r + P.DEBUG_MARKS; m < r + P.DEBUG_EDGE_LIST; m += P.DEBUG_MARK_SLOTS) {
      const gen = Atomics.load(i32, m + P.MARK_GEN_AT), key = Atomics.load(i32, m);
      if (key === 0) continue;
      const mode = Atomics.load(i32, m + P.MARK_MODE_AT), label = Atomics.load(i32, m + P.MARK_LABEL_AT), site = Atomics.load(i32, m + P.MARK_SITE_AT), sinceMs = Atomics.load(i32, m + P.MARK_SINCE_AT);
      if (Atomics.load(i32, m + P.MARK_GEN_AT) !== gen) continue; // marked anew while read
      out.push({ key, mode, label: this.readText(r, label), site: this.readText(r, site), sinceMs });
    }
    return out;
  }

  // Reader. The text of ref in region r ("" for none).
  readText(r, ref) {
    if (ref <= 0 || ref > P.DEBUG_TEXT_SLOTS) return "";
    const i32 = this.i32, at = r + P.DEBUG_TEXT + ref - 1, n = Atomics.load(i32, at);
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = Atomics.load(i32, at + 1 + (i >> 2));
      for (let j = 0; j < 4 && i + j < n; j++) bytes[i + j] = (v >>> (8 * j)) & 255;
    }
    return new TextDecoder().decode(bytes);
  }
}

// Sets up an area whose header is at base, zeroed (DebugMake): before
// anyone writes to it.
export function makeArea(i32, base, heldMs) {
  Atomics.store(i32, base + P.DEBUG_HELD_MS, heldMs);
  Atomics.store(i32, base, P.DEBUG_MAGIC);
}

// The registry buffer's length up to its name table, with a debug area
// (debug) or without.
export function registryBytes(debug) {
  return (P.REGISTRY_SLOTS + (debug ? P.DEBUG_SLOTS : 0)) * 4;
}

// Sets up the debug area of a registry just made (i32) by a maker in debug
// mode ({ heldMs }: init's option).
export function makeDebugArea(i32, debug) {
  makeArea(i32, P.REGISTRY_SLOTS, debug.heldMs);
}
