package browsertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Primitives by name (#44, jsglue/names.js over internal/core/names.go): the
// page and workers that joined its registry find the same Mutex by name
// with no memory passed, and it excludes them (the twin without it comes
// up short); the family by name across agents; every mistake throws a
// sabmutex: error and takes nothing; a worker that ends holding a named
// Mutex releases it.
func TestNamedHammer(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		n := 100000
		if testing.Short() {
			n = 30000
		}
		type result struct {
			Counter, Expected int
			Slots             []int
			Same              bool
		}
		run := func(useLock bool) result {
			return eval[result](p, fmt.Sprintf(`(async () => { await sabmutexReady(); return namedHammer({ kinds: ["classic", "module", "module"], n: %d, useLock: %v }); })()`, n, useLock))
		}
		r := run(true)
		if r.Counter != r.Expected || !r.Same || slices.Min(r.Slots) != slices.Max(r.Slots) {
			t.Fatalf("with Mutex.named: counter %d of %d, slots %v, same object %v; want all, one slot, the same object", r.Counter, r.Expected, r.Slots, r.Same)
		}
		var twin result
		for range 3 { // (the workers may not overlap in one run)
			p = e.open(t, isolated.URL+"/index.html")
			if twin = run(false); twin.Counter != twin.Expected {
				break
			}
		}
		if twin.Counter == twin.Expected {
			t.Errorf("without the lock the counter reached %d of %d, three times: the hammer cannot fail", twin.Counter, twin.Expected)
		}
		t.Logf("%d of %d with the named Mutex at slot %d; %d without it", r.Counter, r.Expected, r.Slots[0], twin.Counter)
	})
}

func TestNamedFamily(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		type errInfo struct{ Name, Message string }
		r := eval[struct {
			Mosts                                          []int
			OnceRuns, Received, DistinctMessages, Distinct int
			Waited, BadIsFree, NumberIsString              bool
			Errors                                         map[string]*errInfo
		}](p, `(async () => { await sabmutexReady(); return namedFamily(); })()`)
		if slices.Max(r.Mosts) > 2 {
			t.Errorf("Semaphore.named(\"sem\", 2): up to %v inside at once", r.Mosts)
		}
		if r.OnceRuns != 1 || r.Received != 100 || r.DistinctMessages != 100 || !r.Waited {
			t.Errorf("Once ran %d times (want 1); %d messages, %d distinct (want 100); WaitGroup waited: %v", r.OnceRuns, r.Received, r.DistinctMessages, r.Waited)
		}
		want := map[string]string{
			"otherKind":    `Error: sabmutex: the name "sem" is a Semaphore of 2 permits in this registry, not a Mutex`,
			"otherPermits": `Error: sabmutex: the name "sem" is a Semaphore of 2 permits, not a Semaphore of 3 permits`,
			"otherChannel": `Error: sabmutex: the name "ch" is a Channel of capacity 4 and messages of up to 32 bytes, not a Channel of capacity 8`,
			"noPermits":    `Error: sabmutex: there is no Semaphore named "new semaphore" yet`,
			"noParties":    `Error: sabmutex: there is no Barrier named "new barrier" yet`,
			"noChannel":    `Error: sabmutex: there is no Channel named "new channel" yet`,
			"badPermits":   `RangeError: sabmutex: permits must be a whole number from 1`,
			"badChannel":   `RangeError: sabmutex: capacity must be a whole number from 1`,
			"symbol":       `TypeError: `,
		}
		for k, w := range want {
			got := r.Errors[k]
			if got == nil || !strings.HasPrefix(got.Name+": "+got.Message, w) {
				t.Errorf("%s: %+v, want %q...", k, got, w)
			}
		}
		if !r.BadIsFree || r.Distinct != 5 || !r.NumberIsString {
			t.Errorf("after the mistakes \"bad\" is free: %v; distinct Mutexes of 5 names: %d; 1 named as \"1\": %v", r.BadIsFree, r.Distinct, r.NumberIsString)
		}
	})
}

func TestNamedDeadHolder(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[struct {
			Busy, Got bool
			Ms        float64
		}](p, `(async () => { await sabmutexReady(); return namedDeadHolder(); })()`)
		if !r.Busy || !r.Got {
			t.Fatalf("held by the worker: %v (want true); the page's lockAsync after it ended: %v (want true)", r.Busy, r.Got)
		}
		t.Logf("the page had the named Mutex %.0f ms after the holder was terminated", r.Ms)
	})
}

// Names where users read them (#44, point 6): snapshot() gives a wait for a
// primitive by name its name (waitingFor.name), and a wait for a Mutex of
// another buffer at the very same index none (the core marks which memory a
// wait is on; an index alone would name it too); a deadlock over
// primitives by name names each by its name, those the told worker never
// looked up too; debug mode's lock-order report names Mutexes by name as
// `the Mutex "order x"`. Each fails on the code before names reached them
// (an index where the name should be; debug mode's label `the Mutex
// "order x "order x"`).
func TestNamesInSnapshot(t *testing.T) {
	type wait struct {
		Kind  string
		Name  *string
		Index int
	}
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		r := eval[struct {
			At     int
			Agents map[string]*wait
		}](p, `(async () => { await sabmutexReady(); return namedSnapshot(); })()`)
		for _, c := range []struct {
			agent, kind string
			name        *string
		}{{"named 1", "Mutex", ptr("snap db")}, {"page", "RWMutex (write)", ptr("snap lock")}, {"named 2", "Mutex", nil}} {
			w := r.Agents[c.agent]
			switch {
			case w == nil || w.Kind != c.kind:
				t.Errorf("%s: waitingFor %+v, want a wait for the %s", c.agent, w, c.kind)
			case c.name == nil && w.Name != nil:
				t.Errorf("%s, waiting for the Mutex at index %d of its own buffer: name %q, want null (the named Mutex at that index is in the registry's memory)", c.agent, w.Index, *w.Name)
			case c.name != nil && (w.Name == nil || *w.Name != *c.name):
				t.Errorf("%s: waitingFor.name %s, want %q", c.agent, str(w.Name), *c.name)
			}
		}
		if w := r.Agents["named 2"]; w != nil && w.Index != r.At {
			t.Errorf("the Mutex of a buffer of its own at index %d, want %d: the case does not test what it says", w.Index, r.At)
		}
	})
}

func TestNamesInDeadlock(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		told := eval[[]*string](p, `(async () => { await sabmutexReady(); return namedDeadlock(); })()`)
		var msgs []string
		for _, m := range told {
			if m != nil {
				msgs = append(msgs, *m)
			}
		}
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "Error: sabmutex: deadlock: ") {
			t.Fatalf("told %v, want one worker told of the deadlock", msgs)
		}
		for _, want := range []string{`waits for the Mutex "dl a", which`, `waits for the RWMutex "dl b" (write), which`, `waits for the Mutex "dl c", which`} {
			if !strings.Contains(msgs[0], want) {
				t.Errorf("the deadlock's message %q does not say %q", msgs[0], want)
			}
		}
		if strings.Contains(msgs[0], " at index ") {
			t.Errorf("the deadlock's message %q gives an index for a primitive by name", msgs[0])
		}
		t.Log(msgs[0])
	})
}

func TestNamesInDebugReport(t *testing.T) {
	sameWithoutWaitAsync(t, "debug mode labels a lock when it records it, whatever the wait sleeps on")
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html", "sabmutex: lock-order inversion")
		rs := eval[[]report](p, `(async () => { await sabmutexReady(); return namedDebugOrder(); })()`)
		if len(rs) != 1 || rs[0].Kind != "lock-order" {
			t.Fatalf("reports %+v, want one lock-order report", rs)
		}
		for _, want := range []string{`the Mutex "order x" at`, `the Mutex "order y" at`, `the Mutex "order x", taken`, `the Mutex "order y", taken`} {
			if !strings.Contains(rs[0].Message, want) {
				t.Errorf("report %q does not say %q", rs[0].Message, want)
			}
		}
		t.Log(rs[0].Message)
	})
}

func ptr[T any](v T) *T { return &v }

// Errors say the name (#51): each message of a primitive by name that
// names it says `the Mutex "msg mutex"` (each kind's name is "msg" and its
// kind in lower case), never an index: timeouts, unlocks by another agent
// and of what is not held, a lock this agent holds, corruption, a release
// of more than was taken, a count made negative, a Channel's misuses,
// Once's do() in its own do(), and every kind's internal error. It fails
// on the Mutex's messages before #51 ("the mutex at index 81234").
func TestNamedMessages(t *testing.T) {
	forEngines(t, func(t *testing.T, e *engine) {
		p := e.open(t, isolated.URL+"/index.html")
		type errInfo struct{ Name, Message string }
		got := eval[map[string]*errInfo](p, `(async () => { await sabmutexReady(); return namedMessages(); })()`)
		cases := []string{
			"Once do() in its own do()",
			"Mutex acquireAsync() timed out", "Mutex withLockAsync() timed out", "Mutex unlock() by another agent",
			"RWMutex withLockAsync() timed out", "RWMutex withReadLockAsync() timed out", "RWMutex unlock() by another agent",
			"Mutex lock() held by this agent", "Mutex unlock() unlocked", "Mutex corrupted",
			"RWMutex unlock() unlocked", "RWMutex readUnlock() unlocked",
			"Semaphore release() of none taken", "WaitGroup add(-1)",
			"Channel message too long", "Channel closed twice", "Channel send on closed",
		}
		for _, kind := range []string{"Mutex", "RWMutex", "Semaphore", "Cond", "WaitGroup", "Barrier", "Once", "Channel"} {
			cases = append(cases, kind+" internal error")
		}
		for _, c := range cases {
			kind, _, _ := strings.Cut(c, " ")
			name := fmt.Sprintf(`the %s "msg %s"`, kind, strings.ToLower(kind))
			switch m := got[c]; {
			case m == nil:
				t.Errorf("%s: no error", c)
			case !strings.HasPrefix(m.Message, "sabmutex: ") || !strings.Contains(m.Message, name) || strings.Contains(m.Message, " at index "):
				t.Errorf("%s: %s: %s; want a sabmutex: error that says %s and no index", c, m.Name, m.Message, name)
			}
		}
		if len(got) != len(cases) {
			t.Errorf("%d cases, want %d: %v", len(got), len(cases), got)
		}
	})
}
