package browsertest

import (
	"fmt"
	"testing"
)

// Go programs (examples/gocounter over sabsync, run by Go's own
// wasm_exec.js in workers), a JavaScript worker and the page share one
// Mutex, through the demo's Go page (web/static/go.html), which shows the
// count: no increment is lost. Without the lock, increments are lost, so
// the test can fail.
func TestGoWorkersShareTheMutex(t *testing.T) {
	type result struct {
		Expected, Actual, Agents int
		Shown                    string
	}
	forEngines(t, func(t *testing.T, e *engine) {
		// Each run on a page of its own (evalRestarting: WebKitGTK's tab
		// sticks now and then on this page of short-lived workers).
		run := func(lock bool, n int) result {
			return evalRestarting[result](t, e, isolated.URL+"/demo/go.html", fmt.Sprintf(`(async () => {
				for (const t0 = performance.now(); !window.goDemo; await new Promise((r) => setTimeout(r, 10))) {
					if (performance.now() - t0 > 30000) throw new Error("the page did not become ready: " + document.getElementById("status").textContent);
				}
				const r = await goDemo.run(2, 1, %d, %v);
				return { ...r, shown: document.getElementById("actual").textContent };
			})()`, n, lock))
		}
		r := run(true, 500)
		if r.Expected != 2000 || r.Actual != r.Expected || r.Agents != 4 || r.Shown != "2,000" {
			t.Fatalf("%+v: with the lock, want 2,000 of 2,000 by 4 agents, shown", r)
		}
		if trimmedPass {
			return // the twin waits for nothing of sabmutex's: the first pass has shown that the check can fail
		}
		r = run(false, 20000)
		for try := 0; r.Actual == r.Expected && try < 3; try++ {
			r = run(false, 20000) // a loaded machine may run them one after another
		}
		if r.Actual >= r.Expected {
			t.Fatalf("%+v: without the lock nothing was lost: the test cannot fail", r)
		}
		t.Logf("without the lock: %d of %d", r.Actual, r.Expected)
	})
}

// A bounded queue across languages: Go and JavaScript producers, Go and
// page consumers, on one Mutex, two Conds and a WaitGroup: every item
// arrives exactly once, and the WaitGroup counts every worker out. (A lost
// wake-up leaves someone waiting: the evaluation's deadline fails it.)
func TestGoAndJSQueue(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[struct {
			Consumed, Total, ByPage int
			Once, WaitGroup, Held   bool
			IDs                     []int
		}](p, `goAndJSQueue(400)`)
		if r.Consumed != r.Total || !r.Once || !r.WaitGroup || r.Held {
			t.Fatalf("%+v: want every item once, the WaitGroup at 0 and the mutex free", r)
		}
		t.Logf("%d items through a queue of 4, %d of them taken by the page; agents %v", r.Total, r.ByPage, r.IDs)
	})
}

// A Channel across languages: a Go and a JavaScript producer send strings
// and bytes, a Go consumer and the page receive until the page closes it:
// every message once, as the kind it was sent as (see goAndJSChannel).
func TestGoAndJSChannel(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[struct {
			Total, ByPage int
			Once          bool
			IDs           []int
			Wrong         []int
		}](p, `goAndJSChannel(400)`)
		if !r.Once {
			t.Fatalf("%+v: want every message once, as the kind it was sent as (1 per message; 1000: the wrong kind)", r)
		}
		t.Logf("%d messages through a channel of 4, %d of them received by the page; agents %v", r.Total, r.ByPage, r.IDs)
	})
}

// An RWMutex across languages: Go workers, a JavaScript worker and the page
// read and write two counters; under the lock no reader sees a write half
// done and no write is lost; without it, readers do.
func TestGoAndJSRWMutex(t *testing.T) {
	type result struct{ First, Second, HalfSeen, Expected int }
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[result](p, `goAndJSRWMutex(true, 400)`)
		if r.First != r.Expected || r.Second != r.Expected || r.HalfSeen != 0 {
			t.Fatalf("%+v: under the RWMutex want every write and no half-done one seen", r)
		}
		r = eval[result](p, `goAndJSRWMutex(false, 40000)`)
		for try := 0; r.HalfSeen == 0 && r.First == r.Expected && r.Second == r.Expected && try < 3; try++ {
			r = eval[result](p, `goAndJSRWMutex(false, 40000)`) // a loaded machine may run them one after another
		}
		if r.HalfSeen == 0 && r.First == r.Expected && r.Second == r.Expected {
			t.Fatalf("%+v: without the RWMutex nothing went wrong: the test cannot fail", r)
		}
		t.Logf("without the RWMutex: %d and %d of %d writes, %d half-done reads", r.First, r.Second, r.Expected, r.HalfSeen)
	})
}
