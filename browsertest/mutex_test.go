package browsertest

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/sabmutex/sabmutex/internal/core"
)

func TestCrossOriginIsolatedAndNoLeakedGlobals(t *testing.T) {
	sameWithoutWaitAsync(t, "what the page and the script expose does not depend on Atomics.waitAsync")
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Isolated  bool
			Leaked    []string
			Module    bool
			WaitAsync bool
		}](p, `(async () => {
			await sabmutex.init();
			return {
				waitAsync: typeof Atomics.waitAsync === "function",
				isolated: crossOriginIsolated,
				leaked: ["Go", "fs", "process", "path"].filter((k) => k in globalThis),
				module: sabmutex.module instanceof WebAssembly.Module,
			};
		})()`)
		if !got.Isolated {
			t.Fatal("the test page is not cross-origin isolated: check the server's COOP/COEP headers")
		}
		if len(got.Leaked) > 0 {
			t.Errorf("sabmutex.js leaked globals onto the page: %v", got.Leaked)
		}
		if !got.Module {
			t.Error("sabmutex.module is not a WebAssembly.Module after init")
		}
		if got.WaitAsync == noWaitAsync {
			t.Errorf("Atomics.waitAsync present: %v, in the pass without it: %v", got.WaitAsync, noWaitAsync)
		}
	})
}

type hammerResult struct {
	Counter, Expected, Mine, Word int
}

func runHammer(t *testing.T, p *page, kinds string, n int, useLock bool) hammerResult {
	return eval[hammerResult](p, fmt.Sprintf(`(async () => {
		await sabmutexReady();
		return hammer({ kinds: %s, n: %d, useLock: %v });
	})()`, kinds, n, useLock))
}

// Four workers, classic and module, and the main thread share one counter.
func TestHammer(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		n := 100000
		if testing.Short() {
			n = 20000
		}
		gets := isoFiles.WasmGets(e.b.UserAgent())
		p := e.open(t, isolated.URL+"/index.html")
		r := runHammer(t, p, `["classic", "module", "classic", "module"]`, n, true)
		t.Logf("counter %d = 4 workers × %d + %d by the main thread", r.Counter, n, r.Mine)
		if r.Counter != r.Expected {
			t.Errorf("counter = %d, want %d: %d updates lost under the mutex", r.Counter, r.Expected, r.Expected-r.Counter)
		}
		if r.Mine == 0 {
			t.Error("the main thread never got the lock while the workers ran")
		}
		if r.Word != 0 {
			t.Errorf("lock word = %d at the end, want 0", r.Word)
		}
		if got := isoFiles.WasmGets(e.b.UserAgent()) - gets; got != 1 {
			t.Errorf("sabmutex.wasm was fetched %d times; the workers should reuse sabmutex.module", got)
		}
	})
}

// The same run without the mutex loses updates, so TestHammer can fail (given
// a few tries: on a loaded machine the workers may happen not to overlap).
func TestHammerWithoutLockLosesUpdates(t *testing.T) {
	sameWithoutWaitAsync(t, "a twin without the primitive waits for nothing of sabmutex's: the first pass has shown that the check can fail")
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		for try := 0; try < 10; try++ {
			r := runHammer(t, p, `["classic", "module", "classic", "module"]`, 200000, false)
			if r.Counter < r.Expected {
				t.Logf("without the lock: %d of %d updates lost", r.Expected-r.Counter, r.Expected)
				return
			}
		}
		t.Fatal("10 runs without a lock lost no update: the hammer cannot tell a broken mutex")
	})
}

// The ES module, with module workers only.
func TestHammerESModule(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/module.html")
		r := runHammer(t, p, `["module", "module"]`, 50000, true)
		if r.Counter != r.Expected {
			t.Errorf("counter = %d, want %d", r.Counter, r.Expected)
		}
	})
}

type timed struct {
	Got           bool
	Ms            float64
	AfterUnlockMs float64 // workerLockReleased: from the page's unlock to the worker's lock
	BeforeTimer   bool    // the page's calls: answered before a timer queued just before them fired
}

func TestTryLockAndTimeouts(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[map[string]timed](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(8);
			const m = new sabmutex.Mutex(sab, 0);
			const [holder, other] = await startWorkers(["classic", "module"], sab);
			// (beforeTimer: whether it answered before a timer queued just before it fired.)
			const timedRun = async (f) => { let fired = false; setTimeout(() => (fired = true), 0); const t = performance.now(); const got = await f(); return { got, ms: performance.now() - t, beforeTimer: !fired }; };
			// (fastest: the quickest of 10 calls, each undone if it took the
			// lock. A stalled thread delays one call; a call that waits or
			// spins delays every one.)
			const fastest = (f, undo) => { let got, ms = Infinity; for (let i = 0; i < 10; i++) { const t = performance.now(); got = f(); ms = Math.min(ms, performance.now() - t); if (got) undo(); } return { got, ms }; };
			await other.run(async (_, src) => { self.fastest = (0, eval)(src); }, String(fastest));
			const r = {};
			await holder.run(async () => self.m.lock());
			r.mainTryLock = fastest(() => m.tryLock(), () => m.unlock());
			r.workerTryLock = await other.run(async () => self.fastest(() => self.m.tryLock(), () => self.m.unlock()));
			r.workerLock0 = await other.run(async () => self.fastest(() => self.m.lock(0), () => self.m.unlock()));
			r.workerLock30 = await other.run(async () => { const t = performance.now(); return { got: self.m.lock(30), ms: performance.now() - t }; });
			r.mainLockAsync0 = await timedRun(() => m.lockAsync(0));
			r.mainLockAsync50 = await timedRun(() => m.lockAsync(50));
			// A waiter with time left gets the lock when it is released.
			const waiting = timedRun(() => m.lockAsync(10000));
			await holder.run(async () => { setTimeout(() => self.m.unlock(), 20); });
			r.mainLockAsyncReleased = await waiting;
			// The worker's lock must return after the page's unlock: an
			// order on one clock (timeOrigin + now), not a duration, since
			// the worker's clock starts only when the run's message reaches
			// it (over 5 ms in WebKit; more on a busy machine).
			r.workerLockReleased = await Promise.all([
				other.run(async () => { const t = performance.now(); const got = self.m.lock(10000); const at = performance.timeOrigin + performance.now(); self.m.unlock(); return { got, ms: performance.now() - t, at }; }),
				new Promise((res) => setTimeout(res, 40)).then(() => { const at = performance.timeOrigin + performance.now(); m.unlock(); return at; }),
			]).then(([w, unlockedAt]) => ({ got: w.got, ms: w.ms, afterUnlockMs: w.at - unlockedAt }));
			r.mainTryLockFree = fastest(() => m.tryLock(), () => m.unlock());
			holder.terminate(); other.terminate();
			return r;
		})()`)
		for name, want := range map[string]struct {
			got          bool
			minMs, maxMs float64
		}{
			"mainTryLock":           {false, 0, 50}, // these four: the fastest of 10 calls
			"workerTryLock":         {false, 0, 50},
			"workerLock0":           {false, 0, 50},
			"workerLock30":          {false, 29, 530},
			"mainLockAsync0":        {false, 0, math.Inf(1)}, // and before a timer: below
			"mainLockAsync50":       {false, 49, 550},
			"mainLockAsyncReleased": {true, 15, 5000},
			"workerLockReleased":    {true, 0, 5000}, // and after the unlock: below
			"mainTryLockFree":       {true, 0, 50},
		} {
			g, ok := r[name]
			if !ok {
				t.Errorf("%s: no result", name)
				continue
			}
			if g.Got != want.got || g.Ms < want.minMs || g.Ms > want.maxMs {
				t.Errorf("%s = %v after %.1f ms, want %v after %.0f to %.0f ms", name, g.Got, g.Ms, want.got, want.minMs, want.maxMs)
			}
		}
		// lockAsync(0) answers within the task's microtasks: no sleep, no
		// helper, no timer. (A clock counts a page off the CPU too: 71 ms
		// once in WebKit beside a busy loop, the bound then 50 ms.)
		if g := r["mainLockAsync0"]; !g.BeforeTimer {
			t.Errorf("mainLockAsync0: answered after a timer queued before it (%.1f ms): it slept or waited for a task", g.Ms)
		}
		if g := r["workerLockReleased"]; g.AfterUnlockMs < -1 {
			t.Errorf("workerLockReleased: the worker's lock returned %.1f ms before the page unlocked", -g.AfterUnlockMs)
		}
	})
}

// The glue's inlined fast paths and the Go core must use the same states and
// the same holder slot: the words the page observes are checked against the
// Go constants, and the holders against the agents' ids.
func TestGlueAndCoreAgreeOnStates(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		proto := core.Protocol()
		state := func(name string) int { return proto[name].(int) }
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			States, Holders []int
			Page, Worker    int
		}](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(16);
			const word = new Int32Array(sab);
			const m = new sabmutex.Mutex(sab, 1);
			const r = { states: [], holders: [], page: sabmutex.agentId };
			const see = () => { r.states.push(word[1]); r.holders.push(m.holder() ?? 0); };
			see();
			m.tryLock();                     // glue fast path
			see();
			const [w] = await startWorkers(["classic"], sab);
			r.worker = await w.run(async () => sabmutex.agentId);
			const waiter = w.run(async (sabmutex, { sab }) => {
				const m = new sabmutex.Mutex(sab, 1);
				m.lock(10000);               // Go slow path: announces itself, sleeps
				const h = m.holder();
				m.unlock();                  // contended (it slept): Go's unlock
				return h;
			}, { sab });
			const deadline = performance.now() + 10000;
			while (word[1] !== 2 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
			see();
			m.unlock();                      // glue fast path fails on a contended word: Go frees it, wakes the worker
			r.holders.push(await waiter);
			see();
			w.terminate();
			return r;
		})()`)
		want := []int{state("MUTEX_UNLOCKED"), state("MUTEX_LOCKED"), state("MUTEX_CONTENDED"), state("MUTEX_UNLOCKED")}
		if fmt.Sprint(got.States) != fmt.Sprint(want) {
			t.Errorf("lock word went through %v, want %v (unlocked, locked, contended, unlocked as internal/core defines them)", got.States, want)
		}
		if wantH := []int{0, got.Page, got.Page, got.Worker, 0}; fmt.Sprint(got.Holders) != fmt.Sprint(wantH) {
			t.Errorf("holders went %v, want %v (page %d, worker %d)", got.Holders, wantH, got.Page, got.Worker)
		}
		if got.Page == got.Worker || got.Page == 0 {
			t.Errorf("agent ids: page %d, worker %d", got.Page, got.Worker)
		}
	})
}

// The first asynchronous wait of a fresh page or worker times out on time
// (issue 32), also where a helper worker stands in for Atomics.waitAsync
// and must start first (5-50 ms): a worker holds what it waits for and
// releases it 150 ms after the wait began. The wait must end timed out,
// never early, before that release (unless its agent ran nothing until
// then, a busy machine's), whatever a late wake-up finds, and
// within lateMs of the deadline beyond how late a timer of the same length
// in the same agent was (the agent's own scheduling: a busy machine delays
// both). A wait of 5 ms ends before the helper can have started.
func TestFirstTimeoutOnTime(t *testing.T) {
	const lateMs = 25
	// The engines in turn: with three at once on two cores, a wait's helper
	// worker, a thread of its own that no timer beside the wait accounts
	// for, was off the CPU past the deadline (WebKit, twice in five runs:
	// 53.6 and 88.6 ms late; alone, 0.9-2.3 ms).
	forEnginesInTurn(t, func(t *testing.T, e *engine) {
		var lates []string
		for _, c := range []struct {
			what      string
			timeoutMs float64
			want      string
		}{
			{"page acquireAsync", 100, "timeout"},
			{"page Semaphore", 100, "false"},
			{"worker lockAsync", 100, "false"},
			{"page acquireAsync", 5, "timeout"},
		} {
			name := fmt.Sprintf("%s(%v)", c.what, c.timeoutMs)
			var overMs, timerLateMs float64
			// A case ended late runs again, on a fresh page (untilServed,
			// starveAttempts runs at most): beside a busy loop a page's
			// thread stalled past a timer it had already let fire (WebKit,
			// without waitAsync: 123.6 ms late, the timer 58.6), once; a
			// deadline not kept is late in every run. What is wrong, not
			// late (the wrong result, an end before the deadline), fails at
			// once.
			untilServed(t, func() (string, verdict) {
				p := e.open(t, isolated.URL+"/index.html") // fresh: its first wait
				r := eval[struct {
					Got                            any
					StartedAt, EndedAt, ReleasedAt float64
					TimerLateMs                    float64
				}](p, fmt.Sprintf(`firstTimeout(%q, %v)`, c.what, c.timeoutMs))
				waited := r.EndedAt - r.StartedAt
				overMs, timerLateMs = waited-c.timeoutMs, r.TimerLateMs
				// An agent that could run nothing until after the release (a
				// timer of the same length beside it fired only then) may find
				// the lock free at its late turn and take it, as a timed lock of
				// a free mutex does (POSIX's timedlock: the timeout does not
				// apply to a lock that can be taken at once).
				ranNothing := r.StartedAt+c.timeoutMs+max(r.TimerLateMs, 0) >= r.ReleasedAt
				var wrongs []string
				if got := fmt.Sprint(r.Got); got != c.want && !ranNothing {
					wrongs = append(wrongs, fmt.Sprintf("%s, the holder releasing at 150 ms: %s after %.1f ms, want %s", name, got, waited, c.want))
				}
				if overMs < -1 {
					wrongs = append(wrongs, fmt.Sprintf("%s: ended after %.1f ms, before its deadline", name, waited))
				}
				if len(wrongs) > 0 {
					return strings.Join(wrongs, "; "), wrong
				}
				// (Unless the agent could run nothing until then: a timer of
				// the same length, beside it, also fired only after the release.)
				if r.EndedAt >= r.ReleasedAt && !ranNothing {
					return fmt.Sprintf("%s: ended after %.1f ms, %.1f ms after the holder released (at %.1f ms), a timer beside it %.1f ms late", name, waited, r.EndedAt-r.ReleasedAt, r.ReleasedAt-r.StartedAt, r.TimerLateMs), late
				} else if overMs > max(r.TimerLateMs, 0)+lateMs {
					return fmt.Sprintf("%s: ended %.1f ms after its deadline, a timer beside it %.1f ms: want within %d ms of the timer", name, overMs, r.TimerLateMs, lateMs), late
				}
				return "", onTime
			})
			lates = append(lates, fmt.Sprintf("%s %.1f ms (a timer beside it %.1f)", name, overMs, timerLateMs))
		}
		t.Logf("after the deadline: %s", strings.Join(lates, ", "))
	})
}

// Page tasks queued on one Mutex (10,000) take it in turn, handed on without a
// wake-up each (issue 60: 1,000 tasks behind a worker took 6.9 s without
// Atomics.waitAsync, each waiting with a helper worker of its own); and a
// worker that locks it while the page's tasks hand it on among themselves
// is served within the hand-offs' bound (the starvation threshold, then a
// wake-up and starvation mode), not after the stream.
// RWMutex's write lock, the same (TestRWMutexTaskHandOff).
func TestMutexTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) { checkTaskHandOff(t, e, false) })
}

func TestRWMutexTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) { checkTaskHandOff(t, e, true) })
}

func checkTaskHandOff(t *testing.T, e *engine, rw bool) {
	const n = 10000 // (issue 60's 10,000 queued page requests)
	p := e.open(t, isolated.URL+"/index.html")
	untilServed(t, func() (string, verdict) {
		r := eval[struct {
			Granted, Held, Word int
			Wrong               []int
			Ms                  float64
			WorkerWaits         []float64
			CondNotified        bool
		}](p, fmt.Sprintf(`mutexHandOff({ n: %d, streamMs: 600, rw: %v })`, n, rw))
		switch {
		case !r.CondNotified:
			return "a task queued behind a holder that released in Cond.waitAsync did not get the mutex (its notify never came)", wrong
		case r.Granted != n || len(r.Wrong) != 0:
			return fmt.Sprintf("%d of %d page tasks held the mutex, out of turn at %v", r.Granted, n, r.Wrong), wrong
		case r.Word != 0:
			return fmt.Sprintf("the word is %d after all, want 0", r.Word), wrong
		// Through Atomics.waitAsync each grant took 20-100 µs, through
		// helpers 7 ms; handed on, 2-10 µs.
		case r.Ms > n*0.03:
			return fmt.Sprintf("%d queued tasks took %.0f ms from the worker's unlock to the last (%.0f µs a task), want < 30 µs a task", n, r.Ms, 1000*r.Ms/n), late
		}
		report, v := workerWaitsVerdict(r.WorkerWaits)
		return fmt.Sprintf("%d tasks handed on in %.1f ms (%.1f µs each); the page's stream held it %d times; %s", n, r.Ms, 1000*r.Ms/n, r.Held, report), v
	})
}

// workerWaitsVerdict: a worker's ten waits behind a stream of the page's
// tasks (harness.js's workerBehindStream), within the hand-offs' bound:
// served within a few ms (the bound, a wake-up or two, the worker's
// scheduling on a busy machine: up to 25 ms in WebKit), a median under 50
// ms and none over 200. Over the bound is late (a stalled thread explains
// it: untilServed runs the check again). A worker left behind the stream
// waits until it ends (600 ms), once (its other waits start after the
// stream): starved, which no stall explains, so wrong, as are fewer than
// ten waits.
func workerWaitsVerdict(workerWaits []float64) (string, verdict) {
	waits := append([]float64(nil), workerWaits...)
	sort.Float64s(waits)
	switch {
	case len(waits) != 10:
		return fmt.Sprintf("the worker waited %d times behind the page's stream, want 10", len(waits)), wrong
	case waits[9] >= 500:
		return fmt.Sprintf("the worker waited out the page's stream (600 ms): its waits %.1f ms (sorted)", waits), wrong
	case waits[5] > 50 || waits[9] > 200:
		return fmt.Sprintf("the worker's waits behind the page's stream: %.1f ms (sorted), want a median < 50 ms and none > 200", waits), late
	}
	return fmt.Sprintf("the worker's waits %.1f ms", waits), onTime
}

// Page reader tasks queued on an RWMutex (readLockAsync) behind a writer go
// in without a sleep each (issue 60): behind a page writer task, at its
// unlock; behind a worker's write lock, with the page's one reader that
// waits on the word. Before, each waited on its own: n sleeps (a helper
// each, to the cap, without Atomics.waitAsync). And Go's rule holds: a
// writer waiting for the readers inside blocks the page's new readers, which
// go in only after its unlock.
func TestRWMutexReadersHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		const n = 2000
		p := e.open(t, isolated.URL+"/index.html")
		type phase struct {
			Granted, Most, Sleeps int
			Ms, AllButOneMs       float64
		}
		r := eval[struct {
			Page, Worker phase
			Rule         struct {
				Granted, Most int
				BeforeMs      float64
			}
			Word int
		}](p, fmt.Sprintf("readersHandOff({ n: %d })", n))
		for _, c := range []struct {
			name string
			ph   phase
		}{{"behind a page writer task", r.Page}, {"behind a worker's write lock", r.Worker}} {
			if c.ph.Granted != n || c.ph.Most != n {
				t.Errorf("%s: %d of %d queued readers went in, %d at most at once; want all, together", c.name, c.ph.Granted, n, c.ph.Most)
			}
			// One sleep for the agent's reader on the word (two, should a
			// wait meet a change of the word between its turns).
			if c.ph.Sleeps > 3 {
				t.Errorf("%s: the page started %d sleeps for %d queued readers, want 3 at most (one wait for the agent's readers, not one each)", c.name, c.ph.Sleeps, n)
			}
			t.Logf("%s: %d readers in, %d sleeps; from the unlock, %.1f ms to the last but one, %.1f ms to the last", c.name, c.ph.Granted, c.ph.Sleeps, c.ph.AllButOneMs, c.ph.Ms)
		}
		if r.Rule.Granted != n || r.Rule.BeforeMs > clockStepMs {
			t.Errorf("behind a worker's lock() that waited for a page reader: %d of %d readers went in, the first %.1f ms before the writer's unlock; want all, after it", r.Rule.Granted, n, r.Rule.BeforeMs)
		}
		if r.Word != 0 {
			t.Errorf("the word is %d after all, want 0", r.Word)
		}
	})
}

// Page tasks queued on a Semaphore (acquireAsync) take its permit in turn,
// handed on by each one's release() without a sleep each (issue 60); and a
// worker that acquires it while the page's tasks hand it on among
// themselves is served within the hand-offs' bound, not after the stream.
func TestSemaphoreTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		const n = 2000
		p := e.open(t, isolated.URL+"/index.html")
		untilServed(t, func() (string, verdict) {
			r := eval[struct {
				Granted, Held, Sleeps, Available int
				Wrong                            []int
				Ms                               float64
				WorkerWaits                      []float64
			}](p, fmt.Sprintf(`semHandOff({ n: %d, streamMs: 600 })`, n))
			switch {
			case r.Granted != n || len(r.Wrong) != 0:
				return fmt.Sprintf("%d of %d page tasks held the permit, out of turn at %v", r.Granted, n, r.Wrong), wrong
			// A sleep for the agent's queue, and one more each time the
			// bound gives the permit back to the word (every 1 ms of
			// hand-offs); before, a sleep per task. (Counted, not timed:
			// handed on, 2-10 µs a task, but over 30 in loaded WebKit runs;
			// the sleeps show the hand-off.)
			case r.Sleeps > n/10:
				return fmt.Sprintf("the page started %d sleeps for %d queued tasks, want %d at most (not one a task)", r.Sleeps, n, n/10), wrong
			}
			report, v := semWorkerVerdict(r.WorkerWaits, r.Available) // (as TestSemaphoreWorkerBehindPageStream's)
			return fmt.Sprintf("%d tasks handed on in %.1f ms (%.1f µs each), %d sleeps; the page's stream held it %d times; %s", n, r.Ms, 1000*r.Ms/n, r.Sleeps, r.Held, report), v
		})
	})
}

// Without Atomics.waitAsync, page tasks queued on a Mutex and on a lock
// name behind a worker take a bounded number of helper workers, not one
// each (issue 60: 1,000 tasks, 1,000 helpers; with 10,000 the page stopped
// answering): one per mutex and one per name, beside the one started ahead;
// and tasks waiting on many words at once, no more than wait.js's cap.
func TestHelpersBounded(t *testing.T) {
	if !noWaitAsync {
		t.Skip("helpers are the pass without Atomics.waitAsync's")
	}
	forEngines(t, func(t *testing.T, e *engine) {
		const n = 500
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[struct {
			Helpers, Granted, SemHelpers, Served int
			InOrder                              bool
		}](p, fmt.Sprintf("helpersWhileQueued(%d)", n))
		if r.Helpers > 3 {
			t.Errorf("%d page tasks waiting on a Mutex and %d on a lock name started %d helper workers, want 3 at most", n, n, r.Helpers)
		}
		// (The cap, wait.js's MAX_HELPERS.)
		if r.SemHelpers > 8 || r.Served != n {
			t.Errorf("%d page tasks, each waiting on a Semaphore of its own, started %d more helper workers (want 8 at most), and %d were served (want all)", n, r.SemHelpers, r.Served)
		}
		if r.Granted != 2*n || !r.InOrder {
			t.Errorf("%d of %d tasks granted, in order: %v", r.Granted, 2*n, r.InOrder)
		}
		t.Logf("%d tasks waiting on one Mutex and one name: %d helper workers; %d on a Semaphore each: %d more", 2*n, r.Helpers, n, r.SemHelpers)
	})
}

// A worker that acquires a Semaphore while the page's tasks take it and
// give it back in a stream (three loops: while one holds, the others sleep
// on the word) is served within the starvation bound: once it has waited
// past the threshold its need is reserved, and the page's tasks, woken or
// new, leave the permit to it.
func TestSemaphoreWorkerBehindPageStream(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		untilServed(t, func() (string, verdict) {
			r := eval[struct {
				Held, Available int
				WorkerWaits     []float64
			}](p, `semStream({ streamMs: 600 })`)
			report, v := semWorkerVerdict(r.WorkerWaits, r.Available)
			return fmt.Sprintf("the page's stream held it %d times; %s", r.Held, report), v
		})
	})
}

// semWorkerVerdict: the worker's ten waits behind the page's stream
// (workerWaitsVerdict), and the permit free after.
func semWorkerVerdict(workerWaits []float64, available int) (string, verdict) {
	if available != 1 {
		return fmt.Sprintf("%d permits free after all, want 1", available), wrong
	}
	return workerWaitsVerdict(workerWaits)
}
