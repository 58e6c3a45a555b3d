package browsertest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Go programs as agents (sabsync.Join; testdata/goagent, run by
// testdata/go-agent-worker.js; the page side in testdata/goagent.js): what
// a joined Go worker holds is freed when it is terminated, a joined Go
// waiter gets what a dead JavaScript holder held, a deadlock through a Go
// agent and a JavaScript one is named with both names (and none is named
// while the Go program has another goroutine that could release), and
// snapshot() and sabsync.Snapshot() show each other's agents. Each case has
// its can-fail twin, the same Go agent not joined: its waiters time out.

// Bounds of the recovery times (from the worker's terminate(), and from when
// the page learnt it had ended), generous for a loaded machine: Chromium may
// end a worker up to ~2 s after terminate() (testdata/channel.js). The
// second may be a little below 0: the page looks every few ms, and a
// waiter's watch may see the end first.
const (
	maxFromTerminateMs = 3000
	maxFromLearntMs    = 1000
)

type waitEnd struct {
	Got, Told bool
	AtMs      float64
}

// A joined Go worker terminated while it holds each kind: a JavaScript
// worker's blocking wait and the page's async one both get what it held,
// the first told (previousHolderDied) where the Go agent may have written.
func TestGoAgentHolderDies(t *testing.T) {
	type result struct {
		Worker, Page   waitEnd
		Runs           int
		EndedToLastMs  float64
		LearntToLastMs *float64
	}
	kinds := []string{"Mutex", "RWMutex", "RWMutex read", "Once", "Channel", "Cond"}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/goagent.html")
		var times []string
		for _, kind := range kinds {
			r := eval[result](p, fmt.Sprintf(`goHolderDies(%q, true)`, kind))
			if !r.Worker.Got || !r.Page.Got || (kind == "Once" && r.Runs != 1) {
				t.Errorf("%s, its Go holder terminated: the worker's wait got %v, the page's %v, fns run %d; want true, true (for a Once, 1 run)", kind, r.Worker.Got, r.Page.Got, r.Runs)
			}
			// Who is told (previousHolderDied): of a Mutex (a Cond's too),
			// the first to take it, only; of a Once, the fn that ran; of an
			// RWMutex's write lock, whoever goes in until a writer has held
			// it (internal/core/rwmutex.go's rwWriterDied), so the page's
			// writer always, the worker's reader if it went in first; of
			// read locks, nobody (a reader wrote nothing). The Channel's
			// API tells nothing.
			told := btoi(r.Worker.Told) + btoi(r.Page.Told)
			if (kind == "Mutex" || kind == "Cond" || kind == "Once") && told != 1 || kind == "RWMutex" && !r.Page.Told || kind == "RWMutex read" && told != 0 {
				t.Errorf("%s: told the worker %v, the page %v", kind, r.Worker.Told, r.Page.Told)
			}
			if r.EndedToLastMs > maxFromTerminateMs || r.LearntToLastMs == nil || *r.LearntToLastMs > maxFromLearntMs {
				t.Errorf("%s: the last wait ended %.0f ms after terminate(), %s ms after the page learnt the end; want under %d and %d", kind, r.EndedToLastMs, ms(r.LearntToLastMs), maxFromTerminateMs, maxFromLearntMs)
			}
			times = append(times, fmt.Sprintf("%s %.0f (%s)", kind, r.EndedToLastMs, ms(r.LearntToLastMs)))
		}
		t.Logf("ms from terminate() (from the page learning the end) to the last waiter's end: %s", strings.Join(times, ", "))
		// The twins: the same Go agent, not joined, is not found dead. Side
		// by side: each has its memory, workers and Go agent of its own, and
		// waits out its timeout.
		kindsJS, _ := json.Marshal(kinds)
		rs := eval[[]result](p, fmt.Sprintf(`Promise.all(%s.map((kind) => goHolderDies(kind, false)))`, kindsJS))
		for i, r := range rs {
			if r.Worker.Got || r.Page.Got || r.Runs != 0 {
				t.Errorf("%s, its Go holder not joined and terminated: the worker's wait got %v, the page's %v, fns run %d; want both timed out, none run", kinds[i], r.Worker.Got, r.Page.Got, r.Runs)
			}
		}
		if len(rs) != len(kinds) {
			t.Errorf("%d twins ran, want %d", len(rs), len(kinds))
		}
	})
}

// A joined JavaScript worker terminated while it holds a Mutex: a joined Go
// program waiting in Lock() gets it, told (PreviousHolderDied). The twin:
// the Go program not joined is not watched, and its wait times out.
func TestGoAgentWaiterOfDeadJSHolder(t *testing.T) {
	type result struct {
		Took, Died     bool
		EndedToTookMs  float64
		LearntToTookMs *float64
	}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/goagent.html")
		r := eval[result](p, `jsHolderDies(true)`)
		if !r.Took || !r.Died {
			t.Errorf("the Go waiter of a terminated JavaScript holder: took %v, PreviousHolderDied %v; want both true", r.Took, r.Died)
		}
		if r.EndedToTookMs > maxFromTerminateMs || r.LearntToTookMs == nil || *r.LearntToTookMs > maxFromLearntMs {
			t.Errorf("the Go waiter took the mutex %.0f ms after terminate(), %s ms after the page learnt the end; want under %d and %d", r.EndedToTookMs, ms(r.LearntToTookMs), maxFromTerminateMs, maxFromLearntMs)
		}
		t.Logf("the Go waiter took the mutex %.0f ms after terminate() (%s after the page learnt the end)", r.EndedToTookMs, ms(r.LearntToTookMs))
		if twin := eval[result](p, `jsHolderDies(false)`); twin.Took {
			t.Errorf("a Go waiter not joined took the mutex of a terminated holder: want its timeout (nobody watches its wait)")
		}
	})
}

type deadlockSide struct {
	ID             int
	Took, Deadlock bool
	Error          *string
	StartMs, EndMs float64
}

// A deadlock between a Go program's only goroutine (it holds A, locks B)
// and a JavaScript worker's blocking lock() (it holds B, locks A): exactly
// one wait ends with the deadlock's error, the lower id's, naming both
// agents by name; it releases, and the other gets its lock. Each order of
// ids. The twins name nothing, and both waits time out: the Go program with
// a second goroutine (which could release A, as far as sabsync knows), and
// the Go program not joined.
func TestGoAgentDeadlock(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/goagent.html")
		var times []string
		for _, goFirst := range []bool{true, false} {
			r := eval[struct{ Go, JS deadlockSide }](p, fmt.Sprintf(`goDeadlock({ goFirst: %v })`, goFirst))
			told, other, toldName := &r.Go, &r.JS, "the Go agent"
			if r.JS.Error != nil {
				told, other, toldName = &r.JS, &r.Go, "the JavaScript agent"
			}
			if (r.Go.Error == nil) == (r.JS.Error == nil) || told.ID > other.ID {
				t.Errorf("go first %v: the Go agent (%d) ended with %v, the JavaScript agent (%d) with %v; want exactly one error, the lower id's", goFirst, r.Go.ID, str(r.Go.Error), r.JS.ID, str(r.JS.Error))
				continue
			}
			msg := *told.Error
			if told == &r.Go && (!r.Go.Deadlock || !strings.HasPrefix(msg, "sabmutex: deadlock: ")) ||
				told == &r.JS && !strings.HasPrefix(msg, "Error: sabmutex: deadlock: ") {
				t.Errorf("%s was told %q (a DeadlockError: %v), want sabmutex's deadlock error", toldName, msg, r.Go.Deadlock)
			}
			for _, want := range []string{fmt.Sprintf("agent %d (%q) waits for the Mutex", r.Go.ID, "go agent"), fmt.Sprintf("agent %d (%q) waits for the Mutex", r.JS.ID, "js agent")} {
				if !strings.Contains(msg, want) {
					t.Errorf("the deadlock's error does not name both agents: want %q in %q", want, msg)
				}
			}
			if !other.Took {
				t.Errorf("go first %v: the other agent, once the told one released, took %v, want true", goFirst, other.Took)
			}
			detectMs := told.EndMs - max(r.Go.StartMs, r.JS.StartMs)
			if detectMs > 2000 {
				t.Errorf("the deadlock was told %.0f ms after the cycle closed, want under 2000", detectMs)
			}
			times = append(times, fmt.Sprintf("%s told %.0f ms after the cycle closed", toldName, detectMs))
		}
		t.Log(strings.Join(times, "; "))
		for _, twin := range []string{"extra: true", "join: false"} {
			r := eval[struct{ Go, JS deadlockSide }](p, fmt.Sprintf(`goDeadlock({ %s })`, twin))
			if r.Go.Deadlock || strings.Contains(str(r.Go.Error), "deadlock") || r.JS.Error != nil || r.Go.Took || !r.JS.Took {
				t.Errorf("{ %s }: the Go agent took %v (error %s), the JavaScript agent took %v (error %s); want no deadlock named: the Go agent's wait cancelled after 1.5 s, then the JavaScript agent's taken", twin, r.Go.Took, str(r.Go.Error), r.JS.Took, str(r.JS.Error))
			}
		}
	})
}

// snapshot() lists a joined Go agent, with its name, alive, and what it
// waits for (blocking: its only goroutine waits), and after its worker is
// terminated, not alive; sabsync.Snapshot() in the Go program lists the
// page and the JavaScript worker with their names, and the page's wait. The
// twin: a Go agent not joined is in neither.
func TestGoAgentSnapshot(t *testing.T) {
	type wait struct {
		Kind    string
		Index   int
		Holder  *int
		Blocked bool
	}
	type agent struct {
		AgentID    int
		Name       string
		Alive      bool
		WaitingFor *wait
	}
	type goAgent struct {
		AgentID int
		Name    string
		Alive   bool
		Waiting *struct {
			Kind    string
			Index   int
			Holder  int
			Blocked bool
		}
	}
	type result struct {
		IDs              struct{ Page, Holder, Go int }
		FromGo           []goAgent
		During, After    struct{ Agents []agent }
		GoTook, PageTook bool
	}
	find := func(agents []agent, id int) *agent {
		for i := range agents {
			if agents[i].AgentID == id {
				return &agents[i]
			}
		}
		return nil
	}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/goagent.html")
		r := eval[result](p, `goSnapshot(true)`)
		if !r.GoTook || !r.PageTook {
			t.Errorf("the Go agent took %v, the page %v; want both", r.GoTook, r.PageTook)
		}
		g := find(r.During.Agents, r.IDs.Go)
		var gw *wait
		if g != nil {
			gw = g.WaitingFor
		}
		if g == nil || g.Name != "go waiter" || !g.Alive || g.WaitingFor == nil || g.WaitingFor.Kind != "Mutex" || g.WaitingFor.Index != 0 ||
			g.WaitingFor.Holder == nil || *g.WaitingFor.Holder != r.IDs.Holder || !g.WaitingFor.Blocked {
			t.Errorf("the Go agent %d in snapshot(), during its wait: %+v (waitingFor %+v), want \"go waiter\", alive, waiting for the Mutex at index 0 held by %d, blocking", r.IDs.Go, g, gw, r.IDs.Holder)
		}
		if a := find(r.After.Agents, r.IDs.Go); a == nil || a.Alive {
			t.Errorf("the Go agent in snapshot() after its worker was terminated: %+v, want listed, not alive", a)
		}
		names := map[int]goAgent{}
		for _, a := range r.FromGo {
			names[a.AgentID] = a
		}
		pg, h, self := names[r.IDs.Page], names[r.IDs.Holder], names[r.IDs.Go]
		if pg.Name != "page" || h.Name != "js holder" || self.Name != "go waiter" || !pg.Alive || !h.Alive {
			t.Errorf("sabsync.Snapshot(): %+v; want the page (%d) as \"page\", the worker (%d) as \"js holder\" and itself (%d) as \"go waiter\", alive", r.FromGo, r.IDs.Page, r.IDs.Holder, r.IDs.Go)
		}
		if w := pg.Waiting; w == nil || w.Kind != "Mutex" || w.Index != 0 || w.Holder != r.IDs.Holder || w.Blocked {
			t.Errorf("sabsync.Snapshot(): the page waits for %+v, want the Mutex at index 0 held by %d, not blocking", w, r.IDs.Holder)
		}
		twin := eval[result](p, `goSnapshot(false)`)
		if find(twin.During.Agents, twin.IDs.Go) != nil || twin.FromGo != nil || !twin.GoTook {
			t.Errorf("a Go agent not joined: in snapshot() %v, sabsync.Snapshot() %+v, took %v; want absent, nil, took", find(twin.During.Agents, twin.IDs.Go) != nil, twin.FromGo, twin.GoTook)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ms is an optional time as messages show it.
func ms(v *float64) string {
	if v == nil {
		return "(not learnt)"
	}
	return fmt.Sprintf("%.0f", *v)
}

// str is an optional error text as messages show it.
func str(s *string) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("%q", *s)
}

// Names where users read them, through a Go agent (#44, point 6): the
// deadlock of TestGoAgentDeadlock over the Mutexes named "go a" (the Go
// program holds it) and "go b" (the worker does): the one told, Go's
// DeadlockError (Go first: the lower id) or the worker's Error, names both
// by name, the other's wait too; and snapshot() and sabsync.Snapshot()
// give a wait for the Mutex named "go snap" its name (Name, Named in Go).
// On the code before names reached them, both said an index.
func TestGoAgentNames(t *testing.T) {
	type goWait struct {
		Kind  string
		Name  string
		Named bool
	}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/goagent.html")
		for i, goFirst := range []bool{true, false} {
			names := fmt.Sprintf(`["go a%d", "go b%d"]`, i, i)
			r := eval[struct{ Go, JS deadlockSide }](p, fmt.Sprintf(`goDeadlock({ goFirst: %v, names: %s })`, goFirst, names))
			told := r.Go.Error
			if !goFirst {
				told = r.JS.Error
			}
			if told == nil {
				t.Errorf("go first %v: the Go agent ended with %v, the worker with %v; want the %s told", goFirst, str(r.Go.Error), str(r.JS.Error), map[bool]string{true: "Go agent", false: "worker"}[goFirst])
				continue
			}
			for _, want := range []string{fmt.Sprintf(`("go agent") waits for the Mutex "go b%d", which`, i), fmt.Sprintf(`("js agent") waits for the Mutex "go a%d", which`, i)} {
				if !strings.Contains(*told, want) {
					t.Errorf("go first %v: the deadlock's message %q does not say %q", goFirst, *told, want)
				}
			}
			t.Log(*told)
		}
		type agent struct {
			AgentID    int
			WaitingFor *struct{ Name *string }
		}
		r := eval[struct {
			IDs    struct{ Page, Go int }
			FromGo []struct {
				AgentID int
				Waiting *goWait
			}
			During struct{ Agents []agent }
		}](p, `goSnapshot(true, ["go snap"])`)
		for _, a := range r.During.Agents {
			if a.AgentID == r.IDs.Go && (a.WaitingFor == nil || a.WaitingFor.Name == nil || *a.WaitingFor.Name != "go snap") {
				t.Errorf("snapshot(): the Go agent's wait %+v, want the name \"go snap\"", a.WaitingFor)
			}
		}
		for _, a := range r.FromGo {
			if a.AgentID == r.IDs.Page && (a.Waiting == nil || !a.Waiting.Named || a.Waiting.Name != "go snap") {
				t.Errorf("sabsync.Snapshot(): the page's wait %+v, want Name \"go snap\", Named", a.Waiting)
			}
		}
	})
}
