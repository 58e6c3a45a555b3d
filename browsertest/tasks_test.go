package browsertest

import (
	"fmt"
	"strings"
	"testing"
)

// clockStepMs is how far two readings of performance.now() may disagree with
// their order: Firefox's 20 µs steps carry jitter, and a reading taken after
// another was seen 20-40 µs below it. Durations are checked to this.
const clockStepMs = 0.1

// siblingResult is what siblingCases (testdata/harness.js) reports.
type siblingResult struct {
	Order                             []string
	Handlers                          any // ["a", "b"], or the error
	Zero, Sixty, QueuedGot, FreeAfter bool
	ZeroBeforeTask                    bool // lockAsync(0) answered before a timer queued just before it
	ZeroMs, SixtyMs, AcquireMs        float64
	Acquire, BlockingRelock           *jsError
	BlockingRelockMs                  float64
	Aborted                           string
	Word                              int
}

// checkSiblings: the asynchronous tasks of one agent queue for the mutex as
// Web Locks and async-mutex do, and never see a deadlock error.
func checkSiblings(t *testing.T, where string, r siblingResult, worker bool) {
	t.Helper()
	if got := strings.Join(r.Order, ", "); got != "a in, a out, b in, b out" || fmt.Sprint(r.Handlers) != "[a b]" {
		t.Errorf("%s: two handlers with withLockAsync: order %q, results %v; want one after the other, both resolved", where, got, r.Handlers)
	}
	if r.Zero || !r.ZeroBeforeTask {
		t.Errorf("%s: lockAsync(0) while a sibling task holds it = %v (before a task ran: %v; %.1f ms), want false at once", where, r.Zero, r.ZeroBeforeTask, r.ZeroMs)
	}
	if r.Sixty || r.SixtyMs < 60-clockStepMs || r.SixtyMs > 2000 {
		t.Errorf("%s: lockAsync(60) while a sibling task holds it = %v after %.1f ms, want false after >= 60 ms", where, r.Sixty, r.SixtyMs)
	}
	checkError(t, where+": acquireAsync({ timeoutMs: 60 }) while a sibling task holds it", r.Acquire, "TimeoutError", "timed out after 60 ms")
	if r.AcquireMs < 60-clockStepMs {
		t.Errorf("%s: acquireAsync({ timeoutMs: 60 }) gave up after %.1f ms", where, r.AcquireMs)
	}
	if r.Aborted != "no longer needed" {
		t.Errorf("%s: aborted lockAsync while a sibling task holds it: %q, want rejection with the signal's reason", where, r.Aborted)
	}
	if worker {
		checkError(t, where+": blocking lock() while an async task of the same worker holds it", r.BlockingRelock, "Error", "deadlock", "already holds")
		if r.BlockingRelockMs > 500 { // (half its timeout: a stalled thread is not a wait)
			t.Errorf("%s: the blocking lock(1000) threw only after %.0f ms, want at once", where, r.BlockingRelockMs)
		}
	}
	if !r.QueuedGot || !r.FreeAfter || r.Word != 0 {
		t.Errorf("%s: a queued sibling got it: %v; free afterwards: %v, word %d (want 0)", where, r.QueuedGot, r.FreeAfter, r.Word)
	}
}

// Tasks of the page, and tasks of a worker, share one mutex.
func TestSiblingTasks(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct{ Page, Worker siblingResult }](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(16);
			const page = await siblingCases(sabmutex, { sab, index: 0 });
			const [w] = await startWorkers(["module"], sab);
			const worker = await w.run(siblingCases, { sab, index: 2 });
			w.terminate();
			return { page, worker };
		})()`)
		checkSiblings(t, "page", got.Page, false)
		checkSiblings(t, "worker", got.Worker, true)
	})
}

type taskHammerResult struct{ Counter, Expected, Word int }

func runTaskHammer(t *testing.T, e *engine, n int, useLock bool) taskHammerResult {
	p := e.open(t, isolated.URL+"/index.html")
	return eval[taskHammerResult](p, fmt.Sprintf(`taskHammer({ pageTasks: 3, workerTasks: 3, blockingWorkers: 2, n: %d, useLock: %v })`, n, useLock))
}

// 3 looping page tasks, 3 asynchronous loops in one worker and 2 blocking
// workers: an exact total.
func TestTaskHammer(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		n := 5000
		if testing.Short() {
			n = 1000
		}
		r := runTaskHammer(t, e, n, true)
		if r.Counter != r.Expected || r.Word != 0 {
			t.Fatalf("counter %d, want %d (word %d): the mutex let two tasks in at once", r.Counter, r.Expected, r.Word)
		}
		t.Logf("counter %d = 8 loops × %d", r.Counter, n)
	})
}

// The task hammer can fail: without the lock, tasks that await between the
// load and the store lose updates.
func TestTaskHammerWithoutLockLosesUpdates(t *testing.T) {
	sameWithoutWaitAsync(t, "a twin without the primitive waits for nothing of sabmutex's: the first pass has shown that the check can fail")
	forEngines(t, func(t *testing.T, e *engine) {
		r := runTaskHammer(t, e, 1000, false)
		if r.Counter >= r.Expected {
			t.Fatalf("without the lock the counter is %d of %d: the task hammer cannot tell a broken mutex from a working one", r.Counter, r.Expected)
		}
		t.Logf("without the lock: %d of %d increments survived", r.Counter, r.Expected)
	})
}
