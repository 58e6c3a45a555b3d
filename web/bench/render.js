// Draws runBench()'s results: a table, a bar per implementation for each
// metric, and histograms of the wait times under contention.
const fmt = (v) => (v === undefined || v === null ? "–" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const cell = (s) => (s ? `${fmt(s.median)} <small>(${fmt(s.min)}–${fmt(s.max)})</small>` : "–");

// ratio of sabmutex to the baseline, and whether the metric's target is met.
export function verdict(m) {
  const ratio = m.sabmutex && m.baseline ? m.sabmutex.median / m.baseline.median : null;
  const t = m.target || {};
  let pass = null;
  if (t.ratioMax !== undefined && ratio !== null) pass = ratio <= t.ratioMax;
  if (t.ratioMin !== undefined && ratio !== null) pass = ratio >= t.ratioMin;
  if (t.max !== undefined && m.sabmutex) pass = m.sabmutex.median <= t.max;
  let target = t.ratioMax ? `≤ ${t.ratioMax}×` : t.ratioMin ? `≥ ${t.ratioMin}×` : t.max ? `≤ ${t.max} ${m.unit}` : "";
  // A row whose yardstick is Web Locks alone (names-request): sabmutex ÷ it,
  // written 1/N, against a fraction of it (as benchrun's verdict).
  if (t.weblocksTimesMin !== undefined && !m.baseline && m.sabmutex && m.weblocks) {
    const times = m.weblocks.median / m.sabmutex.median;
    pass = times >= t.weblocksTimesMin;
    target = `≤ 1/${t.weblocksTimesMin}× Web Locks`;
    return { ratio: null, ratioText: `1/${times.toFixed(0)}×`, pass, target };
  }
  return { ratio, pass, target };
}

export function render(res, out) {
  let html = `<p><small>${res.date} · ${res.browser} · ${res.cores} cores</small></p><table><tr><th>metric</th><th>unit</th><th>sabmutex</th><th>JS baseline</th><th>Web Locks</th><th>ratio</th><th>target</th></tr>`;
  for (const m of res.metrics) {
    const v = verdict(m);
    const mark = v.pass === null ? "" : v.pass ? ' <span class="pass">✓</span>' : ' <span class="fail">✗</span>';
    html += `<tr><td>${m.name}${m.vs ? ` <small>(baseline: ${m.vs})</small>` : ""}</td><td>${m.unit}</td><td>${cell(m.sabmutex)}</td><td>${cell(m.baseline)}</td><td>${cell(m.weblocks)}</td><td>${v.ratioText ?? (v.ratio === null ? "–" : v.ratio.toFixed(2) + "×")}</td><td>${v.target}${mark}</td></tr>`;
  }
  html += "</table>";
  for (const n of res.notes || []) html += `<p><small>note: ${n}</small></p>`;
  html += "<h2>Side by side</h2>";
  for (const m of res.metrics.filter((m) => m.baseline)) {
    const impls = ["sabmutex", "baseline", "owned", "closure", "unwatched", "weblocks"].filter((i) => m[i]); // owned: the baseline + a holder slot; closure: the seed article's mutex (jsmutex.js); unwatched: sabmutex without the watch (bench.js)
    const top = Math.max(...impls.map((i) => m[i].median));
    html += `<h3>${m.name} <small>(${m.unit}, ${m.better} is better)</small></h3><div class="bars">`;
    for (const i of impls) html += `<span>${i}</span><div class="bar ${i}" style="width:${(100 * m[i].median) / top}%" title="${fmt(m[i].median)}"></div>`;
    html += "</div>";
  }
  html += "<h2>Wait times under contention (3 workers, 2 µs holds)</h2><p><small>buckets: ≤1, 2, 4, … µs, last ≥ 16 ms</small></p>";
  for (const [impl, buckets] of Object.entries(res.histograms)) {
    const top = Math.max(...buckets, 1);
    html += `<h3>${impl}</h3><div class="hist ${impl}">${buckets.map((b) => `<div style="height:${b ? Math.max(2, (100 * Math.log1p(b)) / Math.log1p(top)) : 0}%" title="${b}"></div>`).join("")}</div>`;
  }
  out.innerHTML = html;
}
