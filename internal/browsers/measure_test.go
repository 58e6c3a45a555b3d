package browsers

import (
	"context"
	"sort"
	"testing"
	"time"
)

// TestMeasure logs figures for each engine: start-up, page opening, eval
// round trip, timer delays, performance.now() resolution with and without
// isolation, Atomics.waitAsync. Skipped with -short.
func TestMeasure(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			v, _ := Version(name)
			b := start(t, name, Options{})
			t.Logf("%s (%s): start-up to runner connected %v", name, v, b.StartupTime().Round(time.Millisecond))
			var opens []time.Duration
			for i := 0; i < 10; i++ {
				u := isolated.URL + "/head.html"
				if i%2 == 1 {
					u = plain.URL + "/head.html"
				}
				t0 := time.Now()
				p := open(t, b, u)
				opens = append(opens, time.Since(t0))
				p.Close()
			}
			t.Logf("open (previous page closed, load event, driver connected): median %v, max %v", median(opens), maxOf(opens))

			p := open(t, b, isolated.URL+"/head.html")
			var evals []time.Duration
			for i := 0; i < 200; i++ {
				t0 := time.Now()
				eval[int](t, p, `1`)
				evals = append(evals, time.Since(t0))
			}
			t.Logf("eval round trip: median %v, max %v", median(evals), maxOf(evals))
			t.Logf("isolated page: %v", eval[map[string]any](t, p, probe))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			wa, err := Eval[string](ctx, p, `(async () => {
				const r = Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
				return (r.async ? "async " : "sync ") + (r.async ? await r.value : r.value);
			})()`)
			t.Logf("Atomics.waitAsync with a 10 ms timeout: %q %v", wa, err)
			p.Close()
			p = open(t, b, plain.URL+"/head.html")
			t.Logf("plain page: %v", eval[map[string]any](t, p, probe))
		})
	}
}

// probe measures performance.now()'s smallest step and timer delays.
const probe = `(async () => {
	let step = Infinity, prev = performance.now();
	for (let i = 0; i < 200000; i++) {
		const t = performance.now();
		if (t > prev && t - prev < step) step = t - prev;
		prev = t;
	}
	const delay = async (ms, n) => {
		const t0 = performance.now();
		for (let i = 0; i < n; i++) await new Promise((ok) => setTimeout(ok, ms));
		return +((performance.now() - t0) / n).toFixed(3);
	};
	return {
		isolated: crossOriginIsolated,
		nowStepMs: step,
		setTimeout0NestedMs: await delay(0, 20),
		setTimeout1Ms: await delay(1, 20),
		hardwareConcurrency: navigator.hardwareConcurrency,
	};
})()`

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Microsecond)
}

func maxOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m.Round(time.Microsecond)
}
