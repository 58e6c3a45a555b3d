//go:build !wasm

package core

import "testing"

// Model-based fuzzing of the Channel (chan.go), as FuzzRWMutexOps does for
// the RWMutex: a random sequence of the calls that never wait, by agents 1
// to 3 from one goroutine, with each message copied in and out between the
// claim and the commit as the glue does, compared with a queue. An agent
// may end between its claim and its commit: another's recover voids its
// cell (its send never happened; its receive took the message with it).
func FuzzChannelOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 0, 0, 1, 1, 1, 1, 3},    // fill past capacity, drain past empty
		{0, 2, 0, 1, 1, 2},             // close with one in: it drains, sends fail, a second close fails
		{6, 1, 1, 3},                   // a close between a send's claim and its commit: it is sent
		{4, 5, 0, 4, 5, 1, 5, 2, 4, 5}, // arming, as a select does
		{7, 0, 1, 1, 0, 8, 1, 3},       // an agent ends in a send, then in a receive
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		const capacity, cellSlots, at = 3, 4, 1
		h, mem := fuzzMemory(1 + chanSlots + capacity*cellSlots + 1) // a word either side, which must stay 0
		// Agents 1 to 3 of a registry with base 0, each with a record: so
		// a stamp names agent x as x (channel.mark), and recover finds it.
		// (One registry state for the three: this process is all of them.)
		old := reg
		reg.mem, reg.own, reg.base = h, 0, 0
		defer func() { reg = old }()
		if r := chanSetUp(channel{prim{h, at, 1}}, capacity, cellSlots); r != 1<<chanOwnerShift {
			t.Fatalf("set up = %d, want agent 1's mark", r)
		}
		var queue []int32 // the model: the messages in it (-1: a void one), and whether it is closed
		closed := false
		cell := func(p int32) int32 { return at + chanSlots + p%capacity*cellSlots }
		for i, b := range ops {
			op, x, msg := b%9, int32(1+b/9%3), int32(1000+i)
			c := channel{prim{h, at, x}}
			fail := func(what string, got, want int32) {
				t.Fatalf("op %d (%d by agent %d) in %v: %s = %d, want %d", i, op, x, ops, what, got, want)
			}
			switch op {
			case 0, 6, 7: // a send; 6: another agent closes it before the commit; 7: it ends there
				want := int32(0)
				switch {
				case closed:
					want = resultClosed
				case len(queue) == capacity:
					want = resultBusy
				}
				p := chanClaim(c, chanSenders, false)
				if p < 0 && p != want || p >= 0 && want < 0 {
					fail("claim of a send", p, want)
				}
				if p < 0 {
					break
				}
				mem.Store(cell(p)+chanCellMetaAt, 4)
				mem.Store(cell(p)+chanCellWords, msg)
				if op == 6 {
					chanClose(channel{prim{h, at, x%3 + 1}})
					closed = true
				}
				if op == 7 {
					if r := chanRecover(channel{prim{h, at, x%3 + 1}}, x); r != resultOK {
						fail("recover", r, resultOK)
					}
					queue = append(queue, -1) // never sent: a void cell, until a receive frees it
					break
				}
				if r := chanCommit(c, chanSenders, p); r != resultOK {
					fail("send commit", r, resultOK)
				}
				queue = append(queue, msg)
			case 1, 8: // a receive; 8: it ends between its claim and its commit
				for len(queue) > 0 && queue[0] == -1 {
					queue = queue[1:] // the claim frees void cells on its way
				}
				want := int32(0)
				switch {
				case len(queue) == 0 && closed:
					want = resultClosed
				case len(queue) == 0:
					want = resultBusy
				}
				p := chanClaim(c, chanReceivers, false)
				if p < 0 && p != want || p >= 0 && want < 0 {
					fail("claim of a receive", p, want)
				}
				if p < 0 {
					break
				}
				if got := mem.Load(cell(p) + chanCellWords); got != queue[0] {
					fail("the message received", got, queue[0])
				}
				queue = queue[1:]
				if op == 8 {
					if r := chanRecover(channel{prim{h, at, x%3 + 1}}, x); r != resultOK {
						fail("recover", r, resultOK)
					}
					break
				}
				if r := chanCommit(c, chanReceivers, p); r != resultOK {
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
				r, ready := chanArm(c, chanSenders, false), closed || len(queue) < capacity
				if op == 5 {
					r, ready = chanArm(c, chanReceivers, false), closed && len(queue) == 0 || len(queue) > 0
				}
				switch {
				case ready && r != resultOK:
					fail("arm, ready", r, resultOK)
				case !ready && (r < 0 || r&chanWaiters == 0):
					fail("arm, not ready (a word with chanWaiters)", r, chanWaiters)
				}
			}
			for k := range int32(capacity) {
				if s := mem.Load(cell(k)); s>>chanOwnerShift != 0 {
					t.Fatalf("after op %d (%d by agent %d) in %v: cell %d still claimed (stamp %#x)", i, op, x, ops, k, s)
				}
			}
			if tw := mem.Load(at + chanTailAt); (tw&chanClosed != 0) != closed {
				t.Fatalf("after op %d in %v: tail word %#x; model: closed %v", i, ops, tw, closed)
			}
			if mem.Load(0) != 0 || mem.Load(at+chanSlots+capacity*cellSlots) != 0 {
				t.Fatalf("after op %d in %v: a word beside the channel changed", i, ops)
			}
		}
	})
}
