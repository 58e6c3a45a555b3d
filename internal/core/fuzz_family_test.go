//go:build !wasm

package core

import (
	"math"
	"testing"

	"github.com/sabmutex/sabmutex/internal/testing/futex"
)

// Model-based fuzzing of the RWMutex and the Semaphore, as FuzzMutexOps does
// for the mutex: a random sequence of operations by agents 1 to 3, from one
// goroutine, with zero timeouts (so nothing waits, and nobody registers as a
// waiter on their own), compared call by call, and slot by slot, with a model.

// fuzzMemory is a fresh memory of n words for one input.
func fuzzMemory(n int) (int32, *futex.Memory) {
	m := futex.New(n)
	nativeMemories = append(nativeMemories, m)
	return int32(len(nativeMemories) - 1), m
}

// rwModel is the RWMutex when nothing waits: readers inside, the writer
// (0: none) and whether it has announced itself (with zero timeouts a
// writer is announced only while it holds the lock).
type rwModel struct{ active, writer int32 }

func (m *rwModel) tryReadLock() int32 {
	if m.writer != 0 {
		return resultBusy
	}
	m.active++
	return resultOK
}

// readLockNoWait is readLock(0), and readLockAsync with a deadline in the
// past: only the blocking one by the writer's own agent is a deadlock.
func (m *rwModel) readLockNoWait(x int32, blocking bool) int32 {
	if r := m.tryReadLock(); r != resultBusy {
		return r
	}
	if blocking && m.writer == x {
		return resultDeadlock
	}
	return resultBusy
}

func (m *rwModel) readUnlock() int32 {
	if m.active == 0 {
		return resultNotLocked
	}
	m.active--
	return resultOK
}

func (m *rwModel) tryLock(x int32) int32 {
	if m.writer != 0 || m.active != 0 {
		return resultBusy
	}
	m.writer = x
	return resultOK
}

// lockNoWait is lock(0): the write lock held by x itself is a deadlock;
// readers inside make it announce, give up and withdraw, leaving nothing.
func (m *rwModel) lockNoWait(x int32) int32 {
	if m.writer == x {
		return resultDeadlock
	}
	return m.tryLock(x)
}

func (m *rwModel) unlock(x int32) int32 {
	switch {
	case m.writer == 0:
		return resultNotLocked
	case m.writer != x:
		return resultNotHolder
	}
	m.writer = 0
	return resultOK
}

// FuzzRWMutexOps: each byte is an op (low 3 bits) by agent 1, 2 or 3 (the
// rest, mod 3).
func FuzzRWMutexOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 3, 3, 3},             // two readers, three read unlocks
		{4, 0, 1, 5, 13, 6, 5},      // writer 1; a reader, a blocking reader; lock(0) again; unlock by 2, by 1
		{0, 4, 5, 11, 6, 3, 6},      // a reader: a writer gives up; read unlock; unlock of nothing
		{4, 2, 7, 10, 15, 6, 2, 3},  // writer; blocking readLock by the writer (deadlock), async by its agent (busy)
		{5, 5, 13, 14, 22, 6, 0, 4}, // lock(0) twice by one agent, unlock by the others, then by it
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, mem := fuzzMemory(1 + rwSlots + 1) // a word either side, which must stay 0
		const at = 1
		var m rwModel
		for i, b := range ops {
			op, x := b%8, int32(1+b/8%3)
			l := rw{prim{h, at, x}}
			var got, want int32
			switch op {
			case 0:
				got, want = rwTryReadLock(l), m.tryReadLock()
			case 1:
				got, want = rwReadLock(l, 0), m.readLockNoWait(x, true)
			case 2:
				got, want = rwReadStep(l, math.Inf(-1), sleptNone, sleepAsync), m.readLockNoWait(x, false)
			case 3:
				got, want = rwReadUnlock(l), m.readUnlock()
			case 4:
				got, want = rwTryLock(l), m.tryLock(x)
			case 5:
				got, want = rwLock(l, 0), m.lockNoWait(x)
			case 6:
				got, want = rwUnlock(l), m.unlock(x)
			case 7: // an app that asks: written?
				got, want = l.load()&rwWriter, 0
				if m.writer != 0 {
					want = rwWriter
				}
			}
			if got != want {
				t.Fatalf("op %d (%d by agent %d) in %v: got %d, want %d", i, op, x, ops, got, want)
			}
			state := m.active
			if m.writer != 0 {
				state |= rwWriter
			}
			if s, a, w := mem.Load(at), mem.Load(at+1), mem.Load(at+2); s != state || a != 0 || w != m.writer || mem.Load(0) != 0 || mem.Load(at+rwSlots) != 0 {
				t.Fatalf("after op %d (%d by agent %d) in %v: state %#x, admissions %d, writer %d; model %#x, 0, %d",
					i, op, x, ops, s, a, w, state, m.writer)
			}
		}
	})
}

// semModel is the Semaphore when nothing waits on its own: its size (0: not
// set up), permits taken, a reservation and the waiters bit, both of which
// the fuzz sets as a waiter elsewhere would.
type semModel struct {
	permits, taken, reserved int32
	waiters                  bool
}

func (m *semModel) setUp(p int32) int32 {
	switch {
	case p < 1:
		return resultTooMany
	case m.permits == 0:
		m.permits = p
	case m.permits != p:
		return resultMismatch
	}
	return resultOK
}

func (m *semModel) tryAcquire(n int32) int32 {
	switch p := m.permits; {
	case p == 0:
		return resultCorrupted
	case n < 1 || n > p:
		return resultTooMany
	case m.taken+n > p, m.reserved != 0 && m.taken+n+m.reserved > p:
		return resultBusy // (a newcomer never takes what is reserved)
	}
	m.taken += n // (and leaves the reservation to the waiter that made it)
	return resultOK
}

// acquireNoWait is acquire(0) and acquireAsync's step past its deadline: a
// try; it gives up before it would reserve, and a reservation of its n is
// another waiter's (kindSemReserved's), which it leaves.
func (m *semModel) acquireNoWait(n int32) int32 { return m.tryAcquire(n) }

func (m *semModel) release(n int32) int32 {
	switch {
	case n < 1:
		return resultTooMany
	case m.taken < n:
		return resultNegative
	}
	m.taken -= n
	m.waiters = false
	return resultOK
}

// FuzzSemaphoreOps: each byte is an op (low 3 bits) with a count of 1 to 4
// (the next 2 bits; the set-up's size too), by agent 1, 2 or 3 (the rest,
// mod 3: the semaphore names nobody, but the calls come from several agents).
func FuzzSemaphoreOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0 | 1<<3, 1, 1, 1, 4, 4, 4},                                // size 2: take 1, 1, 1 (busy); release 1, 1, 1 (negative)
		{0 | 2<<3, 1 | 2<<3, 5 | 1<<3, 2 | 1<<3, 4},                 // size 3: take 3; reserve 2; acquire(0) of 2 leaves it; release 1
		{0 | 1<<3, 1, 5 | 1<<3, 1, 4, 1 | 1<<3, 4},                  // size 2: a reservation of 2 holds back a 1; its taker ends it
		{0 | 1<<3, 1, 6, 4, 7, 6, 5, 3, 0 | 3<<3, 4},                // the waiters bit: cleared by release, kept by acquire; mismatch
		{1, 4, 0 | 3<<3, 1 | 3<<3, 2 | 3<<3, 6, 5 | 3<<3, 3 | 3<<3}, // before set-up; size 4: take 4; async step; reserve 4 and end it
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, mem := fuzzMemory(1 + semSlots)
		const at = 1
		var m semModel
		for i, b := range ops {
			op, n, x := b%8, int32(1+b/8%4), int32(1+b/32%3)
			s := sem{prim{h, at, x}}
			var got, want int32
			switch op {
			case 0:
				got, want = semSetUp(s, n), m.setUp(n)
			case 1:
				got, want = semTryAcquire(s, n), m.tryAcquire(n)
			case 2:
				got, want = semAcquire(s, n, 0), m.acquireNoWait(n)
			case 3:
				got, want = semAcquireStep(s, n, turn{slept: sleptNone, sleptOn: -1, startMs: math.NaN(), deadlineMs: math.Inf(-1)}), m.acquireNoWait(n)
			case 4:
				got, want = semRelease(s, n), m.release(n)
			case 5: // a waiter elsewhere reserves n
				mem.Store(at+1, n)
				m.reserved = n
				continue
			case 6: // a waiter elsewhere is about to sleep
				mem.Store(at, mem.Load(at)|semWaiters)
				m.waiters = true
				continue
			case 7:
				got, want = semAvailable(s), m.permits-m.taken
			}
			if got != want {
				t.Fatalf("op %d (%d, n %d, by agent %d) in %v: got %d, want %d", i, op, n, x, ops, got, want)
			}
			prim := m.taken
			if m.waiters {
				prim |= semWaiters
			}
			if w, r, p := mem.Load(at), mem.Load(at+1), mem.Load(at+2); w != prim || r != m.reserved || p != m.permits || mem.Load(0) != 0 {
				t.Fatalf("after op %d (%d, n %d, by agent %d) in %v: taken word %#x, reserved %d, permits %d; model %#x, %d, %d",
					i, op, n, x, ops, w, r, p, prim, m.reserved, m.permits)
			}
		}
	})
}
