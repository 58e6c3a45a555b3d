package browsertest

import (
	"fmt"
	"testing"
)

// Atomics.notify wakes first in, first out, a page's waitAsync and workers'
// Atomics.wait in one queue, in every engine: starvation mode's hand-off to
// the longest waiter counts on it (internal/core/protocol.go).
func TestNotifyWakesInQueueOrder(t *testing.T) {
	needsWaitAsync(t)
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[[]struct{ Queued, Woke, Results []string }](p, `notifyOrder()`)
		for _, c := range got {
			if fmt.Sprint(c.Queued) != fmt.Sprint(c.Woke) {
				t.Errorf("queued %v, notify(1) woke %v", c.Queued, c.Woke)
			}
			for _, r := range c.Results {
				if r != "ok" {
					t.Errorf("queued %v: a wait ended %q, want ok", c.Queued, r)
				}
			}
		}
	})
}

// A lockAsync in a worker that has nothing else to do ends on time: WebKit
// (WebKitGTK 2.50) delivers a waitAsync timeout to an idle worker only when
// something else runs there, so without the glue's keep-awake timer these
// waits never end.
func TestIdleWorkerLockAsyncTimesOut(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[[]float64](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(8);
			const m = new sabmutex.Mutex(sab, 0);
			await m.lockAsync();
			const [w] = await startWorkers(["module"], sab);
			const took = [];
			for (let i = 0; i < 5; i++) {
				took.push(await Promise.race([
					w.run(async () => { const t0 = performance.now(); return (await self.m.lockAsync(30)) ? -1 : performance.now() - t0; }),
					new Promise((r) => setTimeout(() => r(-2), 3000)),
				]));
			}
			m.unlock();
			w.terminate();
			return took;
		})()`)
		for i, ms := range got {
			if ms < 30-clockStepMs || ms > 1000 {
				t.Errorf("wait %d: lockAsync(30) in an idle worker, on a mutex the page holds, ended after %.1f ms (-1: got it, -2: not in 3 s)", i, ms)
			}
		}
	})
}
