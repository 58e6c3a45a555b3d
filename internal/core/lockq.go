package core

// The lock request queues of sabmutex.locks (Web Locks' API over shared
// memory): one queue per lock name, shared by every agent of a registry
// (the page, its workers, Go agents), so that requests are granted in the
// order they were made, by Web Locks' rule, whoever made them; and a name
// with no requests takes no room. docs/decisions/lock-queue.md says why it
// is built so, and what is still to come.
//
// A table of queues lives at (mem, at). Its header, int32 slots from at:
//
//	0  guard: 0, or the id of the agent that holds the table's guard
//	1  1 once an agent has slept on the guard (every release then wakes all)
//	2  queues: how many queue slots (a power of two)
//	3  records: how many request records
//	4  where the next search for a free record begins
//	5  how many queue slots are LIVE
//
// Then the queue slots (lqQueueSlots each: an open-addressed hash table of
// the names that have requests, probed one slot after another from the
// name's hash), then the request records (lqRecSlots each).
//
// The guard. Every change to a queue slot, and to a record's place in a
// queue, is made by the agent that holds the table's guard, which holds it
// for one call and never across a wait. An agent that finds it held by
// another sleeps on it while that agent holds it (at most WATCH_MS) and
// asks again (resultBusy: lqTake); one held by an agent that has ended (the
// registry says DEAD) is taken over. So each change is written as single
// stores, each of which leaves the table whole for the next holder: a
// record is written before it is linked and unlinked before it is freed; a
// slot's name is written before the slot is LIVE. An agent that ends
// between two of them leaves at most one record that no queue links, which
// a search that finds no free record takes back (lqSweep).
//
// A queue slot:
//
//	0  state: FREE (0: no probe passes it: a probe stops here), LIVE (a
//	   name with requests), GONE (had a name: probes pass it, a new name
//	   may take it; FREE again once no LIVE name's probe passes it)
//	1  the name's hash (FNV-1a over its code units)
//	2  the name's length, in UTF-16 code units (lqMaxUnits at most)
//	3  head: the queue's first record (its first slot), 0 when empty
//	4  fast: the fast word (below)
//	5  gen: how many times the slot has been given a name
//	8  the name's code units, two a slot
//
// A slot is LIVE from its name's first request; it stays LIVE, idle, once
// its queue is empty, so that the next request of the name is one
// compare-and-swap in the glue (the fast path, below), until the table
// needs the room: when half the slots are LIVE, making a slot LIVE first
// gives the idle ones back (lqEvict: GONE, and the name takes no room).
//
// The fast word. An exclusive request of a name whose queue is empty
// and nothing held (idle) is granted by one compare-and-swap of the
// slot's fast word, 0 -> the agent's id, without the guard, and released
// by another, the agent's id -> 0 (lqFastTake, lqFastLetGo: the glue's
// fast path, which the glue inlines and browsertest's
// TestGlueAgreesWithCore compares with these): such a lock has no record.
// The glue finds the slot of a name it has requested before in a cache of
// its own, with the slot's gen as it was then: a slot given another name
// since has another gen, and a take that finds it so lets it go at once.
// Its values:
//
//	0       idle: LIVE, nothing held, nothing queued: a fast take may take it
//	X > 0   held exclusively by agent X through the fast path; nothing queued
//	-X      held by X through the fast path, with requests queued behind
//	        it: X's release finds its compare-and-swap refused, and goes
//	        through the guard (lqReleaseFast), which grants the queue's head
//	OFF     the records say what is held and queued (or the slot is not
//	        LIVE): takes go through the guard (lqFastOff)
//
//	| from   | to     | who                                                   |
//	| 0      | X      | X's fast take, without the guard                      |
//	| X      | 0      | X's fast release, without the guard                   |
//	| X      | -X     | the guard's holder, before it links a record (lqClaim) |
//	| 0      | OFF    | the same, and before it gives the slot back (lqEvict) |
//	| -X     | OFF    | the guard's holder: X's release (lqReleaseFast), X    |
//	|        |        | ended (lqClaim, lqGrant), a steal of X's lock         |
//	| OFF    | 0      | the guard's holder, once the queue is empty (lqIdle)  |
//	| -X     | X      | the same, with X still holding                        |
//
// Only X ever changes X, and only from X, and only the guard's holder
// changes any other value: so under the guard, once lqClaim has made the
// word other than 0 and X, it stays as the guard's holder leaves it. An
// agent holds at most one fast lock of a slot at once (the glue's own
// bookkeeping): its id in the word names that one lock.
//
// A record (one request):
//
//	0  state (below)   1  its agent   2  mode (lqExclusive, lqShared)
//	3  next: the next record of its queue, 0 at the tail
//	4  its queue slot   5  the table's first slot
//
// The record's state, and who changes it:
//
//	| from      | to        | who                                                      |
//	| FREE      | PENDING   | its agent, under the guard; then links it at the tail    |
//	| FREE      | GRANTED   | its agent, under the guard: grantable at once (the rule, |
//	|           |           | ifAvailable), or a steal, linked at the head             |
//	| PENDING   | GRANTED   | the guard's holder (lqGrant), which then wakes its agent |
//	| PENDING   | ABANDONED | its agent, without the guard (an abort, a timeout:       |
//	|           |           | lqAbandon); a compare-and-swap, so that a grant and an   |
//	|           |           | abandon never both win                                   |
//	| GRANTED   | STOLEN    | a steal, under the guard, which unlinks it and wakes its |
//	|           |           | agent                                                    |
//	| any       | FREE      | under the guard, unlinked: its agent's release (of a     |
//	|           |           | GRANTED, ABANDONED or STOLEN one), or a sweep (an        |
//	|           |           | ABANDONED one, or any of an agent that ended)            |
//
// The order. A queue's order is its list's: records are linked at the tail
// (a steal's at the head) and unlinked from anywhere without moving the
// rest. Its granted records are a prefix of it, since a grant only ever
// takes the queue's first pending requests. Web Locks' rule (lqGrant): the
// first pending request is granted when nothing is held, or, a shared one,
// when only shared locks are held; and so, after it, each shared request
// behind a shared one granted. An ABANDONED record counts as absent.
const (
	lqGuard     = 0
	lqSleepers  = 1
	lqQueues    = 2
	lqRecords   = 3
	lqNextFree  = 4
	lqLive      = 5
	lqHeader    = 8
	lqMaxQueues = 1 << 16
	lqMaxRecs   = 1 << 20

	lqqState     = 0
	lqqHash      = 1
	lqqLength    = 2
	lqqHead      = 3
	lqqFast      = 4
	lqqGen       = 5
	lqqName      = 8
	lqMaxUnits   = 128
	lqQueueSlots = lqqName + lqMaxUnits/2

	lqqFree = 0
	lqqLive = 1
	lqqGone = 2

	lqFastOff int32 = -1 << 31 // the fast word's OFF (agent ids are 1 to maxAgentID)

	lqrState   = 0
	lqrAgent   = 1
	lqrMode    = 2
	lqrNext    = 3
	lqrQueue   = 4
	lqrTable   = 5
	lqRecSlots = 6

	lqFree      = 0
	lqPending   = 1
	lqGranted   = 2
	lqAbandoned = 3
	lqStolen    = 4

	lqExclusive = 1
	lqShared    = 2

	// A request's flags (lqRequest).
	lqIfAvailable = 1
	lqSteal       = 2

	// The table a registry's name table holds (names.go): names with
	// requests at once, and requests at once.
	lqDefaultQueues  = 1024
	lqDefaultRecords = 4096
)

// lqOf is the lock table of the name table at t.
func lqOf(t prim) prim { return prim{t.mem, atomicLoad(t.mem, t.index+nLocks), t.self} }

// lqSlots is how many slots a table of queues queue slots and records
// request records takes (resultTooMany if either is out of range).
func lqSlots(queues, records int32) int32 {
	if queues < 1 || queues > lqMaxQueues || queues&(queues-1) != 0 || records < 1 || records > lqMaxRecs {
		return resultTooMany
	}
	return lqHeader + queues*lqQueueSlots + records*lqRecSlots
}

// lqMake sets up the zeroed slots at t as a table.
func lqMake(t prim, queues, records int32) int32 {
	if lqSlots(queues, records) < 0 || atomicLoad(t.mem, t.index+lqQueues) != 0 {
		return resultCorrupted
	}
	atomicStore(t.mem, t.index+lqRecords, records)
	atomicStore(t.mem, t.index+lqQueues, queues) // last: a table is whole once it has queues
	return resultOK
}

// lqTake takes the table's guard for this agent: resultOK; or resultBusy,
// with the guard's slot and its holder in sleepOut: sleep while the slot
// holds that id (at most WATCH_MS), then call again. The guard of an agent
// that has ended is taken over. Main thread too (it never sleeps).
func lqTake(t prim) int32 {
	g := t.index + lqGuard
	for {
		was := atomicCompareExchange(t.mem, g, 0, t.self)
		if was == 0 {
			return resultOK
		}
		if was == t.self {
			return resultCorrupted // (never held across calls)
		}
		if agentEnded(was) {
			if atomicCompareExchange(t.mem, g, was, t.self) == was {
				return resultOK
			}
			continue
		}
		atomicStore(t.mem, t.index+lqSleepers, 1)
		if atomicLoad(t.mem, g) != was {
			continue
		}
		sleepOut = [2]float64{float64(g), float64(was)}
		return resultBusy
	}
}

// lqLetGo lets the guard go, and wakes whoever sleeps on it. The sleepers'
// flag stays set once set: a release that cleared it could not know of a
// taker that set it and is about to sleep on the guard while it holds the
// same id again (its holder's next call), and that taker would sleep until
// WATCH_MS.
func lqLetGo(t prim) {
	atomicStore(t.mem, t.index+lqGuard, 0)
	if atomicLoad(t.mem, t.index+lqSleepers) != 0 {
		atomicNotify(t.mem, t.index+lqGuard, notifyAll)
	}
}

// lqFind is the LIVE queue slot of name (UTF-16 code units, two bytes
// each, low byte first); or, if create and it has none, a slot made LIVE
// for it (a GONE one on its probe first, else the FREE one that ends it),
// its fast word OFF: the caller's change makes it what it is. Idle slots
// are given back first when half are LIVE, or none is spare.
// resultNone: none, and not create; resultTooMany: every slot is LIVE and
// busy. Under the guard.
func lqFind(t prim, name []byte, create bool) int32 {
	mem, n := t.mem, atomicLoad(t.mem, t.index+lqQueues)
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	q, spare := lqProbe(t, name, h)
	if q >= 0 || !create {
		return q
	}
	if spare < 0 || atomicLoad(mem, t.index+lqLive) >= n/2 {
		lqEvict(t)
		if _, spare = lqProbe(t, name, h); spare < 0 {
			return resultTooMany
		}
	}
	atomicStore(mem, spare+lqqHash, int32(h))
	atomicStore(mem, spare+lqqLength, int32(len(name)/2))
	storeBytes(mem, spare+lqqName, name)
	atomicStore(mem, spare+lqqHead, 0)
	atomicStore(mem, spare+lqqFast, lqFastOff)
	atomicStore(mem, spare+lqqGen, atomicLoad(mem, spare+lqqGen)+1)
	atomicStore(mem, t.index+lqLive, atomicLoad(mem, t.index+lqLive)+1)
	atomicStore(mem, spare+lqqState, lqqLive) // last: a LIVE slot is whole
	return spare
}

// lqProbe looks for name (of hash h) along its probe: its LIVE slot, or
// resultNone and the first slot it could take (-1: none). Under the guard.
func lqProbe(t prim, name []byte, h uint32) (q, spare int32) {
	mem, n := t.mem, atomicLoad(t.mem, t.index+lqQueues)
	units := int32(len(name) / 2)
	spare = -1
	for i, probes := int32(h)&(n-1), int32(0); probes < n; i, probes = (i+1)&(n-1), probes+1 {
		q := t.index + lqHeader + i*lqQueueSlots
		switch atomicLoad(mem, q+lqqState) {
		case lqqLive:
			if atomicLoad(mem, q+lqqHash) == int32(h) && atomicLoad(mem, q+lqqLength) == units &&
				string(loadBytes(mem, q+lqqName, 2*units)) == string(name) {
				return q, spare
			}
			continue
		case lqqGone:
			if spare < 0 {
				spare = q
			}
			continue
		}
		if spare < 0 {
			spare = q // FREE: the probe ends here
		}
		break
	}
	return resultNone, spare
}

// lqEvict gives back every idle LIVE slot (nothing held or queued: the
// fast word 0, made OFF first, so that no fast take races it). All of
// them, not a few: a GONE slot becomes FREE only once no LIVE slot's probe
// passes it, and idle slots left LIVE would keep the GONE ones before them
// from ever ending a probe. The names in use are found again at their next
// request, and cached anew. Under the guard.
func lqEvict(t prim) {
	mem, n := t.mem, atomicLoad(t.mem, t.index+lqQueues)
	for i := range n {
		q := t.index + lqHeader + i*lqQueueSlots
		if atomicLoad(mem, q+lqqState) == lqqLive && atomicLoad(mem, q+lqqHead) == 0 &&
			atomicCompareExchange(mem, q+lqqFast, 0, lqFastOff) == 0 {
			lqGone(t, q)
		}
	}
}

// lqRequest asks for the lock name in mode (lqExclusive or lqShared), with
// flags (lqIfAvailable, lqSteal), for this agent, and returns its record:
// GRANTED (the caller holds the lock; it calls lqRelease when done) or
// PENDING (the caller waits: lqStep, and lqAbandon to give up, then
// lqRelease). resultBusy: the guard is held (lqTake); resultNone: an
// ifAvailable request that would not be granted now with nothing queued
// before it (nothing changed); resultTooMany: no free record or queue slot
// (nothing changed). Main thread too.
func lqRequest(t prim, name []byte, mode, flags int32) int32 {
	if len(name)%2 != 0 || len(name) > 2*lqMaxUnits || mode != lqExclusive && mode != lqShared ||
		flags&lqSteal != 0 && (mode != lqExclusive || flags&lqIfAvailable != 0) ||
		atomicLoad(t.mem, t.index+lqQueues) <= 0 {
		return resultCorrupted
	}
	if v := lqTake(t); v != resultOK {
		return v
	}
	defer lqLetGo(t)
	mem := t.mem
	q := lqFind(t, name, true)
	if q < 0 {
		return q
	}
	fast := lqClaim(t, q)
	lqSweep(t, q)
	// What the queue holds and whether anything is pending in it.
	held, exclusive, pending, tail := int32(0), fast != 0, false, int32(0)
	if exclusive {
		held++ // through the fast path
	}
	for r := atomicLoad(mem, q+lqqHead); r != 0; r = atomicLoad(mem, r+lqrNext) {
		switch atomicLoad(mem, r+lqrState) {
		case lqGranted:
			held++
			exclusive = exclusive || atomicLoad(mem, r+lqrMode) == lqExclusive
		case lqPending:
			pending = true
		}
		tail = r
	}
	now := !pending && (held == 0 || mode == lqShared && !exclusive)
	if flags&lqIfAvailable != 0 && !now {
		lqIdle(t, q)
		return resultNone
	}
	r := lqNewRecord(t)
	if r < 0 {
		lqIdle(t, q)
		return r
	}
	state := int32(lqPending)
	if now || flags&lqSteal != 0 {
		state = lqGranted
	}
	link := func() {
		if tail == 0 {
			atomicStore(mem, q+lqqHead, r)
		} else {
			atomicStore(mem, tail+lqrNext, r)
		}
	}
	if brokenLockLinkedFirst && flags&lqSteal == 0 {
		atomicStore(mem, r+lqrNext, 0)
		link()
	}
	for i, v := range [...]int32{t.self, mode, 0, q, t.index} {
		atomicStore(mem, r+lqrAgent+int32(i), v)
	}
	atomicStore(mem, r+lqrState, state) // last: it is taken once it is not FREE
	if flags&lqSteal != 0 {
		if fast != 0 {
			// The fast holder's lock is stolen: its release finds the word
			// neither its id nor less its id (lqReleaseFast).
			atomicStore(mem, q+lqqFast, lqFastOff)
			atomicNotify(mem, q+lqqFast, notifyAll)
		}
		lqStealFor(t, q, r)
		return r
	}
	if !brokenLockLinkedFirst {
		link()
	}
	return r
}

// lqStealFor links record r (GRANTED) at the head of queue q, once every
// granted record of q is STOLEN and unlinked (each agent woken).
func lqStealFor(t prim, q, r int32) {
	mem := t.mem
	for {
		h := atomicLoad(mem, q+lqqHead)
		if h == 0 || atomicLoad(mem, h+lqrState) != lqGranted {
			atomicStore(mem, r+lqrNext, h)
			atomicStore(mem, q+lqqHead, r)
			return
		}
		if !brokenLockStealKeepsGranted {
			atomicStore(mem, h+lqrState, lqStolen)
		}
		atomicStore(mem, q+lqqHead, atomicLoad(mem, h+lqrNext))
		atomicNotify(mem, h+lqrState, notifyAll)
	}
}

// lqNewRecord is a FREE record, its state still FREE (the caller writes
// it, then links it), or resultTooMany. Under the guard.
func lqNewRecord(t prim) int32 {
	mem := t.mem
	n := atomicLoad(mem, t.index+lqRecords)
	base := t.index + lqHeader + atomicLoad(mem, t.index+lqQueues)*lqQueueSlots
	for swept := false; ; swept = true {
		start := atomicLoad(mem, t.index+lqNextFree)
		for k := int32(0); k < n; k++ {
			i := (start + k) % n
			if atomicLoad(mem, base+i*lqRecSlots+lqrState) == lqFree {
				atomicStore(mem, t.index+lqNextFree, (i+1)%n)
				return base + i*lqRecSlots
			}
		}
		if swept {
			return resultTooMany
		}
		lqSweepAll(t, base, n)
	}
}

// lqRelease ends this agent's request r: a GRANTED one lets its lock go,
// an ABANDONED one leaves its queue; either way the queue then grants what
// its rule lets go, and a queue left empty frees its name's slot. resultOK;
// or lqStolen's result: r was STOLEN, and released nothing (resultNotHolder);
// resultBusy: the guard is held (lqTake). Main thread too.
func lqRelease(w prim) int32 {
	mem, r := w.mem, w.index
	t := prim{mem, atomicLoad(mem, r+lqrTable), w.self}
	if atomicLoad(mem, r+lqrAgent) != w.self {
		return resultNotHolder
	}
	st := atomicLoad(mem, r+lqrState)
	if st == lqFree || st == lqPending {
		return resultNotHolder // (a pending one is abandoned first)
	}
	if brokenLockFreedUnguarded && st == lqGranted {
		atomicStore(mem, r+lqrState, lqFree)
	}
	if v := lqTake(t); v != resultOK {
		return v
	}
	defer lqLetGo(t)
	q := atomicLoad(mem, r+lqrQueue)
	if atomicLoad(mem, r+lqrState) == lqStolen { // (again, under the guard: a steal may have come since st)
		atomicStore(mem, r+lqrState, lqFree)
		return resultNotHolder
	}
	lqUnlink(t, q, r) // (an ABANDONED one a grant passed is already out)
	atomicStore(mem, r+lqrState, lqFree)
	if atomicLoad(mem, q+lqqState) == lqqLive {
		lqGrant(t, q)
		lqIdle(t, q)
	}
	return resultOK
}

// lqClaim makes queue q's fast word other than 0 and X (lqFastOff, or
// less the fast holder's id), so that no fast take or release races what
// the caller, the guard's holder, does to the queue next; it returns the
// agent that holds q's lock through the fast path, or 0. A fast holder that
// has ended holds nothing. The caller ends with lqIdle. Under the guard.
func lqClaim(t prim, q int32) int32 {
	mem := t.mem
	for f := atomicLoad(mem, q+lqqFast); ; {
		next := int32(lqFastOff)
		switch {
		case f == lqFastOff:
			return 0
		case f != 0 && !agentEnded(max(f, -f)):
			if f < 0 {
				return -f
			}
			next = -f
		}
		if got := atomicCompareExchange(mem, q+lqqFast, f, next); got != f {
			f = got
			continue
		}
		if next == lqFastOff {
			return 0
		}
		return f
	}
}

// lqIdle ends a change to queue q: a queue left with no record gets its
// fast word back, 0 (the fast path may take it), or X for a fast holder
// X (its release is one compare-and-swap again). Under the guard.
func lqIdle(t prim, q int32) {
	mem := t.mem
	if atomicLoad(mem, q+lqqHead) != 0 || atomicLoad(mem, q+lqqState) != lqqLive {
		return
	}
	switch f := atomicLoad(mem, q+lqqFast); {
	case f == lqFastOff:
		atomicStore(mem, q+lqqFast, 0)
	case f < 0:
		atomicStore(mem, q+lqqFast, -f)
	}
}

// lqFastTake is the fast path's take (main thread too): queue slot w
// (w.index) for this agent, held exclusively, if it is idle and still has
// generation gen: resultOK; resultBusy, having changed nothing: go
// through the queue (OP_LOCK_REQUEST); resultMismatch: the slot has
// another name now (another gen), and the caller holds it: it lets it go
// (lqFastLetGo, then lqReleaseFast if refused) and goes through the queue.
// The caller holds no other fast lock of the slot.
func lqFastTake(w prim, gen int32) int32 {
	if atomicCompareExchange(w.mem, w.index+lqqFast, 0, w.self) != 0 {
		return resultBusy
	}
	if atomicLoad(w.mem, w.index+lqqGen) != gen && !brokenLockFastGenUnread {
		return resultMismatch
	}
	return resultOK
}

// lqFastLetGo is the fast path's release (main thread too) of the lock
// of queue slot w that this agent took with lqFastTake: resultOK; or
// resultBusy, having changed nothing: requests are queued behind it, or a
// steal took it: go through the guard (lqReleaseFast).
func lqFastLetGo(w prim) int32 {
	if atomicCompareExchange(w.mem, w.index+lqqFast, w.self, 0) == w.self {
		return resultOK
	}
	return resultBusy
}

// lqReleaseFast releases this agent's fast lock of queue slot q of table t
// once lqFastLetGo was refused: resultOK, having granted the queue's head;
// resultNotHolder: a steal took it (nothing released); resultBusy: the
// guard is held (lqTake). Main thread too.
func lqReleaseFast(t prim, q int32) int32 {
	n := atomicLoad(t.mem, t.index+lqQueues)
	if i := q - t.index - lqHeader; n <= 0 || i < 0 || i%lqQueueSlots != 0 || i/lqQueueSlots >= n {
		return resultCorrupted
	}
	if v := lqTake(t); v != resultOK {
		return v
	}
	defer lqLetGo(t)
	switch atomicLoad(t.mem, q+lqqFast) {
	case t.self: // (lqIdle gave it back meanwhile)
		atomicStore(t.mem, q+lqqFast, 0)
	case -t.self:
		atomicStore(t.mem, q+lqqFast, lqFastOff)
		if !brokenLockFastReleaseUngranted {
			lqGrant(t, q)
		}
		lqIdle(t, q)
	default:
		return resultNotHolder
	}
	return resultOK
}

// lqUnlink takes record r out of queue q, if it is there. Under the guard.
func lqUnlink(t prim, q, r int32) {
	mem := t.mem
	next := atomicLoad(mem, r+lqrNext)
	if h := atomicLoad(mem, q+lqqHead); h == r {
		atomicStore(mem, q+lqqHead, next)
	} else {
		for p := h; p != 0; p = atomicLoad(mem, p+lqrNext) {
			if atomicLoad(mem, p+lqrNext) == r {
				atomicStore(mem, p+lqrNext, next)
				return
			}
		}
	}
}

// lqGrant grants what Web Locks' rule lets go in queue q, and wakes each
// agent granted. Records that no agent will release leave the queue on the
// way: ABANDONED ones (freed by their agent's lqRelease) and those of agents
// that have ended (freed here). Under the guard.
func lqGrant(t prim, q int32) {
	mem := t.mem
	if f := atomicLoad(mem, q+lqqFast); f != lqFastOff && f != 0 {
		if !agentEnded(max(f, -f)) {
			return // held through the fast path
		}
		atomicStore(mem, q+lqqFast, lqFastOff) // (its agent ended: see lqClaim)
	}
	held, exclusive := false, false
	for r := atomicLoad(mem, q+lqqHead); r != 0; {
		next := atomicLoad(mem, r+lqrNext)
		st := atomicLoad(mem, r+lqrState)
		if ended := agentEnded(atomicLoad(mem, r+lqrAgent)); ended || st == lqAbandoned {
			lqUnlink(t, q, r)
			if ended {
				atomicStore(mem, r+lqrState, lqFree)
			}
			r = next
			continue
		}
		x := atomicLoad(mem, r+lqrMode) == lqExclusive && !brokenLockGrantIgnoresModes
		if st == lqPending {
			if exclusive || held && x {
				return
			}
			if atomicCompareExchange(mem, r+lqrState, lqPending, lqGranted) == lqPending {
				atomicNotify(mem, r+lqrState, notifyAll)
			} else {
				continue // abandoned meanwhile: look at it again
			}
		}
		held, exclusive = true, exclusive || x
		r = next
	}
}

// lqSweep takes out of queue q the records that no agent will release
// (ABANDONED ones, those of agents that have ended) and a fast lock of an
// agent that has ended, and grants what that lets go. Under the guard;
// the caller ends with lqIdle.
func lqSweep(t prim, q int32) { lqGrant(t, q) }

// lqSweepAll sweeps every LIVE queue, then frees each record that no
// queue links whose agent has ended: one that ended inside the guard,
// between writing its record and linking it, or unlinking and freeing it
// (a live agent's record is its own to free, STOLEN and ABANDONED ones
// among them). Under the guard, when no record is free.
func lqSweepAll(t prim, base, n int32) {
	mem := t.mem
	linked := make([]bool, n)
	for i := int32(0); i < atomicLoad(mem, t.index+lqQueues); i++ {
		q := t.index + lqHeader + i*lqQueueSlots
		if atomicLoad(mem, q+lqqState) != lqqLive {
			continue
		}
		lqSweep(t, q)
		for r := atomicLoad(mem, q+lqqHead); r != 0; r = atomicLoad(mem, r+lqrNext) {
			linked[(r-base)/lqRecSlots] = true
		}
		lqIdle(t, q)
	}
	for i := range n {
		r := base + i*lqRecSlots
		st := atomicLoad(mem, r+lqrState)
		if !linked[i] && st != lqFree && agentEnded(atomicLoad(mem, r+lqrAgent)) {
			atomicStore(mem, r+lqrState, lqFree)
		}
	}
}

// lqGone gives back queue slot q, LIVE and idle, its fast word made OFF
// (lqEvict): its name takes no room. The slot becomes GONE, so that probes
// pass it; then FREE,
// with the GONE slots before it, as long as no LIVE name's probe passes it
// (each LIVE slot up to the next FREE one is its name's first slot, or
// after the one looked at). Without that, GONE slots would fill the
// table, and every probe for a new name would pass them all. Under the
// guard.
func lqGone(t prim, q int32) {
	mem := t.mem
	atomicStore(mem, q+lqqState, lqqGone)
	atomicStore(mem, t.index+lqLive, atomicLoad(mem, t.index+lqLive)-1)
	n, first := atomicLoad(mem, t.index+lqQueues), t.index+lqHeader
	slot := func(i int32) int32 { return first + (i&(n-1))*lqQueueSlots }
	for k := (q - first) / lqQueueSlots; atomicLoad(mem, slot(k)+lqqState) == lqqGone; k-- {
		for j := k + 1; ; j++ {
			switch atomicLoad(mem, slot(j)+lqqState) {
			case lqqFree:
				j = -1
			case lqqLive:
				home := atomicLoad(mem, slot(j)+lqqHash) & (n - 1)
				if (j-home)&(n-1) >= (j-k)&(n-1) {
					return // its probe passes k
				}
			}
			if j < 0 || j-k >= n {
				break
			}
		}
		atomicStore(mem, slot(k)+lqqState, lqqFree)
	}
}

// lqStep is one turn of a wait for request w (a record) to be granted:
// resultOK once it is (or was, and a steal has taken it since: its
// release then says so); else PENDING, the value to sleep on w's state
// while it holds. Main thread too.
func lqStep(w prim) int32 {
	switch atomicLoad(w.mem, w.index+lqrState) {
	case lqGranted, lqStolen:
		return resultOK
	case lqPending:
		return lqPending
	}
	return resultCorrupted
}

// lqAbandon gives up this agent's pending request w (an abort, a
// timeout), without the guard: resultBusy, and the caller then calls
// lqRelease, which takes it out of its queue; or resultOK, when it was
// granted first (the caller holds the lock, as if it had not given up; or
// held it, if a steal has taken it since). Main thread too.
func lqAbandon(w prim) int32 {
	switch atomicCompareExchange(w.mem, w.index+lqrState, lqPending, lqAbandoned) {
	case lqPending:
		return resultBusy
	case lqGranted, lqStolen:
		return resultOK
	}
	return resultCorrupted
}

// lqRepair is what a wait that has slept WATCH_MS through does for its
// request w: sweeps and grants its queue, if the guard is free (or its
// holder ended), for what an agent that ended may have left undone (a
// grant it owed). Main thread too.
func lqRepair(w prim) {
	t := prim{w.mem, atomicLoad(w.mem, w.index+lqrTable), w.self}
	if lqTake(t) != resultOK {
		return
	}
	q := atomicLoad(w.mem, w.index+lqrQueue)
	lqSweep(t, q)
	lqIdle(t, q)
	lqLetGo(t)
}

// lqHolder is the agent that holds the first granted lock of request w's
// queue (0: none): its fast holder, or its head's; for the watch. Read
// without the guard: a hint.
func lqHolder(w prim) int32 {
	q := atomicLoad(w.mem, w.index+lqrQueue)
	if f := atomicLoad(w.mem, q+lqqFast); f != lqFastOff && f != 0 {
		return max(f, -f)
	}
	h := atomicLoad(w.mem, q+lqqHead)
	if h == 0 || h == w.index {
		return 0
	}
	return atomicLoad(w.mem, h+lqrAgent)
}

// lqQuery is what every queue of table t holds, in one text (int32s, low
// byte first): for each LIVE queue, its name's length in code units and
// its code units (two bytes each, then two zero bytes if the count is
// odd), the number of its requests, and for each, in the queue's order:
// its agent, mode and state (GRANTED or PENDING; ABANDONED ones are left
// out). Returns the text's length (textOut), or resultBusy (lqTake). Main
// thread too.
func lqQuery(t prim) int32 {
	if v := lqTake(t); v != resultOK {
		return v
	}
	defer lqLetGo(t)
	mem := t.mem
	var b []byte
	put := func(v int32) { b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	for i := int32(0); i < atomicLoad(mem, t.index+lqQueues); i++ {
		q := t.index + lqHeader + i*lqQueueSlots
		if atomicLoad(mem, q+lqqState) != lqqLive {
			continue
		}
		lqSweep(t, q)
		lqIdle(t, q)
		f := atomicLoad(mem, q+lqqFast)
		if f == 0 {
			continue // idle: nothing held or queued
		}
		units := atomicLoad(mem, q+lqqLength)
		put(units)
		b = append(b, loadBytes(mem, q+lqqName, (units+1)/2*4)...)
		count := len(b)
		put(0)
		n := int32(0)
		if f != lqFastOff {
			put(max(f, -f)) // the fast holder, first
			put(lqExclusive)
			put(lqGranted)
			n++
		}
		for r := atomicLoad(mem, q+lqqHead); r != 0; r = atomicLoad(mem, r+lqrNext) {
			if st := atomicLoad(mem, r+lqrState); st == lqGranted || st == lqPending {
				put(atomicLoad(mem, r+lqrAgent))
				put(atomicLoad(mem, r+lqrMode))
				put(st)
				n++
			}
		}
		b[count], b[count+1], b[count+2], b[count+3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	}
	return textOut(b)
}
