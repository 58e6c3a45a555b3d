package browsertest

import (
	"fmt"
	"testing"
)

// A worker asleep in lock(10000) is blocked in that call, and its wait has
// a deadline: snapshot() says both (waitingFor.blocked,
// waitingFor.deadlineInMs), as a worker asleep in lock() (blocked, no
// deadline) and the page's lockAsync(3000) (not blocked, a deadline)
// (issue 45, point 5: it showed blocking === false).
func TestSnapshotWaitFacts(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		type wait struct {
			Kind         string
			Blocked      bool
			DeadlineInMs *float64
			SinceMs      float64
			Elapsed      float64 // from before the waits began to the snapshot
		}
		got := eval[map[string]*wait](p, `(async () => {
			await sabmutex.init({ name: "page" });
			const sab = new SharedArrayBuffer(64);
			const m = new sabmutex.Mutex(sab, 0);
			if (!m.tryLock()) throw new Error("the mutex is taken");
			const join = async (name) => {
				const w = startWorker("module");
				await w.run(async (sabmutex, { init, name, sab }) => { await sabmutex.init({ ...init, name }); self.m = new sabmutex.Mutex(sab, 0); }, { init: sabmutex.forWorker(), name, sab });
				return w;
			};
			const timed = await join("timed"), untimed = await join("untimed");
			const t0 = performance.now();
			const t1 = timed.run(async () => self.m.lock(10000) && (self.m.unlock(), true), {});
			const t2 = untimed.run(async () => (self.m.lock(), self.m.unlock(), true), {});
			const m2 = new sabmutex.Mutex(sab, 0);
			const pageWait = m2.lockAsync(3000).then((took) => took && (m2.unlock(), true));
			await new Promise((r) => setTimeout(r, 400)); // past the watch period, which records the waits
			const snap = sabmutex.snapshot();
			const elapsed = performance.now() - t0;
			m.unlock();
			await Promise.all([t1, t2, pageWait]);
			timed.terminate(); untimed.terminate();
			return Object.fromEntries(snap.agents.map((a) => [a.name, a.waitingFor && { ...a.waitingFor, elapsed }]));
		})()`)
		for _, c := range []struct {
			name      string
			blocked   bool
			timeoutMs float64
		}{{"timed", true, 10000}, {"untimed", true, 0}, {"page", false, 3000}} {
			w := got[c.name]
			if w == nil || w.Kind != "Mutex" {
				t.Errorf("%s: waitingFor %+v, want the Mutex", c.name, w)
				continue
			}
			if w.Blocked != c.blocked {
				t.Errorf("%s: waitingFor.blocked %v, want %v", c.name, w.Blocked, c.blocked)
			}
			switch d := w.DeadlineInMs; {
			case c.timeoutMs == 0 && d != nil:
				t.Errorf("%s: deadlineInMs %v, want null (no timeout)", c.name, *d)
			// (Each wait began within 200 ms of being asked for, 400 ms
			// before the snapshot; sinceMs can be late by more than its 50
			// ms where a helper worker stands in for Atomics.waitAsync.)
			case c.timeoutMs > 0 && (d == nil || *d > c.timeoutMs-200 || *d < c.timeoutMs-w.Elapsed-15):
				t.Errorf("%s: deadlineInMs %s, want %.0f to %.0f (a timeout of %.0f ms, asked for %.0f ms before)", c.name, showMs(d), c.timeoutMs-w.Elapsed, c.timeoutMs-200, c.timeoutMs, w.Elapsed)
			}
		}
	})
}

func showMs(d *float64) string {
	if d == nil {
		return "null"
	}
	return fmt.Sprint(*d)
}
