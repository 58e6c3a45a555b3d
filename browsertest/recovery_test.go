package browsertest

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// When the program around it goes wrong (jsglue/registry.js, jsglue/watch.js,
// internal/core/wait.go's watch; testdata/recovery.js): a holder terminated
// while it holds a mutex is found dead and its mutex freed for each kind of
// waiter, the next holder told; deadlocks of 2 and 3 workers are named; a
// long chain with a busy holder is not; snapshot() shows who waits for whom.

// A holder terminated while it holds the mutex, for each kind of waiter
// (the times from terminate() to the waiter's lock are in the log), each
// with its twin: a holder that did not join is not watched.
func TestDeadHolderFreed(t *testing.T) {
	modes := []string{"lock", "lock with timeout", "lockAsync in a worker", "lockAsync on the page"}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		var times []string
		for _, mode := range modes {
			type result struct {
				Took, Died bool
				RecoveryMs float64
				Ticker     *struct {
					Running bool
					Ended   int
					Behind  int
				}
			}
			r := eval[result](p, fmt.Sprintf(`deadHolder(%q, true)`, mode))
			if !r.Took || !r.Died {
				t.Errorf("%s, its holder terminated: took %v, previousHolderDied %v; want both true", mode, r.Took, r.Died)
			}
			if r.RecoveryMs > 1000 {
				t.Errorf("%s: took the mutex %.0f ms after its holder was terminated, want under 1000", mode, r.RecoveryMs)
			}
			// lock() without a timeout sleeps untimed, its first sleep ended
			// by the ticker (jsglue/ticker.js), which had the buffer before
			// the waiter called lock(); the waiter slept 300 ms before its
			// holder was terminated, so the ticker ended that sleep.
			if mode == "lock" && (r.Ticker == nil || !r.Ticker.Running || r.Ticker.Ended < 1) {
				t.Errorf("lock: the waiter's ticker %+v, want it running and at least one sleep ended by it", r.Ticker)
			}
			times = append(times, fmt.Sprintf("%s %.0f ms", mode, r.RecoveryMs))
			// The can-fail twin: a holder that did not join is not watched.
			if mode == "lock" {
				continue // its twin is the one with a timeout
			}
			twin := eval[result](p, fmt.Sprintf(`deadHolder(%q, false)`, mode))
			if twin.Took {
				t.Errorf("%s, its holder (not joined) terminated: took the mutex, want a timeout (nobody watches that holder)", mode)
			}
		}
		t.Logf("from terminate() to the waiter's lock: %s", strings.Join(times, ", "))
	})
}

// A mutex handed off to a waiter that never comes (see lostHandOff): a
// watched waiter voids the hand-off and takes it; its twin, not watched,
// times out.
func TestLostHandOff(t *testing.T) {
	modes := []string{"lock", "lockAsync in a worker", "lockAsync on the page"}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		type result struct {
			Took     bool
			WaitedMs float64
		}
		var times []string
		for _, mode := range modes {
			r := eval[result](p, fmt.Sprintf(`lostHandOff(%q, true)`, mode))
			if !r.Took || r.WaitedMs > 1000 {
				t.Errorf("%s, the mutex handed off to nobody: took %v after %.0f ms, want true within 1000 ms", mode, r.Took, r.WaitedMs)
			}
			times = append(times, fmt.Sprintf("%s %.0f ms", mode, r.WaitedMs))
		}
		if r := eval[result](p, `lostHandOff("lock", false)`); r.Took {
			t.Errorf("lock, not watched, the mutex handed off to nobody: took it, want a timeout (only a watch voids a hand-off)")
		}
		t.Logf("from the lock call to holding it: %s", strings.Join(times, ", "))
	})
}

// The family's holders terminated: an RWMutex writer, a Once's runner, a
// Mutex that a Cond waiter relocks (see deadHolderFamily).
func TestDeadHolderFamily(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		var times []string
		type result struct {
			Worker, Page, Told bool
			Runs               int
			RecoveryMs         float64
		}
		for _, kind := range []string{"RWMutex", "RWMutex reader", "Once", "Cond"} {
			r := eval[result](p, fmt.Sprintf(`deadHolderFamily(%q)`, kind))
			wantTold := kind == "RWMutex" || kind == "Once" // a reader wrote nothing; the Cond's relock is Mutex's (TestDeadHolder)
			if !r.Worker || !r.Page || (kind == "Once" && r.Runs != 1) || (wantTold && !r.Told) || (kind == "RWMutex reader" && r.Told) {
				t.Errorf("%s, its holder terminated: the worker's wait %v, the page's %v, fns run %d, told %v; want true, true (for a Once, 1 run), told %v", kind, r.Worker, r.Page, r.Runs, r.Told, wantTold)
			}
			if r.RecoveryMs > 1000 {
				t.Errorf("%s: the waits ended %.0f ms after the holder was terminated, want under 1000", kind, r.RecoveryMs)
			}
			times = append(times, fmt.Sprintf("%s %.0f ms", kind, r.RecoveryMs))
		}
		// The can-fail twins: a holder that did not join is not found, and
		// the waits end at their timeouts, empty-handed. Side by side: each
		// has primitives and workers of its own, and waits out its timeout.
		kinds := []string{"RWMutex", "RWMutex reader", "Once", "Cond"}
		kindsJS, _ := json.Marshal(kinds)
		rs := eval[[]result](p, fmt.Sprintf(`Promise.all(%s.map((kind) => deadHolderFamily(kind, false)))`, kindsJS))
		for i, r := range rs {
			if r.Worker || r.Page {
				t.Errorf("%s, its holder not joined and terminated: the worker's wait %v, the page's %v; want both timed out", kinds[i], r.Worker, r.Page)
			}
		}
		if len(rs) != len(kinds) {
			t.Errorf("%d twins ran, want %d", len(rs), len(kinds))
		}
		t.Logf("from terminate() to the last waiter's end: %s", strings.Join(times, ", "))
	})
}

// TestDeadlockNamed: cycles of 2 and 3 workers on Mutexes and RWMutexes,
// one after the other on one page an engine (each its workers and memory).
func TestDeadlockNamed(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		for _, c := range []struct {
			n    int
			kind string
		}{{2, "Mutex"}, {3, "Mutex"}, {2, "RWMutex"}, {3, "RWMutex"}, {2, "RWMutex read"}} {
			t.Run(fmt.Sprintf("%d-%s", c.n, c.kind), func(t *testing.T) {
				r := eval[struct {
					Agents []struct {
						ID          int
						Name, Error string
					}
					DetectMs float64
				}](p, fmt.Sprintf(`deadlock(%d, %q)`, c.n, c.kind))
				told := 0
				for _, a := range r.Agents {
					if a.Error == "" {
						continue
					}
					told++
					if !strings.HasPrefix(a.Error, "Error: sabmutex: deadlock: ") {
						t.Errorf("%s was told %q, want a sabmutex deadlock Error", a.Name, a.Error)
					}
					for i, b := range r.Agents {
						want := fmt.Sprintf("agent %d (%q) waits for the %s", b.ID, b.Name, map[string]string{"Mutex": "Mutex", "RWMutex": "RWMutex (write)", "RWMutex read": "RWMutex (write)"}[c.kind])
						if !strings.Contains(a.Error, want) {
							t.Errorf("the error does not name member %d: want %q in %q", i, want, a.Error)
						}
					}
				}
				if told != 1 {
					t.Errorf("%d of %d agents were told of the deadlock, want 1 (the others go on once it releases): %+v", told, c.n, r.Agents)
				}
				if r.DetectMs > 1000 {
					t.Errorf("the deadlock was told %.0f ms after the cycle closed, want under 1000", r.DetectMs)
				}
				t.Logf("told %.0f ms after the cycle closed", r.DetectMs)
			})
		}
	})
}

func TestNoFalseDeadlock(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		if got := eval[[]bool](p, `longChain()`); len(got) != 4 || strings.Contains(fmt.Sprint(got), "false") {
			t.Errorf("the chain's four waits: %v, want all true", got)
		}
	})
}

func TestSnapshot(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		type wait struct {
			Kind         string
			Index        int
			Holder       *int
			SinceMs      float64
			Blocked      bool
			DeadlineInMs *float64
		}
		type agent struct {
			AgentID    int
			Name       string
			Alive      bool
			WaitingFor *wait
		}
		type snap struct {
			AgentID int
			Agents  []agent
		}
		r := eval[struct {
			IDs                                    struct{ Page, Holder, Waiter int }
			During, After                          snap
			WaiterSawDeath, PageSawDeath, PageTook bool
			Times                                  struct{ WaiterStartedAt, PageStartedAt, SeenAt, SnapAt, SnapEnd float64 }
		}](p, `snapshots()`)
		find := func(s snap, id int) agent {
			for _, a := range s.Agents {
				if a.AgentID == id {
					return a
				}
			}
			t.Fatalf("agent %d is not in the snapshot %+v", id, s)
			return agent{}
		}
		if r.During.AgentID != r.IDs.Page {
			t.Errorf("snapshot().agentId = %d, want the page's %d", r.During.AgentID, r.IDs.Page)
		}
		h, w, pg := find(r.During, r.IDs.Holder), find(r.During, r.IDs.Waiter), find(r.During, r.IDs.Page)
		if h.Name != "holder" || !h.Alive || h.WaitingFor != nil {
			t.Errorf("the holder, during: %+v, want alive, named, waiting for nothing", h)
		}
		// sinceMs follows what the test waited for, not wall time: each
		// wait was recorded (since) no later than the page first saw it,
		// so at the snapshot it had lasted at least from then (300 ms
		// and more; a record renewed at each watch period would read
		// 50-100), and no longer than since the wait began (10 ms: the
		// two agents' clocks, and sinceMs's rounding).
		tm := r.Times
		// The waiter's lock() has no timeout, the page's lockAsync(5000)
		// one (its deadline 5000 ms after it began, less what it waited).
		for _, c := range []struct {
			a         agent
			blocked   bool
			timeoutMs float64 // 0: none
			startedAt float64
		}{{w, true, 0, tm.WaiterStartedAt}, {pg, false, 5000, tm.PageStartedAt}} {
			wf := c.a.WaitingFor
			min, max := math.Floor(tm.SnapAt-tm.SeenAt)-1, math.Ceil(tm.SnapEnd-c.startedAt)+10
			if wf == nil || wf.Kind != "Mutex" || wf.Index != 0 || wf.Holder == nil || *wf.Holder != r.IDs.Holder || wf.Blocked != c.blocked || wf.SinceMs < min || wf.SinceMs > max {
				t.Errorf("%s, during: waitingFor %+v, want the Mutex at index 0 held by %d, blocked %v, for %.0f to %.0f ms", c.a.Name, wf, r.IDs.Holder, c.blocked, min, max)
				continue
			}
			switch d := wf.DeadlineInMs; {
			case c.timeoutMs == 0 && d != nil:
				t.Errorf("%s, during: deadlineInMs %v for a wait without a timeout, want null", c.a.Name, *d)
			case c.timeoutMs > 0 && (d == nil || *d < c.timeoutMs-(tm.SnapEnd-c.startedAt)-15 || *d > c.timeoutMs-(tm.SnapAt-c.startedAt)+15):
				t.Errorf("%s, during: deadlineInMs %s for lockAsync(%.0f), want what is left of it, %.0f to %.0f (sinceMs %.0f)", c.a.Name, ms(d), c.timeoutMs, c.timeoutMs-(tm.SnapEnd-c.startedAt)-15, c.timeoutMs-(tm.SnapAt-c.startedAt)+15, wf.SinceMs)
			}
		}
		if a := find(r.After, r.IDs.Holder); a.Alive {
			t.Errorf("the holder, after terminate(): alive")
		}
		if a := find(r.After, r.IDs.Waiter); a.WaitingFor != nil {
			t.Errorf("the waiter, after it had the mutex: waitingFor %+v", a.WaitingFor)
		}
		if !r.PageTook || r.WaiterSawDeath == r.PageSawDeath {
			t.Errorf("after the holder's end: page took %v; the waiter saw the death %v, the page %v: want exactly one told", r.PageTook, r.WaiterSawDeath, r.PageSawDeath)
		}
	})
}

// A Semaphore permit, a WaitGroup count and a Barrier arrival of an agent
// that ended are not freed (nobody knows whose they are): the waiter's
// timeout ends its wait, snapshot() shows it waiting for nobody known, and
// once the page gives back what the worker held, the primitive works on.
func TestDeadAgentCounted(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/recovery.html")
		for _, c := range []struct {
			kind            string
			timedOut, after string
		}{{"Semaphore", "false", "true"}, {"WaitGroup", "false", "true"}, {"Barrier", "timed-out", "last"}} {
			r := eval[struct {
				TimedOut, After any
				WaitingFor      *struct {
					Kind   string
					Holder *int
				}
			}](p, fmt.Sprintf(`deadCounted(%q)`, c.kind))
			if fmt.Sprint(r.TimedOut) != c.timedOut {
				t.Errorf("%s, its worker terminated: the waiter got %v, want %s (its timeout)", c.kind, r.TimedOut, c.timedOut)
			}
			if wf := r.WaitingFor; wf == nil || wf.Kind != c.kind || wf.Holder != nil {
				t.Errorf("%s: the waiter in snapshot() waits for %+v, want the %s with no holder known", c.kind, wf, c.kind)
			}
			if got := fmt.Sprint(r.After); got != c.after && !(c.kind == "Barrier" && got == "passed") {
				t.Errorf("%s, after the page gave back what the worker held: the waiter got %v, want %s", c.kind, got, c.after)
			}
		}
	})
}
