package core

// The lock request queues of sabmutex.locks (Web Locks' API over shared
// memory): one queue per lock name, shared by every agent of a registry
// (the page, its workers, Go agents), so that requests are granted in the
// order they were made, by Web Locks' rule, whoever made them. No limit but
// memory: names of any length, any number of names, queues of any depth;
// a name with no requests takes no room for long. docs/decisions/lock-queue.md
// says why it is built so, docs/decisions/lock-queue-growth.md how it grows.
//
// A table lives at (mem, at), the last thing in its memory (the registry's
// buffer, growable): what it holds past its header is allocated from a heap
// that begins where the header ends and grows the memory on demand
// (lqAllocBlock, through the host's Grow). Nothing allocated ever moves: a
// queue, a record, once allocated, stays at its slot, so an agent may keep
// its index (the glue's cache of a name's queue, a request's record) while
// the table grows around it. The header, int32 slots from at:
//
//	0  guard: 0, or the id of the agent that holds the table's guard
//	1  1 once an agent has slept on the guard (every release then wakes all)
//	2  index: the first slot of the names' index (below)
//	3  live: how many queues the index holds (a count, kept under the guard)
//	4  used: how many of the index's entries are not EMPTY (live + tombstones)
//	5  heap: the heap's end, the first slot no allocation has reached
//	6  the free records (a list through their next slot), 0: none
//	8  the free queues of each size (a list through their lqqNextFree
//	   slot), 32 lists: list c holds queues of 2^c slots
//	40 the free plain blocks (the index's old arrays) of each size, 32 lists
//
// The guard. Every change to the table but the fast word and a record's
// abandon is made by the agent that holds the table's guard, which holds it
// for one call and never across a wait. An agent that finds it held by
// another sleeps on it while that agent holds it (at most WATCH_MS) and
// asks again (resultBusy: lqGuardTake); one held by an agent that has ended
// (the registry says DEAD) is taken over. So each change is written as
// single stores, each of which leaves the table whole for the next holder:
// a record is written before it is linked and unlinked before it is freed;
// a queue's name is written before the index holds it; a new index is
// filled before the header holds it. An agent that ends between two of
// them leaves at most one block that nothing links (a record, a queue, an
// index array): lost room, never a wrong table.
//
// The view. An agent reaches the memory through a view of its own (in a
// browser, an Int32Array over the buffer's length when it last looked),
// which another agent's growth leaves short. So the guard's holder first
// covers the heap's end (lqCover: the host's Grow, which makes the view
// reach it), and every index that the table's words hold is then inside its
// view. Without the guard, an agent reaches only its own records and the
// queues its own requests found, both inside the view it had then.
//
// The index: an open-addressed hash table of the names that have queues,
// probed one entry after another from the name's hash. Its first slot holds
// how many entries it has (2^c - 1, in a block of 2^c slots), then the
// entries: EMPTY (0: a probe stops here), TOMB (-1: a name was here;
// probes pass it) or a queue's first slot. When an insert would leave it
// more than three-quarters used, lqRehash first gives back the idle queues
// (lqEvict), then builds a new array with room for four times the live
// names, and publishes it with one store.
//
// A queue (a block of 2^c slots, 16 at least):
//
//	0  state: FREE (on a free list) or LIVE (the index holds it)
//	1  the name's hash (FNV-1a over its code units)
//	2  the name's length, in UTF-16 code units
//	3  head: the queue's first record, 0 when empty
//	4  fast: the fast word (below)
//	5  gen: how many times the queue has been given a name
//	6  tail: the queue's last record (a hint: see lqTail)
//	7  the next free queue of its size, on a free list
//	8  run: the fast holder's run (below)
//	9  the first record a steal made of the run (below)
//	10 the name's code units, two a slot
//
// A queue is LIVE from its name's first request; it stays LIVE, idle, once
// it is empty, so that the next request of the name is one
// compare-and-swap in the glue (the fast path, below), until the index
// needs the room: then the idle ones are given back (lqEvict: FREE, on the
// free list of their size, the name takes no room). A queue is only ever
// reused as a queue (a stale cache's fast take may touch it: below).
//
// The fast word. An exclusive request of a name whose queue is empty
// and nothing held (idle) is granted by one compare-and-swap of the
// queue's fast word, 0 -> the agent's id, without the guard, and released
// by another, the agent's id -> 0 (lqFastTake, lqFastLetGo: the glue's
// fast path, which the glue inlines and browsertest's
// TestGlueAgreesWithCore compares with these): such a lock has no record.
// The glue finds the queue of a name it has requested before in a cache of
// its own, with the queue's gen as it was then: a queue given another name
// since has another gen, and a take that finds it so lets it go at once.
// Its values:
//
//	0       idle: LIVE, nothing held, nothing queued: a fast take may take it
//	X > 0   held exclusively by agent X through the fast path; nothing queued
//	-X      held by X through the fast path, with requests queued behind
//	        it: X's release finds its compare-and-swap refused, and goes
//	        through the guard (lqReleaseFast), which grants the queue's head
//	OFF     the records say what is held and queued (or the queue is not
//	        LIVE): takes go through the guard (lqFastOff)
//
//	| from   | to     | who                                                   |
//	| 0      | X      | X's fast take, without the guard                      |
//	| X      | 0      | X's fast release, without the guard                   |
//	| X      | -X     | the guard's holder, before it links a record (lqClaim) |
//	| 0      | OFF    | the same, and before it gives the queue back (lqEvict) |
//	| -X     | OFF    | the guard's holder: X's release (lqReleaseFast), X    |
//	|        |        | ended (lqClaim, lqGrant), a steal of X's lock         |
//	| OFF    | 0      | the guard's holder, once the queue is empty (lqIdle)  |
//	| -X     | X      | the same, with X still holding                        |
//	| OFF    | X      | the same, making X's granted record, the queue's only |
//	|        |        | one, X's fast lock instead (lqToFast)                 |
//
// Only X ever changes X, and only from X, and only the guard's holder
// changes any other value: so under the guard, once lqClaim has made the
// word other than 0 and X, it stays as the guard's holder leaves it. An
// agent holds at most one fast lock of a queue at once (the glue's own
// bookkeeping): its id in the word names that one lock.
//
// The run. While agent X holds a queue's fast lock, the exclusive requests
// that X makes of the name next (its other tasks', in the glue) may wait
// in X, behind its lock and ahead of every record: the queue's run word
// counts them, and X hands its lock from one to the next without the guard
// (lqRunAdd, lqRunNext: the glue inlines them, and browsertest's
// TestGlueAgreesWithCore compares them with these). They are requests of
// the queue as any: made in order, granted in order (a record queued
// behind them seals the run first), listed by lqQuery, robbed by a steal
// (which makes them records). They have no record: an agent that ends
// takes its run with it. The word: a count n (< 2^16), a tag (13 bits,
// one more each time the queue is idle again: so that an add by an agent
// that read the word in its own time as the holder never lands in a later
// holder's, whatever the count then), and two flags:
//
//	n         n requests of X wait in X behind its lock
//	SEALED    a record is queued behind them: X adds no more (its next
//	          requests go through the guard, behind that record)
//	STOLEN    a steal took X's lock and made the run records (count 0), in
//	          its order, linked right after the stealer's: slot 9 holds the
//	          first, the rest follow through their next slots (lqRunRecords);
//	          X's hand-off finds its lock stolen and adopts them (lqRunAdopt)
//
//	| from       | to          | who                                               |
//	| n          | n+1         | X, holding the fast lock (lqRunAdd)               |
//	| n (> 0)    | n-1         | X, handing its lock on (lqRunNext); SEALED kept    |
//	| n          | n, SEALED   | the guard's holder, once it has made the fast word |
//	|            |             | -X, before it links a record (lqClaim)            |
//	| n, SEALED  | n           | the guard's holder, as the fast word goes back to |
//	|            |             | X (lqIdle)                                        |
//	| n, SEALED  | STOLEN      | a steal of X's lock (n > 0), before it makes the  |
//	|            |             | fast word OFF (lqRunRecords)                      |
//	| any, tag t | 0, tag t+1  | the guard's holder, before the fast word goes     |
//	|            |             | OFF -> 0 (lqIdle)                                 |
//
// So a request that X adds to its run is ahead of every record linked
// after it (the seal comes before the link, and X's add fails once
// sealed), and behind every record linked before it (one linked, the run
// is sealed until the queue holds no record again).
//
// A record (one request, 8 slots):
//
//	0  state (below)   1  its agent   2  mode (lqExclusive, lqShared)
//	3  next: the next record of its queue, 0 at the tail (on the free
//	   list: the next free record)
//	4  its queue   5  the table's first slot
//
// The record's state, and who changes it:
//
//	| from      | to        | who                                                      |
//	| FREE      | PENDING   | its agent, under the guard; then links it at the tail    |
//	| FREE      | GRANTED   | its agent, under the guard: grantable at once (the rule, |
//	|           |           | ifAvailable), or a steal, linked at the head             |
//	| FREE      | PENDING   | a steal of a fast lock, for the holder's run, linked     |
//	|           |           | after the stealer's (lqRunRecords)                       |
//	| PENDING   | GRANTED   | the guard's holder (lqGrant), which then wakes its agent |
//	| PENDING   | ABANDONED | its agent, without the guard (an abort, a timeout:       |
//	|           |           | lqAbandon); a compare-and-swap, so that a grant and an   |
//	|           |           | abandon never both win                                   |
//	| GRANTED   | STOLEN    | a steal, under the guard, which unlinks it and wakes its |
//	|           |           | agent                                                    |
//	| any       | FREE      | under the guard, unlinked: its agent's release (of a     |
//	|           |           | GRANTED, ABANDONED or STOLEN one), or a grant's sweep    |
//	|           |           | (one of an agent that ended); then onto the free list    |
//
// The order. A queue's order is its list's: records are linked at the tail
// (a steal's at the head) and unlinked from anywhere without moving the
// rest. Its granted records are a prefix of it, since a grant only ever
// takes the queue's first pending requests. Web Locks' rule (lqGrant): the
// first pending request is granted when nothing is held, or, a shared one,
// when only shared locks are held; and so, after it, each shared request
// behind a shared one granted. An ABANDONED record counts as absent.
const (
	lqhGuard     = 0
	lqhSleepers  = 1
	lqhIndex     = 2
	lqhLive      = 3
	lqhUsed      = 4
	lqhHeap      = 5
	lqhFreeRecs  = 6
	lqhFreeQueue = 8  // + c: the free queues of 2^c slots
	lqhFreePlain = 40 // + c: the free plain blocks of 2^c slots
	lqHeader     = 72

	lqIndexAtRest = 64 // the index's first block: 63 entries
	lqEmpty       = 0  // an index entry: no name (a probe stops)
	lqTomb        = -1 // an index entry: a name was here (a probe passes)

	lqqState     = 0
	lqqHash      = 1
	lqqLength    = 2
	lqqHead      = 3
	lqqFast      = 4
	lqqGen       = 5
	lqqTail      = 6
	lqqNextFree  = 7
	lqqRun       = 8
	lqqRunFirst  = 9
	lqqName      = 10
	lqQueueAtMin = 16 // a queue's smallest block: names of up to 12 code units

	lqRunCount  int32 = 1<<16 - 1           // the run word's count
	lqRunTagOne int32 = 1 << 16             // its tag's unit
	lqRunTags   int32 = 1<<29 - lqRunTagOne // its tag
	lqRunStolen int32 = 1 << 29             // made records by a steal
	lqRunSealed int32 = 1 << 30             // a record queued behind

	queueFree = 0
	queueLive = 1

	lqFastOff int32 = -1 << 31 // the fast word's OFF (agent ids are 1 to maxAgentID)

	lqrState   = 0
	lqrAgent   = 1
	lqrMode    = 2
	lqrNext    = 3
	lqrQueue   = 4
	lqrTable   = 5
	lqRecSlots = 8

	reqFree      = 0
	reqPending   = 1
	reqGranted   = 2
	reqAbandoned = 3
	reqStolen    = 4

	lqExclusive = 1
	lqShared    = 2

	// A request's flags (lqRequest).
	lqIfAvailable = 1
	lqSteal       = 2
)

// lqOf is the lock table of the name table at t.
func lqOf(t prim) prim { return prim{t.mem, atomicLoad(t.mem, t.index+nLocks), t.self} }

// lqSlots is how many slots a table takes at rest (its header and its
// index's first block); it grows from there.
func lqSlots() int32 { return lqHeader + lqIndexAtRest }

// lqMake sets up the zeroed slots at t, the last lqSlots() of their
// memory, as a table.
func lqMake(t prim) int32 {
	if atomicLoad(t.mem, t.index+lqhIndex) != 0 {
		return resultCorrupted
	}
	index := t.index + lqHeader
	atomicStore(t.mem, index, lqIndexAtRest-1)
	atomicStore(t.mem, t.index+lqhHeap, index+lqIndexAtRest)
	atomicStore(t.mem, t.index+lqhIndex, index) // last: a table is whole once it has an index
	return resultOK
}

// lqGuardTake takes the table's guard for this agent: resultOK; or
// resultBusy, with the guard's slot and its holder in sleepOut: sleep while
// the slot holds that id (at most WATCH_MS), then call again. The guard of
// an agent that has ended is taken over. Once it has the guard, it covers
// the heap (lqCover). Main thread too (it never sleeps).
func lqGuardTake(t prim) int32 {
	g := t.index + lqhGuard
	for {
		was := atomicCompareExchange(t.mem, g, 0, t.self)
		if was == 0 || agentEnded(was) && was != t.self && atomicCompareExchange(t.mem, g, was, t.self) == was {
			if lqCover(t) != resultOK {
				lqGuardLetGo(t) // (a caller that is refused never lets it go)
				return resultCorrupted
			}
			return resultOK
		}
		if was == t.self {
			return resultCorrupted // (never held across calls)
		}
		if agentEnded(was) {
			continue
		}
		atomicStore(t.mem, t.index+lqhSleepers, 1)
		if atomicLoad(t.mem, g) != was {
			continue
		}
		sleepOut = [2]float64{float64(g), float64(was)}
		return resultBusy
	}
}

// lqGuardLetGo lets the guard go, and wakes whoever sleeps on it. The
// sleepers' flag stays set once set: a release that cleared it could not
// know of a taker that set it and is about to sleep on the guard while it
// holds the same id again (its holder's next call), and that taker would
// sleep until WATCH_MS.
func lqGuardLetGo(t prim) {
	atomicStore(t.mem, t.index+lqhGuard, 0)
	if atomicLoad(t.mem, t.index+lqhSleepers) != 0 {
		atomicNotify(t.mem, t.index+lqhGuard, notifyAll)
	}
}

// lqCover makes this agent's view of the memory reach the heap's end, as
// another agent may have grown it: resultOK. Under the guard, or before a
// look without it (lqHolder). A view only ever grows, so the host is asked
// only past the end this agent's view last reached (lqCovered: one core
// per agent, one lock table per registry).
func lqCover(t prim) int32 {
	end := atomicLoad(t.mem, t.index+lqhHeap)
	if c := &lqCovered; c.mem == t.mem && c.table == t.index && end <= c.end {
		return resultOK
	}
	if memGrow(t.mem, end) < end {
		return resultCorrupted // (the memory was that long: it never shrinks)
	}
	lqCovered = struct{ mem, table, end int32 }{t.mem, t.index, end}
	return resultOK
}

// lqCovered is the lock table whose heap this agent's view last reached
// (lqCover), and the heap's end then.
var lqCovered struct{ mem, table, end int32 }

// lqClass is the c of the smallest block of 2^c slots that holds n slots
// (8 at least); -1 past 2^30.
func lqClass(n int32) int32 {
	c := int32(3)
	for int32(1)<<c < n {
		if c++; c > 30 {
			return -1
		}
	}
	return c
}

// lqAllocBlock is a block of 2^c slots, from free list list (a header slot) if
// it holds one (its link at slot link of the block), else from the heap's
// end, growing the memory: resultTooMany when the memory can grow no more.
// A block from the heap is zeroed; one from a list is as it was freed.
// Under the guard.
func lqAllocBlock(t prim, c, list, link int32) int32 {
	mem := t.mem
	if c < 0 {
		return resultTooMany
	}
	if b := atomicLoad(mem, t.index+list); b != 0 {
		atomicStore(mem, t.index+list, atomicLoad(mem, b+link))
		return b
	}
	b := atomicLoad(mem, t.index+lqhHeap)
	end := int64(b) + int64(1)<<c
	if end > 1<<31-1 || memGrow(mem, int32(end)) < int32(end) {
		return resultTooMany
	}
	atomicStore(mem, t.index+lqhHeap, int32(end))
	lqCovered = struct{ mem, table, end int32 }{mem, t.index, int32(end)}
	return b
}

// lqFreeBlock puts block b on free list list (its link at slot link of b).
// Under the guard.
func lqFreeBlock(t prim, b, list, link int32) {
	atomicStore(t.mem, b+link, atomicLoad(t.mem, t.index+list))
	atomicStore(t.mem, t.index+list, b)
}

// lqHash is FNV-1a over name's bytes.
func lqHash(name []byte) int32 {
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	return int32(h)
}

// lqFind is the LIVE queue of name (UTF-16 code units, two bytes each, low
// byte first); or, if create and it has none, a queue made LIVE for it, its
// fast word OFF: the caller's change makes it what it is. resultNone:
// none, and not create; resultTooMany: the memory can grow no more. Under
// the guard.
func lqFind(t prim, name []byte, create bool) int32 {
	mem, h := t.mem, lqHash(name)
	q, _ := lqProbe(t, name, h)
	if q >= 0 || !create {
		return q
	}
	index := atomicLoad(mem, t.index+lqhIndex)
	n := atomicLoad(mem, index)
	if used := atomicLoad(mem, t.index+lqhUsed); used+1 > n-n/4 {
		if r := lqRehash(t); r != resultOK {
			return r
		}
	}
	c := lqClass(lqqName + int32((len(name)+3)/4))
	c = max(c, lqClass(lqQueueAtMin))
	q = lqAllocBlock(t, c, lqhFreeQueue+c, lqqNextFree)
	if q < 0 {
		return q
	}
	atomicStore(mem, q+lqqHash, h)
	atomicStore(mem, q+lqqLength, int32(len(name)/2))
	storeBytes(mem, q+lqqName, name)
	atomicStore(mem, q+lqqHead, 0)
	atomicStore(mem, q+lqqTail, 0)
	atomicStore(mem, q+lqqFast, lqFastOff)
	atomicStore(mem, q+lqqGen, atomicLoad(mem, q+lqqGen)+1)
	atomicStore(mem, q+lqqState, queueLive)
	_, e := lqProbe(t, name, h)
	if e < 0 { // (counts an agent that ended left wrong: no room after all)
		if r := lqRehash(t); r != resultOK {
			atomicStore(mem, q+lqqState, queueFree)
			lqFreeBlock(t, q, lqhFreeQueue+c, lqqNextFree)
			return r
		}
		_, e = lqProbe(t, name, h)
	}
	if atomicLoad(mem, e) == lqEmpty {
		atomicStore(mem, t.index+lqhUsed, atomicLoad(mem, t.index+lqhUsed)+1)
	}
	atomicStore(mem, e, q) // the name is found from here on
	atomicStore(mem, t.index+lqhLive, atomicLoad(mem, t.index+lqhLive)+1)
	return q
}

// lqProbe looks for name (of hash h) along its probe: its LIVE queue, or
// resultNone and the first entry a new queue of it could take (-1: none
// in the whole index). Under the guard.
func lqProbe(t prim, name []byte, h int32) (q, spare int32) {
	mem := t.mem
	index := atomicLoad(mem, t.index+lqhIndex)
	n := atomicLoad(mem, index)
	units := int32(len(name) / 2)
	spare = -1
	for i, probes := int32(uint32(h)%uint32(n)), int32(0); probes < n; i, probes = (i+1)%n, probes+1 {
		e := index + 1 + i
		switch q := atomicLoad(mem, e); q {
		case lqEmpty:
			if spare < 0 {
				spare = e
			}
			return resultNone, spare
		case lqTomb:
			if spare < 0 {
				spare = e
			}
		default:
			if atomicLoad(mem, q+lqqHash) == h && atomicLoad(mem, q+lqqLength) == units &&
				string(loadBytes(mem, q+lqqName, 2*units)) == string(name) {
				return q, spare
			}
		}
	}
	return resultNone, spare
}

// lqRehash gives back every idle queue (lqEvict), then moves the index's
// live names into a new array with room for four times as many (7 entries
// at least), published with one store, and frees the old one. Under the
// guard.
func lqRehash(t prim) int32 {
	mem := t.mem
	lqEvict(t)
	old := atomicLoad(mem, t.index+lqhIndex)
	n := atomicLoad(mem, old)
	live := int32(0)
	for i := range n {
		if q := atomicLoad(mem, old+1+i); q != lqEmpty && q != lqTomb {
			live++
		}
	}
	c := lqClass(4 * (live + 1))
	index := lqAllocBlock(t, c, lqhFreePlain+c, 1)
	if index < 0 {
		return index
	}
	m := int32(1)<<c - 1
	for i := range m {
		atomicStore(mem, index+1+i, lqEmpty) // (a block from the free list is as it was freed)
	}
	atomicStore(mem, index, m)
	if brokenLockIndexPublishedFirst {
		atomicStore(mem, t.index+lqhIndex, index)
	}
	for i := range n {
		q := atomicLoad(mem, old+1+i)
		if q == lqEmpty || q == lqTomb {
			continue
		}
		j := int32(uint32(atomicLoad(mem, q+lqqHash)) % uint32(m))
		for atomicLoad(mem, index+1+j) != lqEmpty {
			j = (j + 1) % m
		}
		atomicStore(mem, index+1+j, q)
	}
	atomicStore(mem, t.index+lqhIndex, index) // the new index, whole
	atomicStore(mem, t.index+lqhLive, live)
	atomicStore(mem, t.index+lqhUsed, live)
	lqFreeBlock(t, old, lqhFreePlain+lqClass(n+1), 1)
	return resultOK
}

// lqEvict gives back every idle LIVE queue (nothing held or queued: the
// fast word 0, made OFF first, so that no fast take races it): its index
// entry becomes TOMB, then the queue FREE on its free list. All of them,
// not a few: the rehash that follows drops the tombs. The names in use are
// found again at their next request, and cached anew. Under the guard.
func lqEvict(t prim) {
	mem := t.mem
	index := atomicLoad(mem, t.index+lqhIndex)
	n := atomicLoad(mem, index)
	for i := range n {
		q := atomicLoad(mem, index+1+i)
		if q == lqEmpty || q == lqTomb || atomicLoad(mem, q+lqqHead) != 0 ||
			atomicCompareExchange(mem, q+lqqFast, 0, lqFastOff) != 0 {
			continue
		}
		atomicStore(mem, index+1+i, lqTomb)
		atomicStore(mem, t.index+lqhLive, atomicLoad(mem, t.index+lqhLive)-1)
		atomicStore(mem, q+lqqState, queueFree)
		c := lqClass(lqqName + (atomicLoad(mem, q+lqqLength)+1)/2)
		lqFreeBlock(t, q, lqhFreeQueue+max(c, lqClass(lqQueueAtMin)), lqqNextFree)
	}
}

// lqRequest asks for the lock name in mode (lqExclusive or lqShared), with
// flags (lqIfAvailable, lqSteal), for this agent, and returns its record:
// GRANTED (the caller holds the lock; it calls lqRelease when done) or
// PENDING (the caller waits: lqStep, and lqAbandon to give up, then
// lqRelease). resultBusy: the guard is held (lqGuardTake); resultNone: an
// ifAvailable request that would not be granted now with nothing queued
// before it (nothing changed); resultTooMany: the memory can grow no more
// (nothing changed). Main thread too.
func lqRequest(t prim, name []byte, mode, flags int32) int32 {
	if len(name)%2 != 0 || mode != lqExclusive && mode != lqShared ||
		flags&lqSteal != 0 && (mode != lqExclusive || flags&lqIfAvailable != 0) ||
		atomicLoad(t.mem, t.index+lqhIndex) <= 0 {
		return resultCorrupted
	}
	if len(name) > 1<<31-1-4*lqqName {
		return resultTooMany
	}
	if v := lqGuardTake(t); v != resultOK {
		return v
	}
	defer lqGuardLetGo(t)
	mem := t.mem
	q := lqFind(t, name, true)
	if q < 0 {
		return q
	}
	fast := lqClaim(t, q)
	lqGrant(t, q) // (sweeps the queue's head of what no agent will release)
	held, exclusive, pending := lqHeld(t, q, fast)
	now := !pending && (!held || mode == lqShared && !exclusive)
	if flags&lqIfAvailable != 0 && !now {
		lqIdle(t, q)
		return resultNone
	}
	r := lqAllocBlock(t, lqClass(lqRecSlots), lqhFreeRecs, lqrNext)
	if r < 0 {
		lqIdle(t, q)
		return r
	}
	var runFirst, runLast int32 // a robbed fast holder's run, made records
	if flags&lqSteal != 0 && fast != 0 {
		if runFirst, runLast = lqRunRecords(t, q, fast); runFirst < 0 {
			lqFreeBlock(t, r, lqhFreeRecs, lqrNext)
			lqIdle(t, q)
			return runFirst
		}
	}
	state := int32(reqPending)
	if now || flags&lqSteal != 0 {
		state = reqGranted
	}
	if brokenLockLinkedFirst && flags&lqSteal == 0 {
		atomicStore(mem, r+lqrNext, 0)
		lqLink(t, q, r)
	}
	for i, v := range [...]int32{t.self, mode, 0, q, t.index} {
		atomicStore(mem, r+lqrAgent+int32(i), v)
	}
	atomicStore(mem, r+lqrState, state) // last: it is taken once it is not FREE
	if flags&lqSteal != 0 {
		if fast != 0 {
			// The fast holder's lock is stolen: its release finds the word
			// neither X nor -X (lqReleaseFast).
			atomicStore(mem, q+lqqFast, lqFastOff)
			atomicNotify(mem, q+lqqFast, notifyAll)
		}
		lqStealFor(t, q, r, runFirst, runLast)
		return r
	}
	if !brokenLockLinkedFirst {
		lqLink(t, q, r)
	}
	return r
}

// lqHeld is what queue q holds, its head swept (lqGrant): whether anything
// is held, exclusively, and whether a request is pending. The granted
// records are a prefix of the queue, an exclusive one alone: so the head
// says what is held, and the tail whether any is pending, but for an
// ABANDONED tail (its agent about to release it), when the queue is read
// through. Under the guard.
func lqHeld(t prim, q, fast int32) (held, exclusive, pending bool) {
	mem := t.mem
	if fast != 0 {
		held, exclusive = true, true
	}
	h := atomicLoad(mem, q+lqqHead)
	if h != 0 && atomicLoad(mem, h+lqrState) == reqGranted {
		held = true
		exclusive = exclusive || atomicLoad(mem, h+lqrMode) == lqExclusive
	}
	if h == 0 {
		return
	}
	switch atomicLoad(mem, lqTail(t, q)+lqrState) {
	case reqPending:
		pending = true
	case reqAbandoned:
		for r := h; r != 0 && !pending; r = atomicLoad(mem, r+lqrNext) {
			pending = atomicLoad(mem, r+lqrState) == reqPending
		}
	}
	return
}

// lqTail is queue q's last record (q not empty). The tail slot is a hint:
// an agent that ended between linking a record and writing the tail left
// it one short, and a look forward from it finds the last. Under the guard.
func lqTail(t prim, q int32) int32 {
	mem := t.mem
	r := atomicLoad(mem, q+lqqTail)
	if r == 0 {
		r = atomicLoad(mem, q+lqqHead)
	}
	for next := atomicLoad(mem, r+lqrNext); next != 0; next = atomicLoad(mem, r+lqrNext) {
		r = next
	}
	return r
}

// lqLink links record r (written, FREE no more) at queue q's tail. Under
// the guard.
func lqLink(t prim, q, r int32) {
	mem := t.mem
	if atomicLoad(mem, q+lqqHead) == 0 {
		atomicStore(mem, q+lqqTail, r)
		atomicStore(mem, q+lqqHead, r)
		return
	}
	atomicStore(mem, lqTail(t, q)+lqrNext, r)
	atomicStore(mem, q+lqqTail, r)
}

// lqStealFor links record r (GRANTED) at the head of queue q, once every
// granted record of q is STOLEN and unlinked (each agent woken); and
// right after it, the robbed fast holder's run made records (first ..
// last, linked one to the next; 0: none), ahead of every other.
func lqStealFor(t prim, q, r, first, last int32) {
	mem := t.mem
	for {
		h := atomicLoad(mem, q+lqqHead)
		if h == 0 || atomicLoad(mem, h+lqrState) != reqGranted {
			end := r
			if first != 0 {
				atomicStore(mem, last+lqrNext, h)
				end = last
			}
			if h == 0 {
				atomicStore(mem, q+lqqTail, end)
			}
			if first != 0 {
				atomicStore(mem, r+lqrNext, first)
			} else {
				atomicStore(mem, r+lqrNext, h)
			}
			atomicStore(mem, q+lqqHead, r)
			return
		}
		if !brokenLockStealKeepsGranted {
			atomicStore(mem, h+lqrState, reqStolen)
		}
		if atomicLoad(mem, q+lqqTail) == h {
			atomicStore(mem, q+lqqTail, 0) // (lqTail then begins at the head)
		}
		atomicStore(mem, q+lqqHead, atomicLoad(mem, h+lqrNext))
		atomicNotify(mem, h+lqrState, notifyAll)
	}
}

// lqRelease ends this agent's request r: a GRANTED one lets its lock go,
// an ABANDONED one leaves its queue; either way the queue then grants what
// its rule lets go, and the record is freed. resultOK; or lqStolen's
// result: r was STOLEN, and released nothing (resultNotHolder); resultBusy:
// the guard is held (lqGuardTake). Main thread too.
func lqRelease(w prim) int32 {
	mem, r := w.mem, w.index
	t := prim{mem, atomicLoad(mem, r+lqrTable), w.self}
	if atomicLoad(mem, r+lqrAgent) != w.self {
		return resultNotHolder
	}
	st := atomicLoad(mem, r+lqrState)
	if st == reqFree || st == reqPending {
		return resultNotHolder // (a pending one is abandoned first)
	}
	if brokenLockFreedUnguarded && st == reqGranted {
		atomicStore(mem, r+lqrState, reqFree)
	}
	if v := lqGuardTake(t); v != resultOK {
		return v
	}
	defer lqGuardLetGo(t)
	q := atomicLoad(mem, r+lqrQueue)
	result := int32(resultOK)
	if atomicLoad(mem, r+lqrState) == reqStolen { // (again, under the guard: a steal may have come since st)
		result = resultNotHolder
	} else {
		lqUnlink(t, q, r) // (an ABANDONED one a grant passed is already out)
	}
	atomicStore(mem, r+lqrState, reqFree)
	lqFreeBlock(t, r, lqhFreeRecs, lqrNext)
	if result == resultOK && atomicLoad(mem, q+lqqState) == queueLive {
		lqGrant(t, q)
		lqIdle(t, q)
	}
	return result
}

// lqClaim makes queue q's fast word other than 0 and X (lqFastOff, or -X
// for the fast holder X), so that no fast take or release races what the
// caller, the guard's holder, does to the queue next; it returns the agent
// that holds q's lock through the fast path, or 0. A fast holder that has
// ended holds nothing. The caller ends with lqIdle. Under the guard.
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
		if !brokenLockRunUnsealed {
			lqRunSeal(t, q) // (X -> -X: before the caller links a record)
		}
		return f
	}
}

// lqRunSeal seals queue q's run (n -> n|SEALED): X adds to it no more.
// Under the guard.
func lqRunSeal(t prim, q int32) {
	mem := t.mem
	for v := atomicLoad(mem, q+lqqRun); v&(lqRunSealed|lqRunStolen) == 0; {
		got := atomicCompareExchange(mem, q+lqqRun, v, v|lqRunSealed)
		if got == v {
			return
		}
		v = got // (X handed on meanwhile)
	}
}

// lqIdle ends a change to queue q: a queue left with no record gets its
// fast word back, 0 (the fast path may take it), or X for a fast holder
// X (its release is one compare-and-swap again). Under the guard.
func lqIdle(t prim, q int32) {
	mem := t.mem
	if atomicLoad(mem, q+lqqHead) != 0 || atomicLoad(mem, q+lqqState) != queueLive {
		return
	}
	switch f := atomicLoad(mem, q+lqqFast); {
	case f == lqFastOff:
		// (The run of a holder that ended, or made records: empty, and
		// a tag no add of an earlier holder expects.)
		atomicStore(mem, q+lqqRun, (atomicLoad(mem, q+lqqRun)+lqRunTagOne)&lqRunTags)
		atomicStore(mem, q+lqqFast, 0)
	case f < 0:
		atomicStore(mem, q+lqqFast, -f)
		for v := atomicLoad(mem, q+lqqRun); v&lqRunSealed != 0; { // unsealed: X may add again
			got := atomicCompareExchange(mem, q+lqqRun, v, v&^lqRunSealed)
			if got == v {
				break
			}
			v = got // (X handed on meanwhile)
		}
	}
}

// lqFastTake is the fast path's take (main thread too): queue w (w.index)
// for this agent, held exclusively, if it is idle and still has generation
// gen: resultOK; resultBusy, having changed nothing: go through the queue
// (OP_LOCK_REQUEST); resultMismatch: the queue has another name now
// (another gen), and the caller holds it: it lets it go (lqFastLetGo, then
// lqReleaseFast if refused) and goes through the queue. The caller holds
// no other fast lock of the queue.
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
// of queue w that this agent took with lqFastTake: resultOK; or
// resultBusy, having changed nothing: requests are queued behind it, or a
// steal took it: go through the guard (lqReleaseFast).
func lqFastLetGo(w prim) int32 {
	if atomicCompareExchange(w.mem, w.index+lqqFast, w.self, 0) == w.self {
		return resultOK
	}
	return resultBusy
}

// lqReleaseFast releases this agent's fast lock of queue q of table t
// once lqFastLetGo was refused: resultOK, having granted the queue's head;
// resultNotHolder: a steal took it (nothing released); resultBusy: the
// guard is held (lqGuardTake). Main thread too.
func lqReleaseFast(t prim, q int32) int32 {
	if q < t.index+lqHeader || (q-t.index)%8 != 0 || q >= atomicLoad(t.mem, t.index+lqhHeap) {
		return resultCorrupted
	}
	if v := lqGuardTake(t); v != resultOK {
		return v
	}
	defer lqGuardLetGo(t)
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

// lqToFast makes this agent's request w (a record), GRANTED, exclusive and
// its queue's only record, its fast lock instead: the record freed, the
// fast word X (a run may follow: lqRunAdd), so that a name's first
// request, which found no queue to take fast, leaves its agent's next
// requests the run. resultOK; resultNone, nothing changed: w is not alone,
// not granted or not exclusive (the caller holds it as it is); resultBusy:
// the guard is held (lqGuardTake). Main thread too.
func lqToFast(w prim) int32 {
	mem, r := w.mem, w.index
	t := prim{mem, atomicLoad(mem, r+lqrTable), w.self}
	if atomicLoad(mem, r+lqrAgent) != w.self || atomicLoad(mem, r+lqrState) != reqGranted {
		return resultNone
	}
	if v := lqGuardTake(t); v != resultOK {
		return v
	}
	defer lqGuardLetGo(t)
	q := atomicLoad(mem, r+lqrQueue)
	if atomicLoad(mem, r+lqrState) != reqGranted || atomicLoad(mem, r+lqrMode) != lqExclusive ||
		atomicLoad(mem, q+lqqHead) != r || atomicLoad(mem, r+lqrNext) != 0 && !brokenLockToFastNotAlone || atomicLoad(mem, q+lqqFast) != lqFastOff {
		return resultNone
	}
	lqUnlink(t, q, r)
	atomicStore(mem, r+lqrState, reqFree)
	lqFreeBlock(t, r, lqhFreeRecs, lqrNext)
	atomicStore(mem, q+lqqRun, (atomicLoad(mem, q+lqqRun)+lqRunTagOne)&lqRunTags) // (as lqIdle's OFF -> 0)
	atomicStore(mem, q+lqqFast, w.self)
	return resultOK
}

// lqRunAdd adds this agent's next exclusive request of queue w's name to
// its run (main thread too): resultOK, it waits in the agent behind the
// lock, ahead of every record; resultBusy, having changed nothing: the run
// is sealed (a record queued behind), or a steal took the lock: go through
// the queue (OP_LOCK_REQUEST). The caller holds w's fast lock, and no
// request of this agent is on its way into the queue.
//
// The word is read before the fast word: found still X's (or -X), the
// lock was X's all along, so the word read was of X's time as the holder,
// and the compare-and-swap lands only in that time (its tag).
func lqRunAdd(w prim) int32 {
	v := atomicLoad(w.mem, w.index+lqqRun)
	if v&(lqRunSealed|lqRunStolen) != 0 || v&lqRunCount == lqRunCount {
		return resultBusy
	}
	if f := atomicLoad(w.mem, w.index+lqqFast); f != w.self && f != -w.self {
		return resultBusy // (a steal: the caller finds out at its release)
	}
	if atomicCompareExchange(w.mem, w.index+lqqRun, v, v+1) != v {
		return resultBusy // (sealed, or made records, meanwhile)
	}
	return resultOK
}

// lqRunNext is this agent's hand-off, as the request that holds its fast
// lock of queue w ends (main thread too): resultOK, the run's first
// request holds it now (the run one shorter); resultNone, the run is
// empty: let the lock go (lqFastLetGo); resultNotHolder: a steal took the
// lock and made the run records (lqRunAdopt).
func lqRunNext(w prim) int32 {
	for {
		v := atomicLoad(w.mem, w.index+lqqRun)
		if v&lqRunStolen != 0 {
			return resultNotHolder
		}
		if v&lqRunCount == 0 {
			return resultNone
		}
		if atomicCompareExchange(w.mem, w.index+lqqRun, v, v-1) == v {
			return resultOK
		}
	}
}

// lqRunAdopt is the first record a steal made of this agent's run of
// queue q (table t), once lqRunNext said resultNotHolder: the rest follow
// it through their next slots, in the run's order, as many as the run
// held; each PENDING, this agent's, to wait for (lqStep) and release
// (lqRelease) as its own. The agent's view is made to reach them first
// (lqCover). resultNone: no run was made records. Main thread too.
func lqRunAdopt(t prim, q int32) int32 {
	if q < t.index+lqHeader || (q-t.index)%8 != 0 || q >= atomicLoad(t.mem, t.index+lqhHeap) {
		return resultCorrupted
	}
	if lqCover(t) != resultOK {
		return resultCorrupted
	}
	if atomicLoad(t.mem, q+lqqRun)&lqRunStolen != 0 {
		return atomicLoad(t.mem, q+lqqRunFirst)
	}
	return resultNone
}

// lqRunRecords makes the run of queue q's fast holder x records, for a
// steal of x's lock: PENDING, x's, exclusive, linked one to the next in
// the run's order, first .. last (0, 0: the run is empty); and the run
// STOLEN, first in slot 9 (x's hand-off then finds its lock stolen). The caller links
// them right after the stealer's record. Sealed by lqClaim, the run only
// shrinks meanwhile (x's hand-offs). resultTooMany (first): the memory can
// grow no more, nothing changed. Under the guard.
func lqRunRecords(t prim, q, x int32) (first, last int32) {
	mem := t.mem
	v := atomicLoad(mem, q+lqqRun)
	n := v & lqRunCount
	for range n {
		r := lqAllocBlock(t, lqClass(lqRecSlots), lqhFreeRecs, lqrNext)
		if r < 0 {
			for first != 0 {
				next := atomicLoad(mem, first+lqrNext)
				atomicStore(mem, first+lqrState, reqFree)
				lqFreeBlock(t, first, lqhFreeRecs, lqrNext)
				first = next
			}
			return r, 0
		}
		for i, v := range [...]int32{x, lqExclusive, first, q, t.index} {
			atomicStore(mem, r+lqrAgent+int32(i), v)
		}
		atomicStore(mem, r+lqrState, reqPending)
		if last == 0 {
			last = r
		}
		first = r
	}
	for n > 0 {
		atomicStore(mem, q+lqqRunFirst, first)
		got := atomicCompareExchange(mem, q+lqqRun, v, v&^lqRunCount|lqRunStolen)
		if got == v {
			return first, last
		}
		v = got
		for ; n > v&lqRunCount; n-- { // (x handed on meanwhile: fewer records)
			r := first
			first = atomicLoad(mem, r+lqrNext)
			atomicStore(mem, r+lqrState, reqFree)
			lqFreeBlock(t, r, lqhFreeRecs, lqrNext)
		}
	}
	return 0, 0
}

// lqUnlink takes record r out of queue q, if it is there: the tail first
// (to the record before r, if r is the last or the tail names it: a tail
// left one short must never name a record out of the queue, which may be
// freed and linked into another), then the link. Under the guard.
func lqUnlink(t prim, q, r int32) {
	mem := t.mem
	next, prev := atomicLoad(mem, r+lqrNext), int32(0)
	if h := atomicLoad(mem, q+lqqHead); h != r {
		for prev = h; prev != 0 && atomicLoad(mem, prev+lqrNext) != r; prev = atomicLoad(mem, prev+lqrNext) {
		}
		if prev == 0 {
			return // not there
		}
	}
	if next == 0 || atomicLoad(mem, q+lqqTail) == r {
		atomicStore(mem, q+lqqTail, prev)
	}
	if prev == 0 {
		atomicStore(mem, q+lqqHead, next)
	} else {
		atomicStore(mem, prev+lqrNext, next)
	}
}

// lqGrant grants what Web Locks' rule lets go in queue q, and wakes each
// agent granted. Records that no agent will release leave the queue on the
// way: ABANDONED ones (freed by their agent's lqRelease) and those of
// agents that have ended (freed here). It reads the queue up to its first
// request that stays pending: its granted prefix, and what it grants.
// Under the guard.
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
		if ended := agentEnded(atomicLoad(mem, r+lqrAgent)); ended || st == reqAbandoned {
			lqUnlink(t, q, r)
			if ended {
				atomicStore(mem, r+lqrState, reqFree)
				lqFreeBlock(t, r, lqhFreeRecs, lqrNext)
			}
			r = next
			continue
		}
		x := atomicLoad(mem, r+lqrMode) == lqExclusive && !brokenLockGrantIgnoresModes
		if st == reqPending {
			if exclusive || held && x {
				return
			}
			if atomicCompareExchange(mem, r+lqrState, reqPending, reqGranted) == reqPending {
				atomicNotify(mem, r+lqrState, notifyAll)
			} else {
				continue // abandoned meanwhile: look at it again
			}
		}
		held, exclusive = true, exclusive || x
		r = next
	}
}

// lqStep is one turn of a wait for request w (a record) to be granted:
// resultOK once it is (or was, and a steal has taken it since: its
// release then says so); else PENDING, the value to sleep on w's state
// while it holds. Main thread too.
func lqStep(w prim) int32 {
	switch atomicLoad(w.mem, w.index+lqrState) {
	case reqGranted, reqStolen:
		return resultOK
	case reqPending:
		return reqPending
	}
	return resultCorrupted
}

// lqAbandon gives up this agent's pending request w (an abort, a
// timeout), without the guard: resultBusy, and the caller then calls
// lqRelease, which takes it out of its queue; or resultOK, when it was
// granted first (the caller holds the lock, as if it had not given up; or
// held it, if a steal has taken it since). Main thread too.
func lqAbandon(w prim) int32 {
	switch atomicCompareExchange(w.mem, w.index+lqrState, reqPending, reqAbandoned) {
	case reqPending:
		return resultBusy
	case reqGranted, reqStolen:
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
	if lqGuardTake(t) != resultOK {
		return
	}
	q := atomicLoad(w.mem, w.index+lqrQueue)
	lqGrant(t, q)
	lqIdle(t, q)
	lqGuardLetGo(t)
}

// lqHolder is the agent that holds the first granted lock of request w's
// queue (0: none): its fast holder, or its head's; for the watch. Read
// without the guard, the heap covered first: a hint.
func lqHolder(w prim) int32 {
	t := prim{w.mem, atomicLoad(w.mem, w.index+lqrTable), w.self}
	if lqCover(t) != resultOK {
		return 0
	}
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
// out). Returns the text's length (textOut), or resultBusy (lqGuardTake).
// Main thread too.
func lqQuery(t prim) int32 {
	if v := lqGuardTake(t); v != resultOK {
		return v
	}
	defer lqGuardLetGo(t)
	mem := t.mem
	var b []byte
	put := func(v int32) { b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24)) }
	index := atomicLoad(mem, t.index+lqhIndex)
	for i := range atomicLoad(mem, index) {
		q := atomicLoad(mem, index+1+i)
		if q == lqEmpty || q == lqTomb {
			continue
		}
		lqGrant(t, q)
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
			put(reqGranted)
			n++
			if v := atomicLoad(mem, q+lqqRun); v&lqRunStolen == 0 {
				for range v & lqRunCount { // its run, next
					put(max(f, -f))
					put(lqExclusive)
					put(reqPending)
					n++
				}
			}
		}
		for r := atomicLoad(mem, q+lqqHead); r != 0; r = atomicLoad(mem, r+lqrNext) {
			if st := atomicLoad(mem, r+lqrState); st == reqGranted || st == reqPending {
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
