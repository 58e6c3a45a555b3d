package browsertest

import "testing"

func TestAbortSignal(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			PreAborted, Aborted string
			BadSignal           *jsError
			OtherWaiterMs       float64
			AfterAll            bool
			Word                int
		}](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(8);
			const word = new Int32Array(sab);
			const m = new sabmutex.Mutex(sab, 0);
			const r = {};
			const reasonOf = (p) => p.then(() => "resolved", (e) => e.message);
			// An aborted signal rejects at once, even when the lock is free.
			r.preAborted = await reasonOf(m.lockAsync({ signal: AbortSignal.abort(new Error("pre")) }));
			r.badSignal = await errorOf(() => m.lockAsync({ signal: {} }));

			const [holder, other] = await startWorkers(["classic", "module"], sab);
			await holder.run(async () => self.m.lock());
			// The main thread queues first, then a worker queues behind it.
			const ac = new AbortController();
			const mine = reasonOf(m.lockAsync({ timeoutMs: 10000, signal: ac.signal }));
			const deadline = performance.now() + 5000;
			while (word[0] !== 2 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
			await new Promise((r) => setTimeout(r, 20));
			const theirs = other.run(async () => { const got = self.m.lock(10000); const at = performance.timeOrigin + performance.now(); if (got) self.m.unlock(); return got && at; });
			await new Promise((r) => setTimeout(r, 20));
			ac.abort(new Error("stop waiting"));
			r.aborted = await mine;
			// The holder's one wake-up must reach the worker, not the abandoned wait.
			await holder.run(async () => self.m.unlock());
			const unlockedAt = performance.timeOrigin + performance.now();
			r.otherWaiterMs = (await theirs) - unlockedAt;
			r.afterAll = await m.lockAsync(1000);
			m.unlock();
			r.word = word[0];
			holder.terminate(); other.terminate();
			return r;
		})()`)
		if got.PreAborted != "pre" {
			t.Errorf("lockAsync with an aborted signal: %q, want rejection with its reason", got.PreAborted)
		}
		checkError(t, "lockAsync({ signal: {} })", got.BadSignal, "TypeError", "AbortSignal")
		if got.Aborted != "stop waiting" {
			t.Errorf("aborting a waiting lockAsync: %q, want rejection with the signal's reason", got.Aborted)
		}
		if got.OtherWaiterMs > 1000 {
			t.Errorf("after an aborted lockAsync, a worker waiting behind it got the lock only %.0f ms after the unlock: the abandoned wait swallowed the wake-up", got.OtherWaiterMs)
		}
		if !got.AfterAll || got.Word != 0 {
			t.Errorf("the mutex does not work after the abort: lockAsync = %v, word = %d", got.AfterAll, got.Word)
		}
	})
}

func TestAcquireHandles(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[map[string]any](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(8);
			const m = new sabmutex.Mutex(sab, 0);
			const r = {};
			// The using declaration where the engine has it (WebKitGTK 2.50 has
			// not), else the disposal it would make.
			const scoped = (body) => usingSyntax() ? new Function("m", "return (async () => { let inside; { " + body + " } return inside; })()") : null;
			r.usingSyntax = usingSyntax();
			if (r.usingSyntax) r.heldInside = await scoped("using h = await m.acquireAsync(100); inside = !m.tryLock();")(m);
			else { const h = await m.acquireAsync(100); r.heldInside = !m.tryLock(); h[Symbol.dispose ?? Symbol.for("Symbol.dispose")](); }
			r.freeAfterUsing = m.tryLock();
			r.sibling = await errorOf(() => m.acquireAsync({ timeoutMs: 20 })); // waits for this task, in vain
			m.unlock();
			const [holder] = await startWorkers(["classic"], sab);
			await holder.run(async () => self.m.lock());
			r.timeout = await errorOf(() => m.acquireAsync({ timeoutMs: 20 }));
			await holder.run(async () => self.m.unlock());
			holder.terminate();
			const h = await m.acquireAsync();
			h.release();
			r.releasedTwice = await errorOf(() => h.release());
			h[Symbol.dispose ?? Symbol.for("Symbol.dispose")](); // after release: nothing
			r.free = m.tryLock();
			m.unlock();
			r.withLockAsync = await m.withLockAsync(async () => !m.tryLock());
			r.withLockAsyncThrows = await errorOf(() => m.withLockAsync(() => { throw new Error("inside") }));
			r.freeAfterThrow = m.tryLock();
			m.unlock();
			const [w] = await startWorkers(["module"], sab);
			r.workerUsing = await w.run(async () => {
				let inside;
				try {
					inside = new Function("m", "let inside; { using h = m.acquire(100); inside = !m.tryLock(); } return inside;")(self.m);
				} catch (e) {
					if (!(e instanceof SyntaxError)) throw e;
					const h = self.m.acquire(100); inside = !self.m.tryLock(); h[Symbol.dispose ?? Symbol.for("Symbol.dispose")]();
				}
				return inside && self.m.tryLock();
			});
			w.terminate();
			return r;
		})()`)
		t.Logf("using declarations: %v", got["usingSyntax"])
		for _, k := range []string{"heldInside", "freeAfterUsing", "free", "withLockAsync", "freeAfterThrow", "workerUsing"} {
			if got[k] != true {
				t.Errorf("%s = %v, want true", k, got[k])
			}
		}
		errOf := func(k string) *jsError {
			m, _ := got[k].(map[string]any)
			if m == nil {
				return nil
			}
			return &jsError{Name: m["name"].(string), Message: m["message"].(string)}
		}
		checkError(t, "acquireAsync on a held mutex", errOf("timeout"), "TimeoutError", "timed out after 20 ms")
		checkError(t, "release twice", errOf("releasedTwice"), "Error", "already released")
		checkError(t, "acquireAsync while a sibling task holds it", errOf("sibling"), "TimeoutError", "timed out after 20 ms")
		if e := errOf("withLockAsyncThrows"); e == nil || e.Message != "inside" {
			t.Errorf("withLockAsync(fn that throws) = %v, want fn's error", e)
		}
	})
}

// An aborted signal wins over a ready primitive: every asynchronous call
// that takes a signal, given one already aborted where it would succeed at
// once, rejects with the signal's reason and takes nothing (the channel
// still holds its message, the semaphore all its permits, the mutex is
// free...), on the page and in a worker (testdata/family.js,
// preAbortedCases).
func TestPreAbortedSignalWins(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct{ Page, Worker map[string]any }](p, `(async () => {
			await sabmutex.init();
			const page = await preAbortedCases(sabmutex);
			const [w] = await startWorkers(["module"], new SharedArrayBuffer(8));
			const worker = await w.run(preAbortedCases);
			w.terminate();
			return { page, worker };
		})()`)
		for where, rows := range map[string]map[string]any{"page": got.Page, "worker": got.Worker} {
			if len(rows) < 4*19 {
				t.Errorf("%s: only %d rows ran", where, len(rows))
			}
			for name, v := range rows {
				if v != true {
					t.Errorf("%s: %s: %v", where, name, v)
				}
			}
		}
	})
}

// A waitAsync whose wait succeeded before its signal aborted reports the
// success: the page's Barrier arrival sleeps, a worker's arrival completes
// the generation, and the page aborts before its sleep's end can reach it
// (it spins until the word shows the new generation, then aborts). The
// arrival counted, so the call resolves "passed", not with the reason.
func TestAbortAfterBarrierCompletedPasses(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct{ Mine, Theirs, Next string }](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(64), word = new Int32Array(sab);
			const b = new sabmutex.Barrier(sab, 0, 2);
			const [w] = await startWorkers(["classic"], sab);
			const ac = new AbortController();
			const mine = b.waitAsync({ signal: ac.signal }).then(String, (e) => (e === ac.signal.reason ? "rejected with the signal's reason" : "rejected: " + e.message));
			const arrived = Atomics.load(word, 0);
			const theirs = w.run(async (sabmutex, { sab }) => new sabmutex.Barrier(sab, 0, 2).wait(5000), { sab });
			for (const t0 = performance.now(); Atomics.load(word, 0) === arrived && performance.now() - t0 < 5000; ); // no await: the sleep's end waits
			ac.abort(new Error("too late"));
			const r = { mine: await mine, theirs: await theirs };
			// The next generation needs two arrivals again.
			r.next = (await Promise.all([b.waitAsync(5000), w.run(async (sabmutex, { sab }) => new sabmutex.Barrier(sab, 0, 2).wait(5000), { sab })])).sort().join();
			w.terminate();
			return r;
		})()`)
		if got.Mine != "passed" || got.Theirs != "last" {
			t.Errorf("aborted after the worker completed the generation: the page's waitAsync %s, the worker's wait %q; want passed and last", got.Mine, got.Theirs)
		}
		if got.Next != "last,passed" {
			t.Errorf("the next generation: %s, want last,passed", got.Next)
		}
	})
}
