//go:build !wasm

package core

import (
	"math"
	"testing"

	"github.com/sabmutex/sabmutex/internal/testing/futex"
)

// model is the mutex as one goroutine sees it when nothing waits: the lock
// word and the holder slot, and what each operation must return and leave.
type model struct{ w, h int32 }

func (m *model) take(x int32) int32 {
	r := int32(resultOK)
	if m.w == flagHolderDied {
		r = resultHolderDied
	}
	m.w, m.h = mutexLocked, x
	return r
}

func (m *model) tryLock(x int32) int32 {
	if m.w == mutexUnlocked || m.w == flagHolderDied {
		return m.take(x)
	}
	return resultBusy
}

// lockNoWait is lock with a zero timeout, or a blocking lockStep past its
// deadline: held by x itself, that is a deadlock.
func (m *model) lockNoWait(x int32) int32 {
	if r := m.tryLock(x); r != resultBusy {
		return r
	}
	if m.w&mutexStateMask != mutexUnlocked && m.h == x {
		return resultDeadlock
	}
	return resultBusy
}

// lockAsyncNoWait is lockAsync with a zero timeout, or an asynchronous
// lockStep past its deadline: held by another task of x, it is only busy.
func (m *model) lockAsyncNoWait(x int32) int32 { return m.tryLock(x) }

func (m *model) unlock(x int32) int32 {
	switch {
	case m.w&mutexStateMask == mutexUnlocked:
		return resultNotLocked
	case m.h != x:
		return resultNotHolder
	}
	m.w, m.h = mutexUnlocked, 0 // a hand-off with nobody asleep ends free too
	return resultOK
}

func (m *model) releaseDead(dead int32) int32 {
	if m.w&mutexStateMask == mutexUnlocked || m.h != dead {
		return resultNotHolder
	}
	m.w, m.h = flagHolderDied, 0
	return resultOK
}

// FuzzMutexOps runs a random sequence of operations (each byte one op, for
// agent 1 or 2) on one mutex, from one goroutine, and compares every result,
// the word and the holder slot with the model. Some ops write the slots as an
// app might: a legal state or junk. No operation waits: lock gets a zero
// timeout and lockStep a deadline in the past.
func FuzzMutexOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 4, 5, 4},             // tryLock A, tryLock B, unlock A, unlock B, unlock A
		{2, 3, 5, 4, 3, 5},          // lock(0) A, lockStep B, unlock B, unlock A, lockStep B, unlock B
		{3, 3, 1, 2, 4, 3},          // lockStep B, again by B (a sibling task), lock(0) B (deadlock), unlock B
		{0, 7, 1, 5, 6, 0x86, 0, 4}, // A holds, dies, B is told; then junk in the word
		{6, 9, 0, 6, 11, 4, 6, 7},   // hand-off word (4), starving words, holder-died word
		{0, 2, 3, 5, 4, 1, 7, 3},    // deadlock, wrong-agent unlock, releaseDead of a live agent
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		mem := futex.New(3)
		nativeMemories = append(nativeMemories, mem)
		h := int32(len(nativeMemories) - 1)
		agent := func(x int32) prim { return prim{mem: h, index: 1, self: x} }
		var m model
		for i := 0; i < len(ops); i++ {
			op, x := ops[i]%8, int32(1+ops[i]%2)
			var got, want int32
			switch {
			case op == 6: // an app writes the slots
				i++
				b := byte(0)
				if i < len(ops) {
					b = ops[i]
				}
				m.w, m.h = int32(b>>2)-8, int32(b%3)
				mem.Store(1, m.w)
				mem.Store(2, m.h)
				continue
			case !valid(m.w):
				want = resultCorrupted
				switch op {
				case 0, 1:
					got = tryLock(agent(x))
				case 2, 3:
					got = lock(agent(x), 0)
				case 4, 5:
					got = unlock(agent(x))
				case 7:
					got = releaseDead(agent(2), 1)
				}
			case op <= 1:
				got, want = tryLock(agent(x)), m.tryLock(x)
			case op == 2:
				got, want = lock(agent(x), 0), m.lockNoWait(x)
			case op == 3:
				got, want = lockStep(agent(x), -1, math.NaN(), sleptNone, sleepAsync), m.lockAsyncNoWait(x)
			case op <= 5:
				got, want = unlock(agent(x)), m.unlock(x)
			case op == 7: // agent 2 releases what agent 1 holds, as if 1 had died
				got, want = releaseDead(agent(2), 1), m.releaseDead(1)
			}
			if got != want {
				t.Fatalf("op %d (%d by agent %d) in %v: got %d, want %d", i, op, x, ops, got, want)
			}
			if w, hd := mem.Load(1), mem.Load(2); w != m.w || hd != m.h {
				t.Fatalf("after op %d (%d by agent %d) in %v: word %d, holder %d; model %d, %d", i, op, x, ops, w, hd, m.w, m.h)
			}
		}
	})
}
