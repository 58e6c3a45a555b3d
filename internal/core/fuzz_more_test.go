//go:build !wasm

package core

import (
	"math"
	"testing"
)

// Model-based fuzzing of the WaitGroup, the Barrier, the Once and the Cond,
// as FuzzRWMutexOps does: op sequences by agents 1 to 3 from one goroutine,
// with zero timeouts, compared call by call and slot by slot with a model.

// FuzzWaitGroupOps: each byte is an op (low 2 bits) with a delta of -2 to
// +2 (the next 3 bits), by agent 1, 2 or 3.
func FuzzWaitGroupOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0 | 4<<2, 1, 2, 0 | 2<<2, 1, 3},     // add 2, wait (busy), async step, add -2, wait (ok), count
		{0 | 1<<2, 0 | 3<<2, 0 | 5<<2, 1, 3}, // add -1 (negative), add +1, add +3, wait, count
		{0 | 3<<2, 0 | 2<<2, 0 | 2<<2, 2, 3}, // add 1, -2 (refused), -2 again, step, count
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, mem := fuzzMemory(1 + wgSlots + 1)
		const at = 1
		count := int32(0)
		for i, b := range ops {
			op, delta, x := b%4, int32(b/4%5)-2, int32(1+b/32%3)
			w := prim{h, at, x}
			var got, want int32
			switch op {
			case 0:
				got, want = wgAdd(w, delta), resultOK
				if count+delta < 0 {
					want = resultNegative
				} else {
					count += delta
				}
			case 1, 2:
				if op == 1 {
					got = wgWait(w, 0)
				} else {
					got = wgWaitStep(w, math.Inf(-1))
				}
				want = resultBusy
				if count == 0 {
					want = resultOK
				}
			case 3:
				got, want = wgCount(w), count
			}
			if got != want {
				t.Fatalf("op %d (%d, delta %d, by agent %d) in %v: got %d, want %d", i, op, delta, x, ops, got, want)
			}
			if c := mem.Load(at); c != count || mem.Load(0) != 0 || mem.Load(at+wgSlots) != 0 {
				t.Fatalf("after op %d in %v: word %#x, model %d", i, ops, c, count)
			}
		}
	})
}

// FuzzBarrierOps: the first byte is the parties (1 to 3); then each byte is
// an op (low 2 bits) by agent 1, 2 or 3. With zero timeouts a party that is
// not last withdraws, so only a barrier of 1 completes generations.
func FuzzBarrierOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 1, 2},     // 1 party: last, last; another size; step
		{1, 0, 1, 0, 2, 3},  // 2 parties: alone, timed out, withdrawn
		{2, 3, 0, 1 | 4, 2}, // 3 parties: set up with 3 again, wait, mismatch
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		h, mem := fuzzMemory(1 + barrierSlots + 1)
		const at = 1
		parties := int32(1 + ops[0]%3)
		if r := barrierSetUp(barrier{prim{h, at, 1}}, parties); r != resultOK {
			t.Fatalf("set up of %d parties: %d", parties, r)
		}
		gen := int32(0)
		for i, b := range ops[1:] {
			op, x := b%4, int32(1+b/4%3)
			bw := barrier{prim{h, at, x}}
			var got, want int32
			switch op {
			case 0, 2:
				if op == 0 {
					got = barrierWait(bw, 0)
				} else {
					got = barrierStep(bw, math.Inf(-1), sleptNone, -1)
				}
				want = resultBusy
				if parties == 1 {
					want = resultLast
					gen = (gen + 1) & (barrierGenMask >> 16)
				}
			case 1:
				other := 1 + (parties+int32(b/16))%3
				got, want = barrierSetUp(bw, other), resultOK
				if other != parties {
					want = resultMismatch
				}
			case 3:
				continue
			}
			if got != want {
				t.Fatalf("op %d (%d by agent %d) in %v: got %d, want %d", i, op, x, ops, got, want)
			}
			if v, p := mem.Load(at), mem.Load(at+1); v != gen<<16 || p != parties || mem.Load(0) != 0 || mem.Load(at+barrierSlots) != 0 {
				t.Fatalf("after op %d in %v: word %#x, parties %d; model generation %d, %d parties", i, ops, v, p, gen, parties)
			}
		}
	})
}

// FuzzOnceOps: each byte is an op (low 2 bits) by agent 1, 2 or 3.
func FuzzOnceOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 1 | 4, 2, 0},     // run; again by the runner (deadlock); by another (busy); it returns; done
		{0, 3, 0 | 4, 2 | 4, 0}, // run; it throws; another runs; it returns; done
		{2, 3, 1, 0 | 8, 1},     // finish of nothing; step runs; finish by another (not holder)
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, mem := fuzzMemory(1 + onceSlots + 1)
		const at = 1
		state, runner := int32(onceNew), int32(0)
		for i, b := range ops {
			op, x := b%4, int32(1+b/4%3)
			w := prim{h, at, x}
			var got, want int32
			switch op {
			case 0, 1: // do(0), or doAsync's step past its deadline
				if op == 0 {
					got = onceDo(w, 0)
				} else {
					got = onceStep(w, math.Inf(-1), sleepAsync)
				}
				switch {
				case state == onceDone:
					want = resultOK
				case state == onceNew:
					want, state, runner = resultRun, onceRunning, x
				case op == 0 && runner == x:
					want = resultDeadlock
				default:
					want = resultBusy
				}
			case 2, 3: // fn returned, or threw
				got = onceFinish(w, op == 2)
				switch {
				case state != onceRunning:
					want = resultCorrupted
				case runner != x:
					want = resultNotHolder
				case op == 2:
					want, state, runner = resultOK, onceDone, 0
				default:
					want, state, runner = resultOK, onceNew, 0
				}
			}
			if got != want {
				t.Fatalf("op %d (%d by agent %d) in %v: got %d, want %d", i, op, x, ops, got, want)
			}
			if s, r := mem.Load(at), mem.Load(at+1); s != state || r != runner || mem.Load(0) != 0 || mem.Load(at+onceSlots) != 0 {
				t.Fatalf("after op %d in %v: state %d, runner %d; model %d, %d", i, ops, s, r, state, runner)
			}
		}
	})
}

// FuzzCondOps: a Cond beside a Mutex; each byte is an op (low 3 bits) by
// agent 1, 2 or 3.
func FuzzCondOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 1, 3, 4, 0, 2},      // lock; wait (timed out, held again); notify; step sees it; lock again (deadlock); unlock
		{1, 0 | 8, 1 | 8, 5, 6}, // wait without the mutex; lock by 2; wait by 2; notifyAll; begin by 1 (not holder)
		{0, 6, 3, 3, 2, 2},      // lock; begin (unlocks); notify, notify; unlock of nothing
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, mem := fuzzMemory(1 + condSlots + mutexSlots + 1)
		const at, mAt = 1, 1 + condSlots
		seq, holder, begun := int32(0), int32(0), int32(-1)
		for i, b := range ops {
			op, x := b%8, int32(1+b/8%3)
			c, m := prim{h, at, x}, prim{h, mAt, x}
			var got, want int32
			switch op {
			case 0: // lock(0)
				got = lock(m, 0)
				switch holder {
				case 0:
					want, holder = resultOK, x
				case x:
					want = resultDeadlock
				default:
					want = resultBusy
				}
			case 1: // wait(0): unlock, time out, lock again
				got = condWait(c, m, 0)
				switch holder {
				case 0:
					want = resultNotLocked
				case x:
					want = resultBusy
				default:
					want = resultNotHolder
				}
			case 2:
				got = unlock(m)
				switch holder {
				case 0:
					want = resultNotLocked
				case x:
					want, holder = resultOK, 0
				default:
					want = resultNotHolder
				}
			case 3, 5: // notifyOne, notifyAll: nobody sleeps
				count := int32(1)
				if op == 5 {
					count = notifyAll
				}
				got, want = condNotify(c, count), 0
				seq = (seq + 1) & condSeqMask
			case 4: // a waiter's step past its deadline, for the last begin
				if begun < 0 {
					continue
				}
				got, want = condWaitStep(c, begun, math.Inf(-1)), resultBusy
				if seq != begun {
					want = resultOK
				}
			case 6: // waitAsync's begin: unlocks
				got = condWaitBegin(c, m)
				switch holder {
				case 0:
					want = resultNotLocked
				case x:
					want, holder, begun = seq, 0, seq
				default:
					want = resultNotHolder
				}
			case 7:
				continue
			}
			if got != want {
				t.Fatalf("op %d (%d by agent %d) in %v: got %d, want %d", i, op, x, ops, got, want)
			}
			prim := int32(0)
			if holder != 0 {
				prim = mutexLocked
			}
			if s, w, hd := mem.Load(at), mem.Load(mAt), mem.Load(mAt+1); s != seq || w != prim || hd != holder || mem.Load(0) != 0 || mem.Load(mAt+mutexSlots) != 0 {
				t.Fatalf("after op %d in %v: sequence %d, mutex %d held by %d; model %d, %d, %d", i, ops, s, w, hd, seq, prim, holder)
			}
		}
	})
}
