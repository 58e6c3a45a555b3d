package browsertest

import (
	"fmt"
	"testing"
)

// The sync family across 4 workers and the page, in every engine
// (testdata/family.js). Each test has a twin that does the same work
// without the primitive and must see its check fail.

type pcResult struct {
	Total, Missing, Duplicated, ByPage, ByWorker, MutexWord int
}

func runProducerConsumer(t *testing.T, e *engine, perProducer int, use bool) pcResult {
	p := e.open(t, isolated.URL+"/index.html")
	return eval[pcResult](p, fmt.Sprintf(`producerConsumer({ perProducer: %d, capacity: 4, use: %v })`, perProducer, use))
}

// A bounded queue with a Mutex and two Conds: 3 producer workers, a consumer
// worker and the page as consumer; every item arrives exactly once, and
// neither consumer starves.
func TestProducerConsumer(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		n := 2000
		if testing.Short() {
			n = 300
		}
		r := runProducerConsumer(t, e, n, true)
		if r.Missing != 0 || r.Duplicated != 0 || r.ByPage+r.ByWorker != r.Total || r.MutexWord != 0 {
			t.Fatalf("%+v: want every item exactly once and the mutex free", r)
		}
		if r.ByPage == 0 || r.ByWorker == 0 {
			t.Errorf("%+v: a consumer got nothing", r)
		}
		t.Logf("%d items, exactly once: %d to the page, %d to the worker", r.Total, r.ByPage, r.ByWorker)
	})
}

func TestProducerConsumerWithoutLockFails(t *testing.T) {
	sameWithoutWaitAsync(t, "a twin without the primitive waits for nothing of sabmutex's: the first pass has shown that the check can fail")
	forEngines(t, func(t *testing.T, e *engine) {
		r, tries := showsFailure(func() pcResult { return runProducerConsumer(t, e, 2000, false) }, func(r pcResult) bool { return r.Missing != 0 || r.Duplicated != 0 })
		if r.Missing == 0 && r.Duplicated == 0 {
			t.Fatalf("%+v: without the mutex no item was lost or doubled in %d tries: the check cannot fail", r, tries)
		}
		t.Logf("without the mutex: %d of %d items missing, %d doubled", r.Missing, r.Total, r.Duplicated)
	})
}

type rwResult struct {
	Counts                        [][2]int
	Violations, MaxReaders, State int
}

func runReadersWriters(t *testing.T, e *engine, use bool) rwResult {
	p := e.open(t, isolated.URL+"/index.html")
	return eval[rwResult](p, fmt.Sprintf(`readersWriters({ workers: 4, ms: 500, use: %v })`, use))
}

// RWMutex: readers never see a half-written snapshot, a writer is alone,
// readers overlap, and every agent (page included) both reads and writes.
// Readers overlap only if two agents run at once, and an agent reads and
// writes only if it runs: on a busy machine a run may show no overlap (or,
// in WebKit beside a busy loop, a new page's async writer that took no
// turn in the 500 ms), so up to three runs, each checked whole for
// violations (which fail at once), until one shows both; each rerun is
// counted (noteRerun). Whether a waiter gets its turn is TestStarvation's.
func TestRWMutexReadersWriters(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		var r rwResult
		var starved []string
		for run := 1; run <= 3 && (r.MaxReaders < 2 || len(starved) > 0); run++ { // (r is zero before run 1)
			if r = runReadersWriters(t, e, true); r.Violations != 0 || r.State != 0 {
				t.Fatalf("%+v: %d violations, state word %d", r, r.Violations, r.State)
			}
			starved = nil
			for a, c := range r.Counts {
				if c[0] == 0 || c[1] == 0 {
					starved = append(starved, fmt.Sprintf("agent %d: %d reads, %d writes", a, c[0], c[1]))
				}
			}
			if r.MaxReaders < 2 || len(starved) > 0 {
				why := fmt.Sprintf("run %d: up to %d readers at once; took no turn of some kind: %v", run, r.MaxReaders, starved)
				if run < 3 {
					noteRerun(t, why)
				} else {
					t.Log(why)
				}
			}
		}
		if len(starved) > 0 {
			t.Errorf("in each of 3 runs an agent took no turn of some kind; the last: %v", starved)
		}
		if r.MaxReaders < 2 {
			t.Errorf("at most %d reader inside at once: readers do not share", r.MaxReaders)
		}
		t.Logf("reads, writes per agent (page first) %v; up to %d readers at once", r.Counts, r.MaxReaders)
	})
}

func TestRWMutexWithoutLockFails(t *testing.T) {
	sameWithoutWaitAsync(t, "a twin without the primitive waits for nothing of sabmutex's: the first pass has shown that the check can fail")
	forEngines(t, func(t *testing.T, e *engine) {
		if r, tries := showsFailure(func() rwResult { return runReadersWriters(t, e, false) }, func(r rwResult) bool { return r.Violations != 0 }); r.Violations == 0 {
			t.Fatalf("%+v: without the lock no reader saw a torn write in %d tries: the check cannot fail", r, tries)
		} else {
			t.Logf("without the lock: %d violations", r.Violations)
		}
	})
}

// showsFailure runs a twin without the primitive until it shows the failure
// that the real run's check looks for, 5 times at most: on a loaded machine
// racing agents may run one after another, and one showing is all a twin
// must give (the check can fail). It returns the last result and the tries.
func showsFailure[T any](run func() T, failed func(T) bool) (T, int) {
	for i := 1; ; i++ {
		if r := run(); failed(r) || i == 5 {
			return r, i
		}
	}
}

type semResult struct {
	Highest, Acquisitions int
	Available             []int
}

// Semaphore(3): agents taking 1 or 2 permits never hold more than 3 together.
func TestSemaphoreGauge(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[semResult](p, `semaphoreGauge({ workers: 4, ms: 500, use: true })`)
		if r.Highest > 3 || r.Highest < 2 || r.Acquisitions == 0 {
			t.Fatalf("%+v: want at most 3 permits in use (and some overlap)", r)
		}
		t.Logf("%d acquisitions, at most %d permits in use", r.Acquisitions, r.Highest)
		if trimmedPass {
			return // the twin takes no permit: the first pass has shown that the check can fail
		}
		r, tries := showsFailure(func() semResult { return eval[semResult](p, `semaphoreGauge({ workers: 4, ms: 300, use: false })`) }, func(r semResult) bool { return r.Highest > 3 })
		if r.Highest <= 3 {
			t.Fatalf("%+v: without the semaphore the gauge stayed within 3 in %d tries: the check cannot fail", r, tries)
		}
		t.Logf("without the semaphore: up to %d in use", r.Highest)
	})
}

type barrierResult struct{ Violations, Lasts, Word int }

// Barrier: 4 workers and the page, 300 generations: nobody leaves before
// all have arrived, and exactly one arrival per generation is "last".
func TestBarrierGenerations(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		const gens = 300
		r := eval[barrierResult](p, fmt.Sprintf(`barrierGenerations({ workers: 4, generations: %d, use: true })`, gens))
		if r.Violations != 0 || r.Lasts != gens {
			t.Fatalf("%+v: want no violation and %d last arrivals", r, gens)
		}
		r, tries := showsFailure(func() barrierResult {
			return eval[barrierResult](p, `barrierGenerations({ workers: 4, generations: 300, use: false })`)
		}, func(r barrierResult) bool { return r.Violations != 0 })
		if r.Violations == 0 {
			t.Fatalf("%+v: without the barrier nobody ran ahead in %d tries: the check cannot fail", r, tries)
		}
		t.Logf("without the barrier: %d early departures", r.Violations)
	})
}

type wgResult struct{ Incomplete, Count int }

// WaitGroup: 100 rounds of fan-out to 4 workers; the page's waitAsync
// returns only once every worker's result is in.
func TestWaitGroupRounds(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		if r := eval[wgResult](p, `waitGroupRounds({ workers: 4, rounds: 100, use: true })`); r.Incomplete != 0 || r.Count != 0 {
			t.Fatalf("%+v: waitAsync returned before the workers were done", r)
		}
		r, tries := showsFailure(func() wgResult { return eval[wgResult](p, `waitGroupRounds({ workers: 4, rounds: 100, use: false })`) }, func(r wgResult) bool { return r.Incomplete != 0 })
		if r.Incomplete == 0 {
			t.Fatalf("%+v: without waiting, every round was complete anyway in %d tries: the check cannot fail", r, tries)
		}
		t.Logf("without waiting: %d results missing", r.Incomplete)
	})
}

type onceResult struct {
	Ran                   []int
	ExtraRuns, Violations int
}

// Once: 4 workers and the page race for 100 Onces; each fn runs once, and
// nobody returns before it has finished.
func TestOnceRace(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[onceResult](p, `onceRace({ workers: 4, rounds: 100, use: true })`)
		sum := 0
		for _, n := range r.Ran {
			sum += n
		}
		if r.ExtraRuns != 0 || r.Violations != 0 || sum != 100 {
			t.Fatalf("%+v: want 100 runs in all, no extra run, nobody early", r)
		}
		t.Logf("runs per agent (page first): %v", r.Ran)
		r, tries := showsFailure(func() onceResult { return eval[onceResult](p, `onceRace({ workers: 4, rounds: 100, use: false })`) }, func(r onceResult) bool { return r.ExtraRuns != 0 || r.Violations != 0 })
		if r.ExtraRuns == 0 && r.Violations == 0 {
			t.Fatalf("%+v: without Once, check-then-run never ran twice in %d tries: the check cannot fail", r, tries)
		}
		t.Logf("without Once: %d extra runs, %d early returns", r.ExtraRuns, r.Violations)
	})
}

// The family's semantics on the page and in a worker: timeouts, aborts,
// sibling tasks, misuse, and the main thread's blocking calls.
func TestFamilyCases(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		got := eval[struct{ Page, Worker map[string]any }](p, `(async () => {
			await sabmutex.init();
			const sab = new SharedArrayBuffer(4 * 64);
			const page = await familyCases(sabmutex, { sab });
			const [w] = await startWorkers(["module"], sab);
			const worker = await w.run(familyCases, { sab: new SharedArrayBuffer(4 * 64) });
			w.terminate();
			return { page, worker };
		})()`)
		for where, cases := range map[string]map[string]any{"page": got.Page, "worker": got.Worker} {
			if len(cases) < 15 {
				t.Errorf("%s: only %d cases ran", where, len(cases))
			}
			t.Logf("%s: %d cases ran", where, len(cases))
			for name, v := range cases {
				if v != true {
					t.Errorf("%s: %s: %v", where, name, v)
				}
			}
		}
	})
}

// Issue 60's hand-off for the waits that every wake-up ends for all
// (testdata/harness.js's familyHandOff): n page tasks wait on one
// WaitGroup, Once or Barrier; a page task's release resolves them all at
// once, within its job (no wake-up), and a worker's with one wake-up; the
// page starts one sleep for them all (two or three, should a wait meet a
// change of the word between its turns), not one each (with
// Atomics.waitAsync) or one per helper worker up to the cap.
type handOffCase struct {
	Early, InJob, Got, Sleeps int
	Ms                        float64
}

const familyHandOffTasks = 2000

func familyHandOff[R any](t *testing.T, e *engine, which string) R {
	p := e.open(t, isolated.URL+"/index.html")
	return eval[R](p, fmt.Sprintf(`familyHandOff({ n: %d, which: %q })`, familyHandOffTasks, which))
}

// checkHandOff checks a case: every task resolved as want (got), none
// before the release, all within the release's job if atOnce, and few
// sleeps.
func checkHandOff(t *testing.T, name string, c handOffCase, want int, atOnce bool) {
	t.Helper()
	const n = familyHandOffTasks
	if c.Got != want || c.Early != 0 {
		t.Errorf("%s: %d of %d tasks resolved as they should be (want %d), %d before the release (want 0)", name, c.Got, n, want, c.Early)
	}
	if atOnce && c.InJob != n {
		t.Errorf("%s: %d of %d tasks resolved within the release's job, want all (at once, not through a wake-up)", name, c.InJob, n)
	}
	if c.Sleeps > 3 {
		t.Errorf("%s: the page started %d sleeps for %d waiting tasks, want 3 at most (one wait for them all, not one each)", name, c.Sleeps, n)
	}
	t.Logf("%s: %d sleeps, %d resolved within the release's job, the last %.2f ms after it", name, c.Sleeps, c.InJob, c.Ms)
}

// WaitGroup.waitAsync: a page task's done() that brings the count to 0,
// then a worker's.
func TestWaitGroupTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		r := familyHandOff[struct {
			Page, Worker handOffCase
			Word         int
		}](t, e, "wg")
		checkHandOff(t, "a page task's done()", r.Page, familyHandOffTasks, true)
		checkHandOff(t, "a worker's done()", r.Worker, familyHandOffTasks, false)
		if r.Word != 0 {
			t.Errorf("the word is %d after all, want 0", r.Word)
		}
	})
}

// Once.doAsync: the end of a page task's run of fn, then of a worker's;
// and Go's rule for a fn that throws: the waiting tasks wake, and exactly
// one runs its own fn.
func TestOnceTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		const n = familyHandOffTasks
		r := familyHandOff[struct {
			Page, Worker, Throws handOffCase
			FirstRan             bool
			PageRuns, RanAfter   int
			Failed               string
			Done                 []bool
		}](t, e, "once")
		checkHandOff(t, "a page task's run of fn", r.Page, n, true)
		checkHandOff(t, "a worker's run of fn", r.Worker, n, false)
		checkHandOff(t, "a page task's fn that throws", r.Throws, n-1, true)
		if !r.FirstRan || r.PageRuns != 0 || r.RanAfter != 1 || r.Failed != "fn threw" {
			t.Errorf("the first fn ran: %v (want true); %d waiting tasks ran theirs (want 0); after a fn threw (%q), %d ran theirs (want 1)", r.FirstRan, r.PageRuns, r.Failed, r.RanAfter)
		}
		if len(r.Done) != 3 || !r.Done[0] || !r.Done[1] || !r.Done[2] {
			t.Errorf("done: %v, want all", r.Done)
		}
	})
}

// Barrier.waitAsync: n+1 parties, n page tasks; the page's own arrival
// completes the generation, then a worker's.
func TestBarrierTaskHandOff(t *testing.T) {
	inThisPass(t)
	forEngines(t, func(t *testing.T, e *engine) {
		r := familyHandOff[struct {
			Page, Worker     handOffCase
			Last, WorkerLast string
			Word             int
		}](t, e, "barrier")
		checkHandOff(t, "the page's arrival", r.Page, familyHandOffTasks, true)
		checkHandOff(t, "a worker's arrival", r.Worker, familyHandOffTasks, false)
		if r.Last != "last" || r.WorkerLast != "last" {
			t.Errorf("the completing arrivals: %q and %q, want last", r.Last, r.WorkerLast)
		}
	})
}
