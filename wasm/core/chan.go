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
//	i+4  head: the position of the oldest message, mod 2*capacity (bits
//	     0-28), and chanStarving (bit 29): a receiver starves
//	i+5  tail: the position of the next message, mod 2*capacity (bits
//	     0-28), chanStarving (bit 29): a sender starves, and chanClosed
//	     (bit 30)
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
//
// No waiter starves behind agents that send (or receive) again at once.
// Senders, then receivers alike:
//
//	chanStarving in the tail  set by a sender that was woken by a receive
//	                          and found the channel full again, 1 ms or
//	                          more after it began
//	while it is set           a newcomer (a first try, trySend, a select,
//	                          the glue's fast path, which leaves every
//	                          flagged word to Go, a sleeper whose sleep did
//	                          not end in a notify) sends only if it leaves a
//	                          cell free; a receive wakes one sender, the
//	                          longest asleep (Atomics.notify is FIFO),
//	                          which may take the last cell, and keeps
//	                          chanWaiters for the next receive's wake-up
//	it ends                   when a receive's wake-up finds nobody asleep
//	                          (nobody waits any more), when a sender gives
//	                          up (a timeout, an abort), or a watched one
//	                          finds the last cell free for a whole watch
//	                          period: then wake all. (Not when a waiter that
//	                          waited long takes, as the Mutex's: senders
//	                          paced by receives all wait that long, and the
//	                          oldest sleeper, which the next wake-up goes
//	                          to, may be an agent that sends again at once,
//	                          not the one that starved.)
//
// A sender stays a waiter across its kinds of wait (kindChanSendWaited for
// the lock, kindChanRoomWaited for room) once a receive has woken it.
// Receivers: the head's bit, the last message, kindChanRecvWaited and
// kindChanMsgWaited.
const chanSlots = 8

const (
	chanWaiters  = 1 << 30
	chanSeqMask  = chanWaiters - 1
	chanClosed   = 1 << 30
	chanStarving = 1 << 29
	chanPosMask  = chanStarving - 1
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
type channel struct{ prim } // word.index is the lock word

func (c channel) lock() prim        { return c.prim }
func (c channel) tail() int32       { return atomicLoad(c.mem, c.index+5) }
func (c channel) head() int32       { return atomicLoad(c.mem, c.index+4) }
func (c channel) capacity() int32   { return atomicLoad(c.mem, c.index+6) }
func (c channel) recvSeq() prim     { return prim{c.mem, c.index + 2, c.self} }
func (c channel) sendSeq() prim     { return prim{c.mem, c.index + 3, c.self} }
func chanCount(t, h, n int32) int32 { return ((t & chanPosMask) - h&chanPosMask + 2*n) % (2 * n) }

// A side of the channel: its senders or its receivers, and the word of
// each that chanStarving is in (the tail, the head).
type chanSide struct {
	send bool
	// The kinds of wait: for the lock (a newcomer's, a waiter's), and for
	// room or a message (likewise).
	lock, lockWaited, await, awaitWaited waitKind
	at                                   int32 // the word with this side's chanStarving, from the lock word
}

var (
	chanSenders   = chanSide{true, kindChanSend, kindChanSendWaited, kindChanRoom, kindChanRoomWaited, 5}
	chanReceivers = chanSide{false, kindChanRecv, kindChanRecvWaited, kindChanMsg, kindChanMsgWaited, 4}
)

func (d chanSide) starving(c channel) bool { return atomicLoad(c.mem, c.index+d.at)&chanStarving != 0 }

// ready says whether this side may go on now, from the tail word t and
// count: room for a send (or closed, or corruption: the send reports it),
// a message for a receive (or closed). A newcomer (waiter false) leaves
// the last cell or message to a starving waiter.
func (d chanSide) ready(c channel, t, count int32, waiter bool) bool {
	if count < 0 || t&chanClosed != 0 {
		return true
	}
	n := c.capacity()
	if d.send {
		return count < n && (waiter || t&chanStarving == 0 || count+1 < n)
	}
	return count > 0 && (waiter || c.head()&chanStarving == 0 || count > 1)
}

// starve sets (on true) or ends this side's chanStarving; true if it
// changed it. (A compare-and-swap: the tail's commit and close, and a
// waiter that gives up, change these words without the lock.)
func (d chanSide) starve(c channel, on bool) bool {
	at := c.index + d.at
	for v := atomicLoad(c.mem, at); v >= 0 && (v&chanStarving != 0) != on; {
		got := atomicCompareExchange(c.mem, at, v, v^chanStarving)
		if got == v {
			return true
		}
		v = got
	}
	return false
}

func (d chanSide) seq(c channel) prim {
	if d.send {
		return c.sendSeq()
	}
	return c.recvSeq()
}

// chanGiveUp ends side d's starvation mode and wakes its sleepers: for a
// waiter of side d that stops waiting (a timeout, an abort: it may be the
// starving one, or the one woken to take the last cell), and a wake-up
// that found nobody asleep.
func chanGiveUp(c channel, d chanSide) {
	if d.starve(c, false) {
		chanWakeAll(d.seq(c))
	}
}

// chanVoidStarving is a watched waiter's look, once it has slept a watch
// period through (watchLook): the last cell or message, free while its
// side starves, is for a waiter that a wake-up was sent to, and that has
// not come (its worker ended, its wait still queued: whatwg/html#8276).
// As the Mutex's voidHandOff.
func chanVoidStarving(c channel, d chanSide) {
	if brokenChanStarvingKept {
		return
	}
	if t, count := chanState(c); d.starving(c) && count >= 0 && d.ready(c, t, count, true) && !d.ready(c, t, count, false) {
		chanGiveUp(c, d)
	}
}

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
	if n < 1 || n > chanMaxCap || h < 0 || h&chanPosMask >= 2*n || t < 0 || t&chanPosMask >= 2*n {
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
	return chanHolding(c, chanSenders, false, math.NaN())
}

// chanHolding decides, holding the lock, whether to keep it for a send
// (side chanSenders) or a receive: resultOK (a message at head for a
// receive, room for a send); or it gives it back: resultClosed (a send; a
// receive once drained), resultBusy (not ready for it), resultCorrupted. A
// waiter (see chanSide.ready) that started startMs ago, beaten to it,
// sets its side's chanStarving.
func chanHolding(c channel, d chanSide, waiter bool, startMs float64) int32 {
	t, count := chanState(c)
	switch {
	case count < 0:
		unlock(c.lock())
		return resultCorrupted
	case d.send && t&chanClosed != 0, !d.send && count == 0 && t&chanClosed != 0:
		unlock(c.lock())
		return resultClosed
	case d.ready(c, t, count, waiter):
		return resultOK
	}
	if waiter && waitedMs(startMs) >= starvationThresholdMs {
		d.starve(c, true) // beaten to it again: the next cell or message is a waiter's
	}
	unlock(c.lock())
	return resultBusy
}

// chanTryRecv is tryRecv's first step: resultOK holding the lock with a
// message at head, resultBusy (empty, or the lock stayed held),
// resultClosed (closed and drained).
func chanTryRecv(c channel) int32 {
	if r := chanTakeLock(c); r != resultOK && r != resultHolderDied {
		return r
	}
	return chanHolding(c, chanReceivers, false, math.NaN())
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
		got := atomicCompareExchange(c.mem, c.index+5, t, (t&chanPosMask+1)%(2*n)|t&chanStarving)
		if got == t {
			break
		}
		t = got // (only a close, or a waiter that gives up, changes it meanwhile)
	}
	r := unlock(c.lock())
	if !brokenChanSendForgetsWake {
		chanWake(c, chanReceivers)
	}
	return r
}

// chanRecvCommit ends a receive, by the holder of the lock, once the glue
// has copied cell head mod capacity out: head -> head+1.
func chanRecvCommit(c channel) int32 {
	if c.holder() != c.self {
		return resultNotHolder
	}
	n := c.capacity()
	for h := c.head(); !brokenChanRecvKeepsHead; {
		// (A compare-and-swap: a waiter that gives up clears the bit
		// without the lock.)
		got := atomicCompareExchange(c.mem, c.index+4, h, (h&chanPosMask+1)%(2*n)|h&chanStarving)
		if got == h {
			break
		}
		h = got
	}
	r := unlock(c.lock())
	chanWake(c, chanSenders)
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
	chanWakeAll(c.recvSeq())
	chanWakeAll(c.sendSeq())
	return resultOK
}

// chanWake follows a change that may let side d go on (a commit of the
// other side): it bumps d's sequence word and, if chanWaiters was set,
// wakes d's sleepers: all, or while d starves one, the longest asleep,
// keeping chanWaiters for the next (see above); if that one woke nobody,
// starvation mode ends (chanGiveUp).
func chanWake(c channel, d chanSide) {
	s := d.seq(c)
	for v := s.load(); v&chanWaiters != 0; {
		starving := d.starving(c)
		next := (v + 1) & chanSeqMask
		if starving {
			next |= chanWaiters
		}
		if got := s.cas(v, next); got != v {
			v = got
			continue
		}
		switch {
		case !starving:
			atomicNotify(s.mem, s.index, notifyAll)
		case atomicNotify(s.mem, s.index, 1) == 0:
			chanGiveUp(c, d)
		}
		return
	}
}

// chanWakeAll bumps a sequence word, clearing chanWaiters, and wakes all if
// that was set.
func chanWakeAll(s prim) {
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
func chanAwait(s prim, ready func() bool) int32 {
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
// a newcomer's turn, set chanWaiters on the sequence word, then look:
// resultOK if a send (room, or closed) or a receive (a message, or closed)
// would not wait now, else the word to sleep on, which the next commit or
// close changes.
func chanArmSend(c channel) int32 { return chanArm(c, chanSenders, false) }

func chanArmRecv(c channel) int32 { return chanArm(c, chanReceivers, false) }

func chanArm(c channel, d chanSide, waiter bool) int32 {
	return chanAwait(d.seq(c), func() bool {
		t, count := chanState(c)
		return d.ready(c, t, count, waiter)
	})
}

// chanLockStep is a turn of the wait for the channel's lock: the Mutex's
// step, with no starvation mode (see chanNoHandOff). (The glue waits out
// a short copy or gap before it calls a wait: jsglue/channel.js, #spin.)
func chanLockStep(c channel, t turn) int32 {
	return lockStep(c.lock(), t.deadlineMs, math.NaN(), t.woken, t.sleep)
}

// chanSideStep is a turn of a send's or a receive's wait for the lock
// (kindChanSend, kindChanRecv; a waiter's: kindChanSendWaited,
// kindChanRecvWaited): resultOK holding it, ready; resultClosed;
// resultBusy at the deadline; a word to sleep on (the lock word); or on to
// the wait for room or a message (kindChanRoom, kindChanMsg) when not
// ready. Only a first turn looks before it takes the lock: a waiter that
// has slept on the lock word may have been sent the one wake-up an unlock
// gives (mutex.go), and must take the lock, whose unlock passes it on.
func chanSideStep(c channel, d chanSide, waiter bool, t turn) int32 {
	then := d.await
	if waiter {
		then = d.awaitWaited
	}
	if tw, count := chanState(c); t.woken == wokenFirst && !d.ready(c, tw, count, waiter) {
		return goOnAs(then)
	}
	r := chanLockStep(c, t)
	if r == resultBusy {
		chanGiveUp(c, d)
	}
	if r != resultOK && r != resultHolderDied {
		return r
	}
	if r = chanHolding(c, d, waiter, t.startMs); r == resultBusy {
		return goOnAs(then) // filled or emptied meanwhile
	}
	return r
}

// chanAwaitStep is a turn of a wait for room or a message (kindChanRoom
// and kindChanRoomWaited, on sendSeq; kindChanMsg and kindChanMsgWaited, on
// recvSeq): resultBusy at the deadline; once ready, on to the lock's wait;
// else the word to sleep on, or an error. A newcomer becomes a waiter once
// a commit's notify wakes it, and stays one (kindChan...Waited) until it
// has sent or received: a sleep that ends otherwise (the word changed
// before it slept, a watch period) must not take that back, or a starving
// waiter could find itself behind its own chanStarving.
func chanAwaitStep(c channel, d chanSide, waiter bool, t turn) int32 {
	notified := t.woken == wokenNotified
	r := chanArm(c, d, waiter || notified)
	if r >= 0 && timedOut(t.deadlineMs) {
		chanGiveUp(c, d)
		return resultBusy
	}
	switch {
	case r == resultOK && (waiter || notified):
		return goOnAs(d.lockWaited)
	case r == resultOK:
		return goOnAs(d.lock)
	case r < 0:
		return r
	}
	// Woken by a commit, and beaten to it: the next cell or message is a
	// waiter's once it has waited long. (Only a waiter that a notify woke
	// reads the clock, as the Mutex's.)
	if notified && waitedMs(t.startMs) >= starvationThresholdMs {
		d.starve(c, true)
	}
	if notified && !waiter {
		return goOnAs(d.awaitWaited)
	}
	return r
}

// The Channel's kinds of wait, for the table in wait.go. chanTurn is a
// turn of any of the eight: the kind (t.kind) names the side, the wait
// (for the lock, or for room or a message) and whether it is a waiter's
// (see chanSide). An abandon gives up the lock's wait (abandonWait) and
// ends the side's starvation mode (chanGiveUp): the wait may have been the
// starving one, or the one woken to take the last cell or message.
func chanTurn(w prim, _ int32, t turn) int32 {
	c, d := channel{w}, chanReceivers
	if t.kind == kindChanSend || t.kind == kindChanSendWaited || t.kind == kindChanRoom || t.kind == kindChanRoomWaited {
		d = chanSenders
	}
	switch t.kind {
	case d.lock, d.lockWaited:
		return chanSideStep(c, d, t.kind == d.lockWaited, t)
	}
	return chanAwaitStep(c, d, t.kind == d.awaitWaited, t)
}

func chanSendAbandon(w prim, _, _ int32, _ bool) int32 {
	abandonWait(w)
	chanGiveUp(channel{w}, chanSenders)
	return resultBusy
}
func chanRecvAbandon(w prim, _, _ int32, _ bool) int32 {
	abandonWait(w)
	chanGiveUp(channel{w}, chanReceivers)
	return resultBusy
}
func chanRoomAbandon(w prim, _, _ int32, _ bool) int32 {
	chanGiveUp(channel{w}, chanSenders)
	return resultBusy
}
func chanMsgAbandon(w prim, _, _ int32, _ bool) int32 {
	chanGiveUp(channel{w}, chanReceivers)
	return resultBusy
}
func chanLockHolder(w prim) int32 { return max(holder(w), 0) }
func chanVoidSenders(w prim)      { chanVoidStarving(channel{w}, chanSenders) }
func chanVoidReceivers(w prim)    { chanVoidStarving(channel{w}, chanReceivers) }
