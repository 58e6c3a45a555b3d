package browsertest

import "testing"

// Owner tracking: a blocking lock by the holder throws sabmutex: deadlock
// instead of hanging (an asynchronous one waits for its sibling task:
// tasks_test.go), unlock by another agent throws, both change nothing;
// isLocked() and holder() report the state.
func TestOwnerMisuse(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			Deadlock, WrongUnlock           *jsError
			Holder, Page, Worker            int
			Locked, LockedAfter, PageHolder bool
			Slots                           []int
		}](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(16);
			const m = new sabmutex.Mutex(sab, 0);
			const [w] = await startWorkers(["module"], sab);
			const r = { page: sabmutex.agentId, worker: await w.run(async () => sabmutex.agentId) };
			r.deadlock = await w.run(async () => {
				self.m.lock();
				try { self.m.lock(); return null; } catch (e) { return { name: e.name, message: e.message }; }
			});
			r.holder = m.holder();
			r.locked = m.isLocked();
			const before = Array.from(new Int32Array(sab));
			r.wrongUnlock = await errorOf(() => m.unlock());
			r.slots = Array.from(new Int32Array(sab)).map((v, i) => v - before[i]);
			await w.run(async () => self.m.unlock());
			r.lockedAfter = m.isLocked();
			await m.lockAsync();
			r.pageHolder = m.holder() === sabmutex.agentId;
			m.unlock();
			w.terminate();
			return r;
		})()`)
		checkError(t, "lock by the holder (worker)", got.Deadlock, "Error", "deadlock", "already holds")
		checkError(t, "unlock by another agent", got.WrongUnlock, "Error", "does not hold", "only the agent that locked it")
		if got.Holder != got.Worker || !got.Locked || got.LockedAfter || !got.PageHolder {
			t.Errorf("holder() = %d (worker %d), isLocked() = %v, after unlock %v; the page's holder() when it holds it is itself: %v", got.Holder, got.Worker, got.Locked, got.LockedAfter, got.PageHolder)
		}
		for i, d := range got.Slots {
			if d != 0 {
				t.Errorf("the wrong-agent unlock changed slot %d", i)
			}
		}
	})
}

// A worker terminated while it holds the mutex: the page releases what it
// held, a worker waiting for it gets it and learns that the holder died; the
// mutex works normally after that.
func TestDeadHolder(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct {
			NotHeld, Released, WaiterGot, WaiterToldDied, NextToldDied, PageGot bool
			ToldAfterUnlock                                                     bool // previousHolderDied once the waiter unlocked
			ToldAfterCondWait                                                   bool // ... once a Cond's wait released and relocked it
			BadID                                                               *jsError
		}](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(16);
			const m = new sabmutex.Mutex(sab, 0);
			const [doomed, waiter] = await startWorkers(["classic", "module"], sab);
			const doomedId = await doomed.run(async () => { self.m.lock(); return sabmutex.agentId; });
			const r = {};
			r.notHeld = m.releaseIfHeldBy(doomedId + 1 > 2147483647 ? 1 : doomedId + 1) === false;
			const waiting = waiter.run(async (sabmutex) => {
				const got = self.m.lock(10000);
				const died = self.m.previousHolderDied;
				new sabmutex.Cond(self.sab, 2).wait(self.m, 1); // times out, relocks
				const afterCondWait = self.m.previousHolderDied;
				self.m.unlock();
				const afterUnlock = self.m.previousHolderDied;
				const again = self.m.lock(1000) && !self.m.previousHolderDied;
				self.m.unlock();
				return { got, died, afterCondWait, afterUnlock, again };
			});
			await new Promise((res) => setTimeout(res, 50)); // the waiter is asleep now
			doomed.terminate();
			r.released = m.releaseIfHeldBy(doomedId);
			const w = await waiting;
			r.waiterGot = w.got;
			r.waiterToldDied = w.died;
			r.nextToldDied = !w.again;
			r.toldAfterUnlock = w.afterUnlock;
			r.toldAfterCondWait = w.afterCondWait;
			r.pageGot = (await m.lockAsync(1000)) && !m.previousHolderDied;
			m.unlock();
			r.badID = await errorOf(() => m.releaseIfHeldBy(0));
			waiter.terminate();
			return r;
		})()`)
		if !got.NotHeld {
			t.Error("releaseIfHeldBy of an agent that holds nothing returned true")
		}
		if !got.Released || !got.WaiterGot || !got.WaiterToldDied {
			t.Errorf("after the holder was terminated: released %v, the waiter got it %v, was told %v", got.Released, got.WaiterGot, got.WaiterToldDied)
		}
		if got.ToldAfterUnlock || got.ToldAfterCondWait {
			t.Errorf("previousHolderDied still true after the waiter unlocked (%v) or a Cond's wait relocked (%v)", got.ToldAfterUnlock, got.ToldAfterCondWait)
		}
		if got.NextToldDied || !got.PageGot {
			t.Errorf("the death should be told once: told again %v; the page got it %v", got.NextToldDied, got.PageGot)
		}
		checkError(t, "releaseIfHeldBy(0)", got.BadID, "RangeError", "agent id")
	})
}
