//go:build !wasm

package core

import "testing"

// Model-based fuzzing of the Channel (chan.go), as FuzzRWMutexOps does for
// the RWMutex: a random sequence of the calls that never wait, by agents 1
// to 3 from one goroutine, with each message copied in and out between the
// first step and the commit as the glue does, compared with a queue.
func FuzzChannelOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0, 1, 1, 1, 1, 3},    // fill past capacity, drain past empty
		{0, 2, 0, 1, 1, 2},             // close with one in: it drains, sends fail, a second close fails
		{6, 1, 0, 3},                   // a close between a send's first step and its commit
		{4, 5, 0, 4, 5, 1, 5, 2, 4, 5}, // arming, as a select does
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		const capacity, cellSlots, at = 3, 2, 1
		h, mem := fuzzMemory(1 + chanSlots + capacity*cellSlots + 1) // a word either side, which must stay 0
		if r := chanSetUp(channel{prim{h, at, 1}}, capacity, cellSlots); r != resultOK {
			t.Fatalf("set up = %d", r)
		}
		var queue []int32 // the model: the messages in it, and whether it is closed
		closed := false
		cell := func(p int32) int32 { return at + chanSlots + p%capacity*cellSlots }
		for i, b := range ops {
			op, x, msg := b%7, int32(1+b/7%3), int32(1000+i)
			c := channel{prim{h, at, x}}
			fail := func(what string, got, want int32) {
				t.Fatalf("op %d (%d by agent %d) in %v: %s = %d, want %d", i, op, x, ops, what, got, want)
			}
			switch op {
			case 0, 6: // trySend; 6: another agent closes it before the commit
				want := int32(resultOK)
				switch {
				case closed:
					want = resultClosed
				case len(queue) == capacity:
					want = resultBusy
				}
				r := chanTrySend(c)
				if r != want {
					fail("trySend", r, want)
				}
				if r != resultOK {
					break
				}
				p := mem.Load(at+5) & chanPosMask
				mem.Store(cell(p), 4)
				mem.Store(cell(p)+1, msg)
				want = resultOK
				if op == 6 {
					chanClose(channel{prim{h, at, x%3 + 1}})
					closed, want = true, resultClosed
				}
				if r := chanSendCommit(c); r != want {
					fail("send commit", r, want)
				}
				if want == resultOK {
					queue = append(queue, msg)
				}
			case 1: // tryRecv
				want := int32(resultOK)
				switch {
				case len(queue) == 0 && closed:
					want = resultClosed
				case len(queue) == 0:
					want = resultBusy
				}
				r := chanTryRecv(c)
				if r != want {
					fail("tryRecv", r, want)
				}
				if r != resultOK {
					break
				}
				got := mem.Load(cell(mem.Load(at+4)) + 1)
				if got != queue[0] {
					fail("the message received", got, queue[0])
				}
				queue = queue[1:]
				if r := chanRecvCommit(c); r != resultOK {
					fail("recv commit", r, resultOK)
				}
			case 2:
				want := int32(resultOK)
				if closed {
					want = resultClosed
				}
				if r := chanClose(c); r != want {
					fail("close", r, want)
				}
				closed = true
			case 3:
				if n := chanLength(c); n != int32(len(queue)) {
					fail("length", n, int32(len(queue)))
				}
			case 4, 5: // a select's arming, for a send (4) or a receive (5)
				r, ready := chanArmSend(c), closed || len(queue) < capacity
				if op == 5 {
					r, ready = chanArmRecv(c), closed || len(queue) > 0
				}
				switch {
				case ready && r != resultOK:
					fail("arm, ready", r, resultOK)
				case !ready && (r < 0 || r&chanWaiters == 0):
					fail("arm, not ready (a word with chanWaiters)", r, chanWaiters)
				}
			}
			count := (mem.Load(at+5)&chanPosMask - mem.Load(at+4) + 2*capacity) % (2 * capacity)
			if l, hd, tw := mem.Load(at), mem.Load(at+1), mem.Load(at+5); l != 0 || hd != 0 || count != int32(len(queue)) || (tw&chanClosed != 0) != closed {
				t.Fatalf("after op %d (%d by agent %d) in %v: lock word %d, holder %d, %d messages, tail word %#x; model: free, %d messages, closed %v",
					i, op, x, ops, l, hd, count, tw, len(queue), closed)
			}
			if mem.Load(0) != 0 || mem.Load(at+chanSlots+capacity*cellSlots) != 0 {
				t.Fatalf("after op %d in %v: a word beside the channel changed", i, ops)
			}
		}
	})
}
