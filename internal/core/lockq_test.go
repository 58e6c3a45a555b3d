//go:build !wasm

package core

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/testing/futex"
)

// The lock request queues (lockq.go) from one goroutine, several agents:
// the order and the grant rule of Web Locks, which each case names; then
// agents on goroutines (TestLockQueueHammer). Agents that end at every
// step are the explorer's (coretest/lockq_explore_test.go).

// lqTable is a table of queues and records in a memory of its own, for
// the agents ids (prims of the table, by agent).
func lqTable(t *testing.T, ids ...int32) map[int32]prim {
	return lqTableUpTo(t, 1<<23, ids...)
}

// lqTableUpTo is lqTable in a memory that grows to max slots at most.
func lqTableUpTo(t *testing.T, max int, ids ...int32) map[int32]prim {
	t.Helper()
	m := futex.NewGrowable(int(lqSlots())+8, max)
	nativeMemories = append(nativeMemories, m)
	mem := int32(len(nativeMemories) - 1)
	as := map[int32]prim{}
	for _, id := range ids {
		as[id] = prim{mem, 8, id}
	}
	expect(t, "make", lqMake(as[ids[0]]), resultOK)
	return as
}

func units(name string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(name)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// lqState is the state of record r.
func lqState(t prim, r int32) int32 { return atomicLoad(t.mem, r+lqrState) }

// req makes a request that must succeed and returns its record.
func req(t *testing.T, a prim, name string, mode, flags int32) int32 {
	t.Helper()
	r := lqRequest(a, units(name), mode, flags)
	if r < 0 {
		t.Fatalf("request %q by %d: %d", name, a.self, r)
	}
	return r
}

func states(a prim, rs ...int32) string {
	s := ""
	for _, r := range rs {
		s += "-PGAS"[lqState(a, r) : lqState(a, r)+1]
	}
	return s
}

func wantStates(t *testing.T, what string, a prim, want string, rs ...int32) {
	t.Helper()
	if got := states(a, rs...); got != want {
		t.Errorf("%s: states %s, want %s (- free, P pending, G granted, A abandoned, S stolen)", what, got, want)
	}
}

func release(t *testing.T, as map[int32]prim, r int32, want int32) {
	t.Helper()
	a := as[atomicLoad(as[1].mem, r+lqrAgent)]
	expect(t, fmt.Sprintf("release by %d", a.self), lqRelease(prim{a.mem, r, a.self}), want)
}

// Web Locks' order across agents: with a worker holding, the page queued,
// then a second worker, the page is granted first (issue #52's first case).
func TestLockQueueOrder(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	w1 := req(t, as[1], "db", lqExclusive, 0)
	page := req(t, as[2], "db", lqExclusive, 0)
	w2 := req(t, as[3], "db", lqExclusive, 0)
	wantStates(t, "queued", as[1], "GPP", w1, page, w2)
	release(t, as, w1, resultOK)
	wantStates(t, "first released", as[1], "-GP", w1, page, w2)
	release(t, as, page, resultOK)
	wantStates(t, "second released", as[1], "--G", w1, page, w2)
	release(t, as, w2, resultOK)
}

// A shared request behind a waiting exclusive one waits; consecutive
// shared ones are granted together (issue #52's second case).
func TestLockQueueSharedBehindExclusive(t *testing.T) {
	as := lqTable(t, 1, 2, 3, 4, 5)
	a := req(t, as[1], "db", lqExclusive, 0)
	s1 := req(t, as[2], "db", lqShared, 0)
	s2 := req(t, as[3], "db", lqShared, 0)
	x := req(t, as[4], "db", lqExclusive, 0)
	s3 := req(t, as[5], "db", lqShared, 0)
	wantStates(t, "queued", as[1], "GPPPP", a, s1, s2, x, s3)
	release(t, as, a, resultOK)
	wantStates(t, "exclusive released", as[1], "-GGPP", a, s1, s2, x, s3)
	release(t, as, s1, resultOK)
	wantStates(t, "one reader out", as[1], "--GPP", a, s1, s2, x, s3)
	release(t, as, s2, resultOK)
	wantStates(t, "both readers out", as[1], "---GP", a, s1, s2, x, s3)
	release(t, as, x, resultOK)
	wantStates(t, "writer out", as[1], "----G", a, s1, s2, x, s3)
	release(t, as, s3, resultOK)
	// A shared request while only shared locks are held, nothing queued.
	r1 := req(t, as[1], "db", lqShared, 0)
	r2 := req(t, as[2], "db", lqShared, 0)
	wantStates(t, "two readers at once", as[1], "GG", r1, r2)
}

// An abandoned request leaves the middle of the queue; the rest keep their
// order, and what it held back is granted.
func TestLockQueueAbandon(t *testing.T) {
	as := lqTable(t, 1, 2, 3, 4)
	a := req(t, as[1], "db", lqShared, 0)
	x := req(t, as[2], "db", lqExclusive, 0)
	s := req(t, as[3], "db", lqShared, 0)
	x2 := req(t, as[4], "db", lqExclusive, 0)
	wantStates(t, "queued", as[1], "GPPP", a, x, s, x2)
	expect(t, "abandon the pending writer", lqAbandon(prim{as[2].mem, x, 2}), resultBusy)
	expect(t, "abandon it again", lqAbandon(prim{as[2].mem, x, 2}), resultCorrupted)
	release(t, as, x, resultOK)
	wantStates(t, "writer gone: the reader behind it joins the reader holding", as[1], "G-GP", a, x, s, x2)
	expect(t, "abandon a granted one", lqAbandon(prim{as[3].mem, s, 3}), resultOK)
	release(t, as, a, resultOK)
	release(t, as, s, resultOK)
	wantStates(t, "the last writer", as[1], "---G", a, x, s, x2)
}

// ifAvailable: granted exactly when the request would be granted now with
// nothing queued before it; else nothing changes.
func TestLockQueueIfAvailable(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	a := req(t, as[1], "db", lqShared, 0)
	b := req(t, as[2], "db", lqShared, lqIfAvailable)
	wantStates(t, "two readers", as[1], "GG", a, b)
	expect(t, "a writer, if available", lqRequest(as[3], units("db"), lqExclusive, lqIfAvailable), resultNone)
	x := req(t, as[3], "db", lqExclusive, 0)
	expect(t, "a reader behind a queued writer, if available", lqRequest(as[1], units("db"), lqShared, lqIfAvailable), resultNone)
	wantStates(t, "unchanged", as[1], "GGP", a, b, x)
	release(t, as, a, resultOK)
	release(t, as, b, resultOK)
	release(t, as, x, resultOK)
	x = req(t, as[3], "other", lqExclusive, lqIfAvailable)
	wantStates(t, "a new name, if available", as[1], "G", x)
}

// steal: granted at once at the head of the queue; the robbed holders'
// requests are STOLEN, and their releases release nothing of the stealer's.
func TestLockQueueSteal(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	a := req(t, as[1], "db", lqExclusive, 0)
	b := req(t, as[2], "db", lqExclusive, 0)
	c := req(t, as[3], "db", lqExclusive, lqSteal)
	wantStates(t, "stolen", as[1], "SPG", a, b, c)
	release(t, as, a, resultNotHolder)
	wantStates(t, "the robbed one's release", as[1], "-PG", a, b, c)
	release(t, as, c, resultOK)
	wantStates(t, "the stealer's release", as[1], "-G-", a, b, c)
	release(t, as, b, resultOK)
	expect(t, "steal shared", lqRequest(as[1], units("db"), lqShared, lqSteal), resultCorrupted)
	expect(t, "steal if available", lqRequest(as[1], units("db"), lqExclusive, lqSteal|lqIfAvailable), resultCorrupted)
}

// A steal between a release's first look at its record and its taking of
// the guard: the robbed one's release still says it released nothing
// (found by the explorer: coretest's lqSteal, which saw RESULT_OK here).
func TestLockQueueStealDuringRelease(t *testing.T) {
	as := lqTable(t, 1, 2)
	a := req(t, as[1], "db", lqExclusive, 0)
	var c int32
	saved := host
	defer SetHost(saved)
	h := saved
	h.CompareExchange = func(mem, index, expected, replacement int32) int32 {
		if mem == as[1].mem && index == as[1].index+lqhGuard && replacement == 1 && c == 0 {
			c = req(t, as[2], "db", lqExclusive, lqSteal) // agent 2 steals, under the guard, first
		}
		return saved.CompareExchange(mem, index, expected, replacement)
	}
	SetHost(h)
	release(t, as, a, resultNotHolder)
	SetHost(saved)
	wantStates(t, "the robbed one's release", as[1], "-G", a, c)
	release(t, as, c, resultOK)
}

// A request granted and then stolen before its wait's turn looked: the
// wait ends as granted (resultOK, and an abandon then says so too), and
// its release says it released nothing; not resultCorrupted (found by the
// explorer: coretest's lqSteal).
func TestLockQueueStolenBeforeItsTurn(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	a := req(t, as[1], "db", lqExclusive, 0)
	b := req(t, as[2], "db", lqExclusive, 0)
	release(t, as, a, resultOK)
	c := req(t, as[3], "db", lqExclusive, lqSteal)
	wantStates(t, "granted, then stolen", as[1], "SG", b, c)
	w := prim{as[2].mem, b, 2}
	expect(t, "its turn", lqStep(w), resultOK)
	expect(t, "its abandon", lqAbandon(w), resultOK)
	release(t, as, b, resultNotHolder)
	release(t, as, c, resultOK)
}

// A name with no requests takes no room for long: 100,000 distinct names,
// one or two requests at a time, leave the heap as small as a few names
// need; the idle queues are given back as the index fills.
func TestLockQueueNamesTakeNoRoomIdle(t *testing.T) {
	as := lqTable(t, 1, 2)
	for i := range 100000 {
		name := fmt.Sprintf("doc:%d", i)
		r := req(t, as[1+int32(i%2)], name, lqExclusive, 0)
		w := req(t, as[2-int32(i%2)], name, lqShared, 0)
		wantStates(t, name, as[1], "GP", r, w)
		release(t, as, r, resultOK)
		release(t, as, w, resultOK)
	}
	a := as[1]
	if heap := atomicLoad(a.mem, a.index+lqhHeap) - a.index; heap > 4096 {
		t.Errorf("after 100,000 names two requests at a time, the table reaches %d slots past its first (4,096 at most)", heap)
	}
}

// No limit but memory: 100,000 names held at once (query lists them all),
// names of any length, and a queue 100,000 deep granted in order; each
// request reads its queue's head and tail, not the queue, so this takes
// seconds, not hours.
func TestLockQueueAtSize(t *testing.T) {
	as := lqTable(t, 1, 2)
	a, b := as[1], as[2]
	const n = 100000
	held := make([]int32, n)
	for i := range held {
		held[i] = req(t, a, fmt.Sprintf("doc:%d", i), lqExclusive, 0)
	}
	if lqQuery(a) < 0 {
		t.Fatal("query refused")
	}
	if rows := strings.Count(queryRows(t), " ") + 1; rows != n {
		t.Errorf("query lists %d locks, want %d", rows, n)
	}
	for _, r := range held {
		release(t, as, r, resultOK)
	}
	long := append(units(strings.Repeat("\u00e9/", 5000)), 0x00, 0xd8) // 10,001 code units, a lone surrogate last
	r, w := lqRequest(a, long, lqExclusive, 0), lqRequest(b, long, lqExclusive, 0)
	wantStates(t, "a long name, held and queued", a, "GP", r, w)
	if q, p := atomicLoad(a.mem, r+lqrQueue), atomicLoad(a.mem, w+lqrQueue); q != p || atomicLoad(a.mem, q+lqqLength) != 10001 {
		t.Errorf("a name of 10,001 code units: queues %d and %d, of length %d", q, p, atomicLoad(a.mem, q+lqqLength))
	}
	release(t, as, r, resultOK)
	release(t, as, w, resultOK)

	first := req(t, a, "deep", lqExclusive, 0)
	queued := make([]int32, n)
	for i := range queued {
		mode := int32(lqExclusive)
		if i >= n-1000 {
			mode = lqShared
		}
		queued[i] = req(t, as[1+int32(i%2)], "deep", mode, 0)
	}
	release(t, as, first, resultOK)
	for i, r := range queued[:n-1000] {
		if st := lqState(a, r); st != reqGranted {
			t.Fatalf("request %d of the queue: state %d once those before it were released, want GRANTED", i, st)
		}
		release(t, as, r, resultOK)
	}
	for i, r := range queued[n-1000:] {
		if st := lqState(a, r); st != reqGranted {
			t.Fatalf("shared request %d: state %d, want GRANTED with the 999 others", i, st)
		}
	}
	for _, r := range queued[n-1000:] {
		release(t, as, r, resultOK)
	}
}

// Out of memory: a table that cannot grow says so (resultTooMany), and
// changes nothing: what is held stays held, what is queued stays queued.
func TestLockQueueOutOfMemory(t *testing.T) {
	as := lqTableUpTo(t, int(lqSlots())+8+2000, 1, 2)
	a, b := as[1], as[2]
	var held []int32
	for i := 0; ; i++ {
		r := lqRequest(a, units(fmt.Sprintf("n%d", i)), lqExclusive, 0)
		if r == resultTooMany {
			break
		}
		if r < 0 || i > 1000 {
			t.Fatalf("name %d: %d (the memory should be full by now)", i, r)
		}
		held = append(held, r)
	}
	w := lqRequest(b, units("n0"), lqExclusive, 0)
	for w >= 0 {
		w = lqRequest(b, units("n0"), lqExclusive, 0) // (fills the records)
	}
	expect(t, "a request once the memory is full", w, resultTooMany)
	for i, r := range held {
		if st := lqState(a, r); st != reqGranted {
			t.Fatalf("held lock %d: state %d after the memory filled, want GRANTED", i, st)
		}
	}
	release(t, as, held[0], resultOK)
}

// Agents on goroutines, on three names at random modes, each waiting as a
// host does (lqStep, then Atomics.wait on its record while PENDING), some
// giving up: no exclusive lock beside another lock of its name, no lock
// lost, and every request ends. (The explorer runs the broken cores.)
func TestLockQueueHammer(t *testing.T) {
	agents, rounds := 6, 3000
	if testing.Short() {
		rounds = 600
	}
	ids := make([]int32, agents)
	for i := range ids {
		ids[i] = int32(i + 1)
	}
	as := lqTable(t, ids...)
	var mu sync.Mutex
	holders := map[string][2]int{} // name -> [exclusive, shared] holding now
	var wg sync.WaitGroup
	errs := make(chan string, 2*agents)
	var failed atomic.Bool
	for _, id := range ids {
		wg.Add(1)
		go func(a prim) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(a.self)))
			for range rounds {
				if failed.Load() {
					return
				}
				name := fmt.Sprintf("n%d", rng.Intn(3))
				mode := int32(lqExclusive)
				if rng.Intn(2) == 0 {
					mode = lqShared
				}
				var r int32
				for r = lqRequest(a, units(name), mode, 0); r == resultBusy; r = lqRequest(a, units(name), mode, 0) {
					guardSleep(a)
				}
				if r < 0 {
					errs <- fmt.Sprintf("request: %d", r)
					return
				}
				w := prim{a.mem, r, a.self}
				granted, began := true, time.Now()
				for tries := 0; ; tries++ {
					v := lqStep(w)
					if v == resultOK {
						break
					}
					if v != reqPending {
						errs <- fmt.Sprintf("step: %d", v)
						return
					}
					if tries == 3 && rng.Intn(4) == 0 || time.Since(began) > 10*time.Second {
						if tries > 3 {
							errs <- fmt.Sprintf("%s: not granted within 10 s", name)
							failed.Store(true)
						}
						granted = lqAbandon(w) == resultOK
						break
					}
					atomicWait(a.mem, r+lqrState, reqPending, 1)
				}
				if granted {
					mu.Lock()
					h := holders[name]
					if mode == lqExclusive {
						h[0]++
					} else {
						h[1]++
					}
					holders[name] = h
					bad := h[0] > 1 || h[0] == 1 && h[1] > 0
					mu.Unlock()
					runtime.Gosched()
					if bad {
						errs <- fmt.Sprintf("%s held %d exclusive and %d shared at once", name, h[0], h[1])
						failed.Store(true) // (released below, so that the others end)
					}
					mu.Lock()
					h = holders[name]
					if mode == lqExclusive {
						h[0]--
					} else {
						h[1]--
					}
					holders[name] = h
					mu.Unlock()
				}
				for v := lqRelease(w); v != resultOK; v = lqRelease(w) {
					if v != resultBusy {
						errs <- fmt.Sprintf("release: %d", v)
						return
					}
					guardSleep(a)
				}
			}
		}(as[id])
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// guardSleep sleeps on the guard of a's table while it holds what it holds
// now, at most 1 ms (sleepOut is one agent's; these agents share it).
func guardSleep(a prim) {
	atomicWait(a.mem, a.index+lqhGuard, atomicLoad(a.mem, a.index+lqhGuard), 1)
}

// Random sequences of requests, releases, aborts, repairs and queries by
// three agents on two names, one op at a time: after each, no exclusive
// lock beside another of its name, and a pending request only behind
// what Web Locks' rule says it waits for.
func TestLockQueueRandomOps(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	rng := rand.New(rand.NewSource(1))
	type req struct {
		a    prim
		r    int32
		name string
		x    bool
	}
	var live []req
	for step := range 200000 {
		switch op := rng.Intn(10); {
		case (op < 4 || len(live) == 0) && len(live) < 12:
			a := as[int32(1+rng.Intn(3))]
			name := []string{"p", "q"}[rng.Intn(2)]
			x := rng.Intn(2) == 0
			mode := int32(lqShared)
			if x {
				mode = lqExclusive
			}
			flags := int32(0)
			if rng.Intn(8) == 0 {
				flags = lqIfAvailable
			}
			r := lqRequest(a, units(name), mode, flags)
			if r == resultNone && flags != 0 {
				break
			}
			if r < 0 {
				t.Fatalf("step %d: request: %d", step, r)
			}
			live = append(live, req{a, r, name, x})
		case op < 8:
			i := rng.Intn(len(live))
			q := live[i]
			w := prim{q.a.mem, q.r, q.a.self}
			if lqState(w, q.r) == reqPending {
				if rng.Intn(3) != 0 {
					continue
				}
				lqAbandon(w)
			}
			if v := lqRelease(w); v != resultOK {
				t.Fatalf("step %d: release: %d", step, v)
			}
			live = append(live[:i], live[i+1:]...)
		case op == 8:
			q := live[rng.Intn(len(live))]
			lqRepair(prim{q.a.mem, q.r, q.a.self})
		default:
			lqQuery(as[1])
		}
		for _, name := range []string{"p", "q"} {
			xs, ss, pendingFirst := 0, 0, -1
			for i, q := range live {
				if q.name != name {
					continue
				}
				switch lqState(q.a, q.r) {
				case reqGranted:
					if q.x {
						xs++
					} else {
						ss++
					}
				case reqPending:
					if pendingFirst < 0 {
						pendingFirst = i
					}
				}
			}
			if xs > 1 || xs == 1 && ss > 0 {
				t.Fatalf("step %d: %s granted to %d exclusive and %d shared", step, name, xs, ss)
			}
			if pendingFirst >= 0 && xs == 0 && (ss == 0 || !live[pendingFirst].x) {
				t.Fatalf("step %d: %s's first pending request (exclusive %v) not granted with %d shared held", step, name, live[pendingFirst].x, ss)
			}
		}
	}
}

// A registry's name table (names.go) holds its lock table: 100,000
// distinct lock names, one after another, leave every one of its 10,000
// names to primitives by name.
func TestLockQueueBesideNamedPrimitives(t *testing.T) {
	const names = 10000
	m := futex.NewGrowable(int(namesSlots(names))+8, 1<<22)
	nativeMemories = append(nativeMemories, m)
	mem := int32(len(nativeMemories) - 1)
	a := prim{mem, 8, 1}
	expect(t, "make", namesMake(mem, 8, names), resultOK)
	locks := lqOf(a)
	for i := range 100000 {
		r := lqRequest(locks, units(fmt.Sprintf("doc:%d", i)), lqExclusive, 0)
		if r < 0 {
			t.Fatalf("lock name %d: %d", i, r)
		}
		expect(t, "release", lqRelease(prim{mem, r, 1}), resultOK)
	}
	for i := range names {
		if e := nameLookup(a, nameKindMutex, 0, 0, units(fmt.Sprintf("mutex %d", i)), true); e < 0 {
			t.Fatalf("named Mutex %d: %d", i, e)
		}
	}
	expect(t, "one name more than the table takes", nameLookup(a, nameKindMutex, 0, 0, units("one more"), true), resultTooMany)
}

// The fast path (lockq.go's fast word): a name requested once is then
// taken and released by one compare-and-swap each while nothing else is
// held or queued; a request behind a fast holder queues and is granted by
// its release through the guard; a steal robs it; query lists it; a slot
// given another name refuses the old name's cache.
func TestLockQueueFastPath(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	a, b := as[1], as[2]
	r := req(t, a, "db", lqExclusive, 0)
	q := atomicLoad(a.mem, r+lqrQueue)
	gen := atomicLoad(a.mem, q+lqqGen)
	expect(t, "the fast word while a record is held", atomicLoad(a.mem, q+lqqFast), lqFastOff)
	fa, fb := prim{a.mem, q, 1}, prim{a.mem, q, 2}
	expect(t, "a fast take beside a record", lqFastTake(fb, gen), resultBusy)
	release(t, as, r, resultOK)
	expect(t, "the fast word once the queue is empty", atomicLoad(a.mem, q+lqqFast), 0)

	// Taken and released fast; a second agent's take is refused.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	expect(t, "another agent's fast take", lqFastTake(fb, gen), resultBusy)
	expect(t, "ifAvailable beside a fast holder", lqRequest(b, units("db"), lqExclusive, lqIfAvailable), resultNone)
	expect(t, "the fast word after ifAvailable", atomicLoad(a.mem, q+lqqFast), 1)
	expect(t, "a fast release", lqFastLetGo(fa), resultOK)

	// A request queued behind a fast holder: its release goes through the guard.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	w := req(t, b, "db", lqShared, 0)
	wantStates(t, "queued behind a fast holder", a, "P", w)
	expect(t, "the fast word with a request behind", atomicLoad(a.mem, q+lqqFast), -1)
	if lqQuery(a) < 0 {
		t.Fatal("query refused")
	}
	if got := queryRows(t); got != "db:1x2 db:2s1" {
		t.Errorf("query: %s, want the fast holder first, then the pending request", got)
	}
	expect(t, "the holder of the waiter's queue", lqHolder(prim{a.mem, w, 2}), 1)
	expect(t, "a refused fast release", lqFastLetGo(fa), resultBusy)
	expect(t, "the release through the guard", lqReleaseFast(a, q), resultOK)
	wantStates(t, "granted by the fast holder's release", a, "G", w)
	release(t, as, w, resultOK)

	// A steal of a fast holder's lock: its release releases nothing.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	s := req(t, b, "db", lqExclusive, lqSteal)
	wantStates(t, "the stealer", a, "G", s)
	expect(t, "a robbed fast release", lqFastLetGo(fa), resultBusy)
	expect(t, "a robbed release through the guard", lqReleaseFast(a, q), resultNotHolder)
	release(t, as, s, resultOK)

	// The slot given another name: the old cache's take lets it go.
	for i := range 100 {
		release(t, as, req(t, a, fmt.Sprintf("n%d", i), lqExclusive, 0), resultOK)
	}
	if atomicLoad(a.mem, q+lqqGen) != gen {
		expect(t, "a take of a slot with another gen", lqFastTake(fa, gen), resultMismatch)
		expect(t, "its let-go", lqFastLetGo(fa), resultOK)
	} else if atomicLoad(a.mem, q+lqqState) == queueLive {
		t.Errorf("100 more names, and db's slot is still LIVE: the idle slots were not given back")
	}
	expect(t, "a bad queue slot", lqReleaseFast(a, q+1), resultCorrupted)
}

// queryRows is the last query's text as name:agent mode(x/s) state(1 pending, 2 granted) rows.
func queryRows(t *testing.T) string {
	t.Helper()
	le := func(i int) int32 {
		return int32(text[i]) | int32(text[i+1])<<8 | int32(text[i+2])<<16 | int32(text[i+3])<<24
	}
	var out strings.Builder
	for at := 0; at < len(text); {
		units := le(at)
		var name []uint16
		for u := range units {
			name = append(name, uint16(text[at+4+2*int(u)])|uint16(text[at+5+2*int(u)])<<8)
		}
		at += 4 + 4*int((units+1)/2)
		n := le(at)
		at += 4
		for range n {
			if out.Len() > 0 {
				out.WriteString(" ")
			}
			fmt.Fprintf(&out, "%s:%d%s%d", string(utf16.Decode(name)), le(at), map[int32]string{lqExclusive: "x", lqShared: "s"}[le(at+4)], le(at+8))
			at += 12
		}
	}
	return out.String()
}

// The run (lockq.go): a fast holder's next requests wait in it, ahead of
// every record, and its hand-offs take them in turn without the guard; a
// record queued behind seals it (the holder's later requests go behind
// that record); query lists it; a steal makes it records, right after the
// stealer's, which the holder adopts; the idle queue's run is 0 again.
func TestLockQueueRun(t *testing.T) {
	as := lqTable(t, 1, 2, 3)
	a, b := as[1], as[2]
	r := req(t, a, "db", lqExclusive, 0)
	q := atomicLoad(a.mem, r+lqrQueue)
	release(t, as, r, resultOK)
	gen := atomicLoad(a.mem, q+lqqGen)
	fa := prim{a.mem, q, 1}

	// Two requests in the run, handed on in turn, then the lock let go.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	expect(t, "a run's first request", lqRunAdd(fa), resultOK)
	expect(t, "a run's second request", lqRunAdd(fa), resultOK)
	if lqQuery(a) < 0 {
		t.Fatal("query refused")
	}
	if got := queryRows(t); got != "db:1x2 db:1x1 db:1x1" {
		t.Errorf("query: %s, want the fast holder, then its run", got)
	}
	expect(t, "a hand-off", lqRunNext(fa), resultOK)
	expect(t, "a hand-off", lqRunNext(fa), resultOK)
	expect(t, "an empty run's hand-off", lqRunNext(fa), resultNone)
	expect(t, "a fast release", lqFastLetGo(fa), resultOK)

	// A record behind the run seals it: the next request of the holder
	// goes through the queue, behind that record; the run goes first.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	expect(t, "a run's request", lqRunAdd(fa), resultOK)
	w := req(t, b, "db", lqExclusive, 0)
	expect(t, "a request of a sealed run", lqRunAdd(fa), resultBusy)
	mine := req(t, a, "db", lqExclusive, 0)
	if lqQuery(a) < 0 {
		t.Fatal("query refused")
	}
	if got := queryRows(t); got != "db:1x2 db:1x1 db:2x1 db:1x1" {
		t.Errorf("query: %s, want the fast holder, its run, then the records in order", got)
	}
	expect(t, "a hand-off of a sealed run", lqRunNext(fa), resultOK)
	wantStates(t, "behind the run", a, "PP", w, mine)
	expect(t, "an empty run's hand-off", lqRunNext(fa), resultNone)
	expect(t, "a refused fast release", lqFastLetGo(fa), resultBusy)
	expect(t, "the release through the guard", lqReleaseFast(a, q), resultOK)
	wantStates(t, "the first record granted", a, "GP", w, mine)
	release(t, as, w, resultOK)
	release(t, as, mine, resultOK)
	expect(t, "the idle queue's run (but its tag)", atomicLoad(a.mem, q+lqqRun)&^lqRunTags, 0)

	// A record behind the run, abandoned: the run is unsealed again.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	w = req(t, b, "db", lqExclusive, 0)
	expect(t, "a request of a sealed run", lqRunAdd(fa), resultBusy)
	expect(t, "an abandon", lqAbandon(prim{a.mem, w, 2}), resultBusy)
	release(t, as, w, resultOK)
	expect(t, "the fast word, the queue empty again", atomicLoad(a.mem, q+lqqFast), 1)
	expect(t, "a request of the run, unsealed", lqRunAdd(fa), resultOK)
	expect(t, "a hand-off", lqRunNext(fa), resultOK)
	expect(t, "an empty run's hand-off", lqRunNext(fa), resultNone)
	expect(t, "a fast release", lqFastLetGo(fa), resultOK)

	// A steal of a lock with a run of two, a record behind: the run made
	// two records of the holder, after the stealer's, before the record.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	expect(t, "a run's request", lqRunAdd(fa), resultOK)
	expect(t, "a run's request", lqRunAdd(fa), resultOK)
	w = req(t, as[3], "db", lqExclusive, 0)
	s := req(t, b, "db", lqExclusive, lqSteal)
	expect(t, "a robbed holder's hand-off", lqRunNext(fa), resultNotHolder)
	first := lqRunAdopt(a, q)
	if first <= 0 {
		t.Fatalf("the run's first record: %d", first)
	}
	second := atomicLoad(a.mem, first+lqrNext)
	if got := []int32{atomicLoad(a.mem, q+lqqHead), atomicLoad(a.mem, s+lqrNext), atomicLoad(a.mem, second+lqrNext)}; got[0] != s || got[1] != first || got[2] != w {
		t.Errorf("the queue after the steal: head %d, then %d, then %d after the run; want %d, %d, %d", got[0], got[1], got[2], s, first, w)
	}
	wantStates(t, "after the steal", a, "GPPP", s, first, second, w)
	if lqQuery(a) < 0 {
		t.Fatal("query refused")
	}
	if got := queryRows(t); got != "db:2x2 db:1x1 db:1x1 db:3x1" {
		t.Errorf("query: %s, want the stealer, the run made records, the record behind", got)
	}
	expect(t, "a robbed release through the guard", lqReleaseFast(a, q), resultNotHolder)
	release(t, as, s, resultOK)
	wantStates(t, "the stealer out", a, "GPP", first, second, w)
	release(t, as, first, resultOK)
	wantStates(t, "the run's first out", a, "GP", second, w)
	release(t, as, second, resultOK)
	release(t, as, w, resultOK)
	expect(t, "the idle queue's run (but its tag)", atomicLoad(a.mem, q+lqqRun)&^lqRunTags, 0)
	expect(t, "the idle queue's fast word", atomicLoad(a.mem, q+lqqFast), 0)
	expect(t, "a bad queue slot", lqRunAdopt(a, q+1), resultCorrupted)

	// A holder robbed with an empty run, that has not noticed: once the
	// queue is idle again (or another's), its add is refused.
	expect(t, "a fast take", lqFastTake(fa, gen), resultOK)
	release(t, as, req(t, b, "db", lqExclusive, lqSteal), resultOK)
	expect(t, "a robbed holder's add, the queue idle", lqRunAdd(fa), resultBusy)
	expect(t, "another agent's fast take", lqFastTake(prim{a.mem, q, 2}, gen), resultOK)
	expect(t, "a robbed holder's add, the queue another's", lqRunAdd(fa), resultBusy)
	expect(t, "the new holder's run", atomicLoad(a.mem, q+lqqRun)&lqRunCount, 0)
}

// A name's first request, granted at once through the queue, made the
// agent's fast lock (lqToFast): the record freed, the run open behind it;
// refused beside another record, or for a shared or pending one.
func TestLockQueueToFast(t *testing.T) {
	as := lqTable(t, 1, 2)
	a, b := as[1], as[2]
	r := req(t, a, "db", lqExclusive, 0)
	q := atomicLoad(a.mem, r+lqrQueue)
	w := req(t, b, "db", lqExclusive, 0)
	expect(t, "a record with another behind", lqToFast(prim{a.mem, r, 1}), resultNone)
	expect(t, "a pending one", lqToFast(prim{a.mem, w, 2}), resultNone)
	release(t, as, r, resultOK)
	expect(t, "another agent's record", lqToFast(prim{a.mem, w, 1}), resultNone)
	release(t, as, w, resultOK)
	s := req(t, a, "db", lqShared, 0)
	expect(t, "a shared one", lqToFast(prim{a.mem, s, 1}), resultNone)
	release(t, as, s, resultOK)

	r = req(t, a, "db", lqExclusive, 0)
	expect(t, "the only record, granted", lqToFast(prim{a.mem, r, 1}), resultOK)
	wantStates(t, "freed", a, "-", r)
	expect(t, "the fast word", atomicLoad(a.mem, q+lqqFast), 1)
	fa := prim{a.mem, q, 1}
	expect(t, "a run's request", lqRunAdd(fa), resultOK)
	w = req(t, b, "db", lqExclusive, 0)
	expect(t, "a hand-off", lqRunNext(fa), resultOK)
	expect(t, "an empty run's hand-off", lqRunNext(fa), resultNone)
	expect(t, "a refused fast release", lqFastLetGo(fa), resultBusy)
	expect(t, "the release through the guard", lqReleaseFast(a, q), resultOK)
	wantStates(t, "granted after the run", a, "G", w)
	release(t, as, w, resultOK)
	expect(t, "the idle queue's fast word", atomicLoad(a.mem, q+lqqFast), 0)
}
