package core

// A channel is a bounded queue of messages, many senders and many
// receivers, with no lock: each message has a cell, which a sender claims,
// fills and commits, and a receiver claims, empties and frees (Dmitry
// Vyukov's bounded MPMC queue, its stamps per cell, with each claim naming
// its agent: docs/decisions/channel-ring.md). In chanSlots int32 slots at
// index i, then its cells:
//
//	i       recvSeq (chanRecvSeqAt): a counter (bits 0-28), chanWaiters
//	        (bit 30): receivers that found no message sleep on this
//	        word, and chanClaimWaiters (bit 29): one found its cell
//	        mid-claim
//	i+1     sendSeq (chanSendSeqAt): the same for senders that found no room
//	i+2     capacity (chanCapacityAt), recorded by the first agent (0: not yet)
//	i+3     cellSlots (chanCellSizeAt): the int32 slots of one cell,
//	        recorded likewise
//	i+4     the registry (chanRegistryAt) whose agents the stamps name:
//	        its base + 1, recorded by the first agent that has one (0:
//	        not yet)
//	i+32    head (chanHeadAt): the position of the oldest message, mod
//	        2*capacity (bits 0-28), and chanStarving (bit 29): a receiver
//	        starves
//	i+64    tail (chanTailAt): the position of the next message, mod
//	        2*capacity (bits 0-28), chanStarving (bit 29): a sender
//	        starves, and chanClosed (bit 30)
//	i+96    the cells (chanSlots), capacity of them, cellSlots each: the
//	        stamp (below), the meta word (the message's length in bytes,
//	        bits 0-29; bit 30: it is a string), then its bytes. The glue
//	        reads and writes meta and bytes; the core never does.
//
// The slots between are not used (0). The head, which every receive
// moves, and the tail, which every send moves, are 128 bytes from each
// other, and at least 100 from the words every send and receive reads
// (the sequence words, the sizes): more than a cache line apart, so that
// senders and receivers do not take each other's line at every message
// (crossbeam's CachePadded, Vyukov's padding).
//
// Position p (0 to 2*capacity-1) is in cell p mod capacity, in lap p /
// capacity (0 or 1). Messages in it: (tail - head) mod 2*capacity, from 0
// to capacity, those being copied in or out included. Zeroed slots are an
// empty open channel, once set up.
//
// A cell's stamp: its state (bits 0-2) and its claimer (bits 3 up:
// chanOwnerShift), one word, so that a claim is one compare-and-swap and a
// commit one store. For the position p its lap names (L = p's lap):
//
//	state               claimer  the cell is
//	L                   0        free: the sender at p may claim it
//	L                   k        claimed by agent k: a sender copying in,
//	                             once it has moved the tail past p (before:
//	                             nothing claimed yet)
//	L|chanFull          0        a message, for the receiver at p
//	L|chanFull          k        claimed by agent k: a receiver copying
//	                             out, once it has moved the head past p
//	                             (before, as above)
//	L|chanFull|chanVoid 0        a message that never came (its sender
//	                             ended): the receiver at p frees it and
//	                             takes the next
//
// A claimer is named by its number in the registry that chanRegistryAt
// records (the agent's join order, 1 to maxRecords: channel.mark), which is
// what the watch can find DEAD; an agent with no record there (another
// registry's, or none: not joined, or past maxRecords, whose end no watch
// learns of anyway) claims as chanUnnamed, which no record has, so a cell
// it holds when it ends stays claimed. The claim names its
// agent in its compare-and-swap; the move of the tail (the head) past p is
// the point of no return. Its transitions (tail and head: compare-and-
// swaps, which fail on a close, a change of chanStarving, or a claimer
// whose position was stale):
//
//	send    claim:   stamp L -> L|k; tail p -> p+1 (if it fails: stamp
//	                 -> L, and look again)
//	        copy:    meta and bytes
//	        commit:  stamp -> L|chanFull, wake the receivers (and whoever
//	                 found the cell mid-claim)
//	receive claim:   stamp L|chanFull -> L|chanFull|k; head p -> p+1
//	        copy:    meta and bytes out (a void cell: none)
//	        commit:  stamp -> (L^1) (free for position p+capacity), wake
//	                 the senders (and likewise)
//	close            tail -> tail|chanClosed, then wake everyone. A send
//	                 that moved the tail before it is sent; after it, none
//	                 moves it.
//
// A claim that finds its cell claimed goes on as one that finds no room
// (or no message): it waits on its sequence word. A claimer of the other
// side (a receiver copying out of the cell at the tail) wakes it with its
// commit. One of its own side (the stamp's state is the one it wants:
// chanLook's chanInClaim) would not: the waiter sets chanClaimWaiters as
// well and looks again, and whoever sets a claimer back to 0 (a commit, a
// let-go, a void) then wakes all on a word with that bit
// (chanWakeClaimWaiters). Only those: waking a side's own sleepers at each
// of its commits would wake, under starvation mode, the starving waiter at
// the head of the queue, to sleep again at its tail.
//
// An agent that ends holding a cell holds no lock anyone needs, except the
// cell: a waiter whose wait has slept a watch period through asks the
// watch (watch.go) about the claimer of the cell it waits on (the one at
// the tail for a send, at the head for a receive: chanOwnerAt), and if that
// agent is DEAD, its recover (chanRecover) voids the cell, in one compare-
// and-swap of the stamp it read, so of watches that race one voids:
//
//	L|k, tail past p           a send: L|chanFull|chanVoid: never sent
//	L|chanFull|k, head past p  a receive: (L^1): the message is gone with
//	                           its receiver, as a postMessage to a worker
//	                           that ends
//	otherwise                  nothing claimed yet: the claimer let go
//
// then wakes whoever found the cell mid-claim. (While k holds the cell,
// neither the tail nor the head passes p, nor can k move them: what the
// watch read of them before its compare-and-swap still holds after it.)
//
// Waiting for room or a message: a waiter sets chanWaiters on the sequence
// word, then looks at the channel again, then sleeps on the sequence word
// as it read it; a commit or a close changes the channel first, then bumps
// the word (clearing chanWaiters) and wakes every sleeper if chanWaiters
// was set. So either the waiter sees the change, or the committer sees its
// bit: no lost wake-up. A wait only waits: once ready it returns, and its
// caller claims (and waits again if another claimed first).
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
//	                          whose wait returns resultWaiter: its claim
//	                          may take the last cell; the receive keeps
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
// A sender stays a waiter (kindChanRoomWaited, and its claims) once a
// receive has woken it, until it has sent. Receivers: the head's bit, the
// last message, kindChanMsgWaited.
const (
	chanHeadAt = 32 // the head's slot, from the first: 100 bytes past the words before it
	chanTailAt = 64 // the tail's likewise, 128 bytes from the head
	chanSlots  = 96 // then the cells, 128 bytes from the tail

	chanRecvSeqAt  = 0
	chanSendSeqAt  = 1
	chanCapacityAt = 2
	chanCellSizeAt = 3 // the int32 slots of one cell
	chanRegistryAt = 4 // the registry whose agents the stamps name: its base + 1
)

const (
	chanWaiters      = 1 << 30
	chanClaimWaiters = 1 << 29 // a waiter found the cell claimed, its claimer's position word not yet moved
	chanSeqMask      = chanClaimWaiters - 1
	chanClosed       = 1 << 30
	chanStarving     = 1 << 29
	chanPosMask      = chanStarving - 1
	chanMaxCap       = 1 << 20 // positions run mod 2*capacity, within 30 bits
	chanMaxCell      = 1 << 24 // slots of one cell: messages of up to 64 MiB
	chanKindStr      = 1 << 30 // in a cell's meta word: the message is a string
	chanCellWords    = 2       // a cell's words before its bytes: stamp, meta
	chanCellMetaAt   = 1       // its meta word (the glue's and sabsync's)

	// A stamp's bits: its state, then its claimer.
	chanLap        = 1 // the lap of the position it is for
	chanFull       = 2 // a message is in it (or was: chanVoid)
	chanVoid       = 4 // its sender ended before it committed: no message
	chanStateMask  = 7
	chanOwnerShift = 3              // the claimer, from bit 3: 0 (none), or an agent's number
	chanUnnamed    = maxRecords + 1 // an agent with no record in the channel's registry: never found DEAD
)

type channel struct{ prim } // word.index is the channel's first slot

func (c channel) tail() int32       { return atomicLoad(c.mem, c.index+chanTailAt) }
func (c channel) head() int32       { return atomicLoad(c.mem, c.index+chanHeadAt) }
func (c channel) capacity() int32   { return atomicLoad(c.mem, c.index+chanCapacityAt) }
func (c channel) recvSeq() prim     { return prim{c.mem, c.index + chanRecvSeqAt, c.self} }
func (c channel) sendSeq() prim     { return prim{c.mem, c.index + chanSendSeqAt, c.self} }
func chanCount(t, h, n int32) int32 { return ((t & chanPosMask) - h&chanPosMask + 2*n) % (2 * n) }

// cellOf is the first slot (the stamp) of the cell of position p, of a
// channel of capacity n.
func (c channel) cellOf(p, n int32) int32 {
	return c.index + chanSlots + p%n*atomicLoad(c.mem, c.index+chanCellSizeAt)
}

// A side of the channel: its senders or its receivers, and the word of
// each that holds its position and chanStarving (the tail, the head).
type chanSide struct {
	send               bool
	await, awaitWaited waitKind // a newcomer's wait for room or a message, and a waiter's
	at                 int32    // the word with this side's position, from the first slot
	full               int32    // the stamp's chanFull bit of a cell this side claims
}

var (
	chanSenders   = chanSide{true, kindChanRoom, kindChanRoomWaited, chanTailAt, 0}
	chanReceivers = chanSide{false, kindChanMsg, kindChanMsgWaited, chanHeadAt, chanFull}
)

func (d chanSide) starving(c channel) bool { return atomicLoad(c.mem, c.index+d.at)&chanStarving != 0 }

// chanLook is side d's look at the channel, as a claim makes it: its
// position word v (the tail for a send, the head for a receive), the stamp
// s of the cell at v's position, and r: chanGo if the cell is for it and
// free (a send: room; a receive: a message, void or not), else what a
// claim reports: resultClosed (a send; a receive once drained),
// resultBusy (no room or message now, the cell is another's, or kept for
// a starving waiter), resultCorrupted. A newcomer (waiter false) leaves
// the last cell or message to a starving waiter.
func chanLook(c channel, d chanSide, waiter bool) (v, s, r int32) {
	n := c.capacity()
	v = atomicLoad(c.mem, c.index+d.at)
again:
	p := v & chanPosMask
	switch {
	case n < 1 || n > chanMaxCap || v < 0 || p >= 2*n:
		return v, 0, resultCorrupted
	case d.send && v&chanClosed != 0:
		return v, 0, resultClosed
	}
	cell := c.cellOf(p, n)
	s = atomicLoad(c.mem, cell)
	if mine := s&^chanVoid&chanStateMask == p/n|d.full; !mine || s>>chanOwnerShift != 0 {
		if mine {
			return v, s, chanInClaim
		}
		// Not this side's: the other side's cell (no room, no message),
		// or one that this side already took at p, which moved the
		// position word past p since it was read. Then the look is stale
		// (a wait armed on it would miss the next wake-up, which that
		// move does not send): look again.
		if w := atomicLoad(c.mem, c.index+d.at); w != v {
			v = w
			goto again
		}
		if d.send {
			return v, s, resultBusy
		}
		switch t := c.tail(); {
		case t < 0 || t&chanPosMask >= 2*n:
			return v, s, resultCorrupted
		case t&chanClosed != 0 && t&chanPosMask == p:
			return v, s, resultClosed // closed and drained
		}
		return v, s, resultBusy
	}
	if waiter || v&chanStarving == 0 {
		return v, s, chanGo
	}
	// Its side starves: a newcomer takes only if it leaves a cell free (a
	// send), or a message in (a receive).
	h, t := c.head(), v
	if !d.send {
		h, t = v, c.tail()
	}
	if h < 0 || h&chanPosMask >= 2*n || t < 0 || t&chanPosMask >= 2*n {
		return v, s, resultCorrupted
	}
	// (Once closed, no send comes after: the receivers drain it, newcomers too.)
	if count := chanCount(t, h, n); d.send && count+1 < n || !d.send && (count > 1 || t&chanClosed != 0) {
		return v, s, chanGo
	}
	return v, s, resultBusy
}

// chanLook's other answers: chanGo, "claim it"; chanInClaim, busy: the
// cell is for this side, and another holds it (a claim in progress, whose
// claimer moves the position word next, or lets go). A waiter that finds
// chanInClaim must be woken by whoever lets go of the cell, not by the
// other side's next commit (chanArm).
const (
	chanGo      = 0
	chanInClaim = 1
)

// ready says whether side d may go on now: a claim would take a cell, or
// report something.
func (d chanSide) ready(c channel, waiter bool) bool {
	_, _, r := chanLook(c, d, waiter)
	return r != resultBusy && r != chanInClaim
}

// starve sets (on true) or ends this side's chanStarving; true if it
// changed it. (A compare-and-swap: claims and close change these words.)
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
	if d.starving(c) && d.ready(c, true) && !d.ready(c, false) {
		chanGiveUp(c, d)
	}
}

// chanSetUp records capacity and cellSlots in zeroed slots, or checks them
// against what the first agent recorded, and records this agent's registry
// if none is yet (chanRegistryAt). It returns the claimer bits of this
// agent's stamps (mark), which the glue's fast paths write, or an
// error (below 0).
func chanSetUp(c channel, capacity, cellSlots int32) int32 {
	if cellSlots < chanCellWords {
		return resultTooMany
	}
	if r := setUpSize(c.mem, c.index+chanCapacityAt, capacity, chanMaxCap); r != resultOK {
		return r
	}
	if r := setUpSize(c.mem, c.index+chanCellSizeAt, cellSlots, chanMaxCell); r != resultOK {
		return r
	}
	if reg.mem >= 0 {
		atomicCompareExchange(c.mem, c.index+chanRegistryAt, 0, reg.base+1)
	}
	return c.mark()
}

// ours says whether the stamps name agents of this agent's registry.
func (c channel) ours() bool {
	return reg.mem >= 0 && atomicLoad(c.mem, c.index+chanRegistryAt) == reg.base+1
}

// mark is the claimer bits of this agent's stamps: its number in the
// registry (its join order) if that is the channel's and it has a record
// there, else chanUnnamed.
func (c channel) mark() int32 {
	k := int32(chanUnnamed)
	if reg.own >= 0 && c.ours() && !brokenChanClaimUnnamed {
		k = c.self - reg.base
	}
	return k << chanOwnerShift
}

// idOf is the id of the agent a stamp names, if the watch can find it in
// this agent's registry; else 0.
func (c channel) idOf(stamp int32) int32 {
	if k := stamp >> chanOwnerShift; k >= 1 && k <= maxRecords && c.ours() {
		return reg.base + k
	}
	return 0
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

// chanClaim is the claim of a send (side chanSenders) or a receive, by a
// waiter (see chanSide.ready) or a newcomer: the position p of the cell it
// now holds (the glue copies, then commits it: chanSendCommit,
// chanRecvCommit); or resultClosed (a send; a receive once drained),
// resultBusy (no room or message now, or the cell is another's),
// resultCorrupted. A receive frees the void cells it claims and goes on.
func chanClaim(c channel, d chanSide, waiter bool) int32 {
	for {
		v, s, r := chanLook(c, d, waiter)
		if r == chanInClaim {
			return resultBusy
		}
		if r != chanGo {
			return r
		}
		n := c.capacity()
		p := v & chanPosMask
		cell := c.cellOf(p, n)
		if atomicCompareExchange(c.mem, cell, s, s|c.mark()) != s {
			continue // claimed by another since it looked, or moved on: look again
		}
		// Holding the cell: nobody else changes its stamp now. The
		// position word may have come round to v again (positions run mod
		// 2*capacity) while the cell went on a lap; then a position word
		// still at v is at the position the stamp is for.
		switch {
		case (!brokenChanRecvKeepsHead || d.send) && atomicCompareExchange(c.mem, c.index+d.at, v, (p+1)%(2*n)|v&^chanPosMask) != v:
			chanLetGo(c, cell, s) // look again: it closed, moved on, or a flag changed
		case s&chanVoid != 0:
			chanLetGo(c, cell, s&chanLap^chanLap) // a message that never came: free
		default:
			return p
		}
	}
}

// chanLetGo gives back a claim: the stamp -> s (no claimer), then wakes
// whoever found the cell mid-claim.
func chanLetGo(c channel, cell, s int32) {
	atomicStore(c.mem, cell, s)
	chanWakeClaimers(c)
}

// chanWakeClaimers wakes whoever found a cell mid-claim, on either side.
func chanWakeClaimers(c channel) {
	chanWakeClaimWaiters(c.recvSeq())
	chanWakeClaimWaiters(c.sendSeq())
}

// chanCommit ends the send (side chanSenders) or receive at position p,
// by the agent that claimed its cell: the stamp as the table says (no
// claimer), then wake the other side, and the waiters that found the cell
// mid-claim (chanWakeAfter). resultNotHolder if it does not hold it.
func chanCommit(c channel, d chanSide, p int32) int32 {
	n := c.capacity()
	if n < 1 || n > chanMaxCap || p < 0 || p >= 2*n {
		return resultCorrupted
	}
	cell := c.cellOf(p, n)
	switch s := atomicLoad(c.mem, cell); {
	case s&^chanStateMask != c.mark():
		return resultNotHolder
	case s&chanStateMask != p/n|d.full:
		return resultCorrupted
	}
	if d.send {
		atomicStore(c.mem, cell, p/n|chanFull)
	} else {
		atomicStore(c.mem, cell, p/n^chanLap)
	}
	chanWakeAfter(c, d)
	return resultOK
}

// chanWakeAfter follows a commit of side d: it wakes the other side, which
// may go on now, and whoever found the cell mid-claim (on either side).
func chanWakeAfter(c channel, d chanSide) {
	switch {
	case d.send && !brokenChanSendForgetsWake:
		chanWake(c, chanReceivers)
	case !d.send:
		chanWake(c, chanSenders)
	}
	chanWakeClaimers(c)
}

// chanClose closes the channel: resultOK, or resultClosed if it was
// already. Senders that wait wake to find it closed; receivers drain it.
func chanClose(c channel) int32 {
	for t := c.tail(); ; {
		if t&chanClosed != 0 {
			return resultClosed
		}
		got := atomicCompareExchange(c.mem, c.index+chanTailAt, t, t|chanClosed)
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
		starving := d.starving(c) && v&chanClaimWaiters == 0
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

// chanWakeClaimWaiters wakes every sleeper on the sequence word s if one
// found its cell mid-claim (chanClaimWaiters): it bumps the word, clearing
// that bit and keeping chanWaiters (a starving side's next wake-up is still
// to come). The cell was let go of, or its claimer moved on: they look again.
func chanWakeClaimWaiters(s prim) {
	for v := s.load(); v&chanClaimWaiters != 0; {
		got := s.cas(v, (v+1)&chanSeqMask|v&chanWaiters)
		if got == v {
			atomicNotify(s.mem, s.index, notifyAll)
			return
		}
		v = got
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

// chanArm is a turn of a wait for room or a message (and a select's arming,
// as a newcomer: the ops OP_CHAN_ARM_SEND, OP_CHAN_ARM_RECV): set
// chanWaiters on side d's sequence word, then look: resultOK if a claim
// would not wait now, else the word to sleep on, which the other side's
// next commit or a close changes (or, for a cell mid-claim, its let-go:
// chanClaimWaiters).
func chanArm(c channel, d chanSide, waiter bool) int32 {
	s := d.seq(c)
	v := s.load()
	for v&chanWaiters == 0 {
		got := s.cas(v, v|chanWaiters)
		if got == v {
			v |= chanWaiters
			break
		}
		v = got
	}
	for claimSeen := false; ; claimSeen = true {
		_, _, r := chanLook(c, d, waiter)
		switch {
		case r != chanInClaim && r != resultBusy:
			return resultOK
		case r == resultBusy || claimSeen:
			return v
		}
		// The cell is mid-claim: set chanClaimWaiters, then look again.
		// Whoever lets go of it (a commit, a let-go, a void) stores its
		// stamp, then wakes if the bit is set: either this look sees the
		// claimer gone, or that wake-up sees the bit.
		for v&(chanClaimWaiters|chanWaiters) != chanClaimWaiters|chanWaiters {
			got := s.cas(v, v|chanClaimWaiters|chanWaiters)
			if got == v {
				v |= chanClaimWaiters | chanWaiters
				break
			}
			v = got
		}
	}
}

// chanAwaitStep is a turn of a wait for room or a message (kindChanRoom
// and kindChanRoomWaited, on sendSeq; kindChanMsg and kindChanMsgWaited, on
// recvSeq): resultBusy at the deadline; once ready, resultOK for a
// newcomer, resultWaiter for a waiter (its caller claims as one); else the
// word to sleep on, or an error. A newcomer becomes a waiter once a
// commit's notify wakes it, and stays one (kindChan...Waited) until it has
// sent or received: a sleep that ends otherwise (the word changed before
// it slept, a watch period) must not take that back, or a starving waiter
// could find itself behind its own chanStarving.
func chanAwaitStep(c channel, d chanSide, waiter bool, t turn) int32 {
	notified := t.slept == sleptOK
	r := chanArm(c, d, waiter || notified)
	if r >= 0 && timedOut(t.deadlineMs) {
		chanGiveUp(c, d)
		return resultBusy
	}
	switch {
	case r == resultOK && (waiter || notified):
		return resultWaiter
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

// chanOwnerAt is the agent that holds the cell side d waits on (at the
// tail, at the head), for the watch: 0 if none, none it can find (idOf),
// or the slots are out of range.
func chanOwnerAt(c channel, d chanSide) int32 {
	n, p := c.capacity(), atomicLoad(c.mem, c.index+d.at)&chanPosMask
	if n < 1 || n > chanMaxCap || p >= 2*n {
		return 0
	}
	return c.idOf(atomicLoad(c.mem, c.cellOf(p, n)))
}

// chanRecover voids every cell that agent dead, which the registry says
// is DEAD, holds (see the table above): those the waiters wait on, at the
// tail and the head, and those a wait would reach later. (A look at each
// cell's stamp: the watch asks only after a wait has slept a watch period.)
func chanRecover(c channel, dead int32) int32 {
	n := c.capacity()
	if n < 1 || n > chanMaxCap {
		return resultCorrupted
	}
	for k := range n {
		if s := atomicLoad(c.mem, c.cellOf(k, n)); c.idOf(s) == dead { // (idOf: 0 for a cell nobody holds)
			chanVoidCell(c, n, k, s)
		}
	}
	return resultOK
}

// chanVoidCell voids cell k, whose stamp s names a DEAD agent.
func chanVoidCell(c channel, n, k, s int32) {
	cell := c.cellOf(k, n)
	q := k + s&chanLap*n // the position its stamp is for
	// The head, then the tail: the dead agent moved them past q (if it
	// did) before it ended, and while it holds the cell neither passes q.
	h, t := c.head()&chanPosMask, c.tail()&chanPosMask
	moved := (q-h+2*n)%(2*n) < chanCount(t, h, n) // q is in [head, tail): the tail moved past it
	next := s & chanStateMask                     // nothing claimed yet: let go
	switch {
	case brokenChanVoidForgotten, h >= 2*n, t >= 2*n:
	case s&chanFull == 0 && moved:
		next = s&chanLap | chanFull | chanVoid // a send: never sent
	case s&chanFull != 0 && !moved:
		next = s&chanLap ^ chanLap // a receive: gone with it
	}
	// Of watches that race, one swaps the stamp from s: the dead agent
	// claims nothing again, so a stamp still s is still its claim.
	if brokenChanVoidTwice {
		if atomicLoad(c.mem, cell) != s {
			return
		}
		atomicStore(c.mem, cell, next)
	} else if atomicCompareExchange(c.mem, cell, s, next) != s {
		return
	}
	chanWakeClaimers(c)
}

// The Channel's kinds of wait, for the table in wait.go. chanTurn is a
// turn of any of the four: the kind (t.kind) names the side and whether it
// is a waiter's (see chanSide). An abandon ends the side's starvation mode
// (chanGiveUp): the wait may have been the starving one, or the one woken
// to take the last cell or message.
func chanTurn(w prim, _ int32, t turn) int32 {
	d := chanSideOf(t.kind)
	return chanAwaitStep(channel{w}, d, t.kind == d.awaitWaited, t)
}

func chanSideOf(k waitKind) chanSide {
	if k == kindChanRoom || k == kindChanRoomWaited {
		return chanSenders
	}
	return chanReceivers
}

func chanRoomAbandon(w prim, _, _ int32, _ bool) int32 {
	chanGiveUp(channel{w}, chanSenders)
	return resultBusy
}
func chanMsgAbandon(w prim, _, _ int32, _ bool) int32 {
	chanGiveUp(channel{w}, chanReceivers)
	return resultBusy
}
func chanSendOwner(w prim) int32             { return chanOwnerAt(channel{w}, chanSenders) }
func chanRecvOwner(w prim) int32             { return chanOwnerAt(channel{w}, chanReceivers) }
func chanRecoverCells(w prim, d int32) int32 { return chanRecover(channel{w}, d) }
func chanVoidSenders(w prim)                 { chanVoidStarving(channel{w}, chanSenders) }
func chanVoidReceivers(w prim)               { chanVoidStarving(channel{w}, chanReceivers) }

// chanSides: the senders at 0, the receivers at 1 (OP_CHAN_WAKE's a).
var chanSides = [2]chanSide{chanSenders, chanReceivers}
