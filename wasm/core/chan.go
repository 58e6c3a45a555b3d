package core

import "math"

// A channel is a bounded queue of messages, many senders and many
// receivers, in chanSlots int32 slots at index i and then its cells:
//
//	i    the lock word: a Mutex (mutex.go), held by a sender or receiver
//	     while it copies one message into or out of a cell
//	i+1  the lock's holder (as a Mutex's)
//	i+2  recvSeq: a counter (bits 0-29) and chanWaiters (bit 30): receivers
//	     that found it empty sleep on this word
//	i+3  sendSeq: the same for senders that found it full
//	i+4  head: the position of the oldest message, mod 2*capacity
//	i+5  tail: the position of the next message, mod 2*capacity (bits
//	     0-29), and chanClosed (bit 30)
//	i+6  capacity, recorded by the first agent (0: not yet)
//	i+7  cellSlots: the int32 slots of one cell, recorded likewise
//	i+8  the cells, capacity of them, cellSlots each: a meta word (the
//	     message's length in bytes, bits 0-29; bit 30: it is a string),
//	     then its bytes. The glue reads and writes the cells; the core
//	     never does.
//
// Messages in it: (tail - head) mod 2*capacity, from 0 (empty) to capacity
// (full); the message at position p is in cell p mod capacity. Zeroed
// slots are an empty open channel, once set up.
//
// Sending and receiving are two steps, as the cell is copied by the glue in
// between:
//
//	send:    take the lock; closed: give it back, resultClosed; full: give
//	         it back, wait on sendSeq; else resultOK, holding it. The glue
//	         copies the message into cell tail mod capacity, then
//	         chanSendCommit: tail -> tail+1 (a compare-and-swap: closed
//	         meanwhile, it sends nothing: resultClosed), wake the receivers
//	         if any wait, give the lock back
//	receive: take the lock; empty: give it back, and closed: resultClosed,
//	         else wait on recvSeq; else resultOK, holding it. The glue
//	         copies cell head mod capacity out, then chanRecvCommit: head ->
//	         head+1, wake the senders if any wait, give the lock back
//	close:   tail -> tail|chanClosed (no lock), then wake everyone
//
// Each change a message makes is one store (the commit), so an agent that
// ends at any point leaves the channel whole: its lock is freed by the
// watch (the next holder is told, resultHolderDied, and has nothing to
// repair), and a message it was copying in was never sent, one it was
// copying out was received by it (and is gone with it, as a postMessage to
// a worker that ends).
//
// Waiting for room or a message: a waiter sets chanWaiters on the sequence
// word, then looks at head and tail again, then sleeps on the sequence word
// as it read it; a commit or a close changes head or tail first, then
// bumps the word (clearing chanWaiters) and wakes every sleeper if
// chanWaiters was set. So either the waiter sees the change, or the
// committer sees its bit: no lost wake-up. Waking all is simple, and costs
// only while someone waits; the woken compete for the lock.
const chanSlots = 8

const (
	chanWaiters  = 1 << 30
	chanSeqMask  = chanWaiters - 1
	chanClosed   = 1 << 30
	chanPosMask  = chanClosed - 1
	chanMaxCap   = 1 << 20 // positions run mod 2*capacity, within 30 bits
	chanMaxCell  = 1 << 24 // slots of one cell: messages of up to 64 MiB
	chanKindStr  = 1 << 30 // in a cell's meta word: the message is a string
	chanSpinLoad = 100     // loads spent waiting out another's copy before sleeping
)

// chanNoHandOff: the lock never enters the Mutex's starvation mode (its
// waiters are not timed: lockStep gets no start), so an unlock never hands
// it to one woken waiter. It is held only while one message is copied, and
// waiters for room or messages sleep on the sequence words, not on it. A
// hand-off also needs the one waiter that a notify(1) woke to come and take
// it: in Firefox 145, 4 producers and 3 consumers (the page's waits on the
// lock timed at 50 ms by the watch) twice left the lock handed off with
// nobody taking it, the channel full or empty, everyone asleep
// (browsertest's TestChannelTraffic, before this).
type channel struct{ word } // word.index is the lock word

func (c channel) lock() word        { return c.word }
func (c channel) tail() int32       { return atomicLoad(c.mem, c.index+5) }
func (c channel) head() int32       { return atomicLoad(c.mem, c.index+4) }
func (c channel) capacity() int32   { return atomicLoad(c.mem, c.index+6) }
func (c channel) recvSeq() word     { return word{c.mem, c.index + 2, c.self} }
func (c channel) sendSeq() word     { return word{c.mem, c.index + 3, c.self} }
func (c channel) setHead(p int32)   { atomicStore(c.mem, c.index+4, p) }
func chanCount(t, h, n int32) int32 { return ((t & chanPosMask) - h + 2*n) % (2 * n) }

// chanSetUp records capacity and cellSlots in zeroed slots, or checks them
// against what the first agent recorded.
func chanSetUp(c channel, capacity, cellSlots int32) int32 {
	if r := setUpSize(c.mem, c.index+6, capacity, chanMaxCap); r != resultOK {
		return r
	}
	return setUpSize(c.mem, c.index+7, cellSlots, chanMaxCell)
}

// chanState is the tail word and the count of messages, or resultCorrupted
// as the count when head or tail is out of range.
func chanState(c channel) (t, count int32) {
	n, h := c.capacity(), c.head()
	t = c.tail()
	if n < 1 || n > chanMaxCap || h < 0 || h >= 2*n || t < 0 || t&chanPosMask >= 2*n {
		return t, resultCorrupted
	}
	return t, chanCount(t, h, n)
}

// chanLength is how many messages are in it now, or resultCorrupted.
func chanLength(c channel) int32 {
	_, count := chanState(c)
	return count
}

// chanTakeLock takes the lock for a copy, waiting out another's copy for a
// few loads (a copy is short); resultBusy if it stays held.
func chanTakeLock(c channel) int32 {
	for i := 0; ; i++ {
		r := tryLock(c.lock())
		if r != resultBusy || i == chanSpinLoad {
			return r
		}
		for j := chanSpinLoad; j > 0 && c.load()&stateMask != stateUnlocked; j-- {
		}
	}
}

// chanTrySend is trySend's first step: resultOK holding the lock with room
// for a message, resultBusy (full, or the lock stayed held), resultClosed.
func chanTrySend(c channel) int32 {
	if r := chanTakeLock(c); r != resultOK && r != resultHolderDied {
		return r
	}
	return chanHoldingForSend(c)
}

// chanHoldingForSend decides, holding the lock, whether to keep it for a
// send: resultOK, or it gives it back: resultClosed, resultBusy (full).
func chanHoldingForSend(c channel) int32 {
	t, count := chanState(c)
	switch {
	case count < 0:
		unlock(c.lock())
		return resultCorrupted
	case t&chanClosed != 0:
		unlock(c.lock())
		return resultClosed
	case count == c.capacity():
		unlock(c.lock())
		return resultBusy
	}
	return resultOK
}

// chanTryRecv is tryRecv's first step: resultOK holding the lock with a
// message at head, resultBusy (empty, or the lock stayed held),
// resultClosed (closed and drained).
func chanTryRecv(c channel) int32 {
	if r := chanTakeLock(c); r != resultOK && r != resultHolderDied {
		return r
	}
	return chanHoldingForRecv(c)
}

func chanHoldingForRecv(c channel) int32 {
	t, count := chanState(c)
	switch {
	case count < 0:
		unlock(c.lock())
		return resultCorrupted
	case count > 0:
		return resultOK
	case t&chanClosed != 0:
		unlock(c.lock())
		return resultClosed
	}
	unlock(c.lock())
	return resultBusy
}

// chanSendCommit sends the message the glue copied into cell tail mod
// capacity, by the holder of the lock: resultOK, or resultClosed if the
// channel closed since the lock was taken (nothing sent). Either way it
// gives the lock back.
func chanSendCommit(c channel) int32 {
	if c.holder() != c.self {
		return resultNotHolder
	}
	n := c.capacity()
	for t := c.tail(); ; {
		if t&chanClosed != 0 {
			unlock(c.lock())
			return resultClosed
		}
		got := atomicCompareExchange(c.mem, c.index+5, t, (t+1)%(2*n))
		if got == t {
			break
		}
		t = got // (only a close changes it meanwhile)
	}
	r := unlock(c.lock())
	if !brokenChanSendForgetsWake {
		chanWake(c.recvSeq())
	}
	return r
}

// chanRecvCommit ends a receive, by the holder of the lock, once the glue
// has copied cell head mod capacity out: head -> head+1.
func chanRecvCommit(c channel) int32 {
	if c.holder() != c.self {
		return resultNotHolder
	}
	if !brokenChanRecvKeepsHead {
		c.setHead((c.head() + 1) % (2 * c.capacity()))
	}
	r := unlock(c.lock())
	chanWake(c.sendSeq())
	return r
}

// chanClose closes the channel: resultOK, or resultClosed if it was
// already. Senders that wait wake to find it closed; receivers drain it.
func chanClose(c channel) int32 {
	for t := c.tail(); ; {
		if t&chanClosed != 0 {
			return resultClosed
		}
		got := atomicCompareExchange(c.mem, c.index+5, t, t|chanClosed)
		if got == t {
			break
		}
		t = got
	}
	chanWake(c.recvSeq())
	chanWake(c.sendSeq())
	return resultOK
}

// chanWake bumps a sequence word, clearing chanWaiters, and wakes all if
// that was set.
func chanWake(s word) {
	for v := s.load(); v&chanWaiters != 0; {
		got := s.cas(v, (v+1)&chanSeqMask)
		if got == v {
			atomicNotify(s.mem, s.index, notifyAll)
			return
		}
		v = got
	}
}

// chanAwait is a turn of a wait for room or a message on the sequence word
// s: set chanWaiters, then look (ready: room or a message there, or
// closed): resultOK, or the word to sleep on.
func chanAwait(s word, ready func() bool) int32 {
	v := s.load()
	for v&chanWaiters == 0 {
		got := s.cas(v, v|chanWaiters)
		if got == v {
			v |= chanWaiters
			break
		}
		v = got
	}
	if ready() {
		return resultOK
	}
	return v
}

// chanArmSend and chanArmRecv are a select's arming (jsglue/select.js): as
// a waiter's turn, set chanWaiters on the sequence word, then look: resultOK
// if a send (room, or closed) or a receive (a message, or closed) would not
// wait now, else the word to sleep on, which the next commit or close
// changes.
func chanArmSend(c channel) int32 { return chanAwait(c.sendSeq(), func() bool { return chanRoom(c) }) }

func chanArmRecv(c channel) int32 {
	return chanAwait(c.recvSeq(), func() bool { return chanMessage(c) })
}

// chanRoom: a send would not wait for room (or corruption, or closed,
// which the send then reports); chanMessage: likewise for a receive.
func chanRoom(c channel) bool {
	tw, count := chanState(c)
	return count < 0 || tw&chanClosed != 0 || count < c.capacity()
}

func chanMessage(c channel) bool {
	tw, count := chanState(c)
	return count != 0 || tw&chanClosed != 0
}

// chanLockStep is a turn of the wait for the channel's lock: the Mutex's
// step, with no starvation mode (see chanNoHandOff). (The glue waits out
// a short copy or gap before it calls a wait: jsglue/channel.js, #spin.)
func chanLockStep(c channel, t turn) int32 {
	return lockStep(c.lock(), t.deadlineMs, math.NaN(), t.woken, t.sleep)
}

// chanSendStep is a turn of send's wait for the lock (kindChanSend):
// resultOK holding it with room, resultClosed, resultBusy at the deadline,
// a word to sleep on (the lock word), or on to kindChanRoom when full.
// Only a first turn looks before it takes the lock: a waiter that has
// slept on the lock word may have been sent the one wake-up an unlock
// gives (mutex.go), and must take the lock, whose unlock passes it on.
func chanSendStep(c channel, t turn) int32 {
	if tw, count := chanState(c); t.woken == wokenFirst && count >= 0 && tw&chanClosed == 0 && count == c.capacity() {
		return thenKind(kindChanRoom)
	}
	r := chanLockStep(c, t)
	if r != resultOK && r != resultHolderDied {
		return r
	}
	if r = chanHoldingForSend(c); r == resultBusy {
		return thenKind(kindChanRoom) // filled meanwhile
	}
	return r
}

// chanRoomStep is a turn of send's wait for room (kindChanRoom, on sendSeq).
func chanRoomStep(c channel, t turn) int32 { return chanArmedStep(chanArmSend(c), t, kindChanSend) }

// chanArmedStep ends a turn of a wait for room or a message, armed with r
// (chanArmSend, chanArmRecv): resultBusy at the deadline, on to the lock's
// wait (kind next) once ready, else the word to sleep on, or an error.
func chanArmedStep(r int32, t turn, next waitKind) int32 {
	if r >= 0 && timedOut(t.deadlineMs) {
		return resultBusy
	}
	if r == resultOK {
		return thenKind(next)
	}
	return r
}

// chanRecvStep is a turn of receive's wait for the lock (kindChanRecv).
func chanRecvStep(c channel, t turn) int32 {
	if tw, count := chanState(c); t.woken == wokenFirst && count == 0 { // (a first turn only: see chanSendStep)
		if tw&chanClosed != 0 {
			return resultClosed
		}
		return thenKind(kindChanMsg)
	}
	r := chanLockStep(c, t)
	if r != resultOK && r != resultHolderDied {
		return r
	}
	if r = chanHoldingForRecv(c); r == resultBusy {
		return thenKind(kindChanMsg) // emptied meanwhile
	}
	return r
}

// chanMessageStep is a turn of receive's wait for a message (kindChanMsg, on recvSeq).
func chanMessageStep(c channel, t turn) int32 { return chanArmedStep(chanArmRecv(c), t, kindChanRecv) }
