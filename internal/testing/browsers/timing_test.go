package browsers

import "testing"

// What sabmutex and its tests rely on in each engine's clocks and timers, on
// an isolated page, with bounds no slow machine should reach:
// performance.now() steps of 100 µs at most (the benchmarks report
// hand-offs of tens of µs; the engines step by 5 to 20 µs), an
// Atomics.waitAsync timeout that resolves asynchronously, as "timed-out",
// after its 10 ms and well before 5 s (lockAsync with a timeout is built on
// it), and a setTimeout(1) that fires within 250 ms (pages and tests poll
// with timers). The figures are logged: the README's table of tested engines
// cites the steps and hardwareConcurrency.
func testTiming(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/head.html")
	got := eval[struct {
		NowStepMs, WaitAsyncMs, SetTimeout1Ms float64
		WaitAsync                             string
		HardwareConcurrency                   int
	}](t, p, `(async () => {
		let step = Infinity, prev = performance.now();
		for (let i = 0; i < 200000; i++) {
			const t = performance.now();
			if (t > prev && t - prev < step) step = t - prev;
			prev = t;
		}
		let t0 = performance.now();
		const r = Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
		const waitAsync = (r.async ? "async " : "sync ") + (r.async ? await r.value : r.value);
		const waitAsyncMs = performance.now() - t0;
		t0 = performance.now();
		for (let i = 0; i < 20; i++) await new Promise((ok) => setTimeout(ok, 1));
		return {
			nowStepMs: step,
			waitAsync, waitAsyncMs,
			setTimeout1Ms: (performance.now() - t0) / 20,
			hardwareConcurrency: navigator.hardwareConcurrency,
		};
	})()`)
	t.Logf("performance.now() steps of %.1f µs; Atomics.waitAsync(…, 10): %s after %.2f ms; setTimeout(1): %.2f ms on average; hardwareConcurrency %d",
		got.NowStepMs*1000, got.WaitAsync, got.WaitAsyncMs, got.SetTimeout1Ms, got.HardwareConcurrency)
	if !(got.NowStepMs > 0 && got.NowStepMs <= 0.1) {
		t.Errorf("performance.now() steps of %v ms on an isolated page, want 100 µs at most", got.NowStepMs)
	}
	if got.WaitAsync != "async timed-out" || got.WaitAsyncMs < 5 || got.WaitAsyncMs > 5000 {
		t.Errorf(`Atomics.waitAsync with a 10 ms timeout: %q after %.2f ms, want "async timed-out" after 10 ms (5 to 5000)`, got.WaitAsync, got.WaitAsyncMs)
	}
	if got.SetTimeout1Ms > 250 {
		t.Errorf("setTimeout(1) took %.2f ms on average, want 250 at most", got.SetTimeout1Ms)
	}
	noProblems(t, p)
}
