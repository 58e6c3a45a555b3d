package core

// The name table: primitives by name (Mutex.named("db"),
// sabsync.NamedMutex("db")), so that agents share them
// with no memory to lay out. A table lives at (mem, at), wherever its host
// puts it; the glue and sabsync put it in the registry's buffer, after the
// registry (and its debug area), at the slot that the registry's header
// records (regNames), so that every agent that joined finds it.
// docs/decisions/names.md says why.
//
// The header, int32 slots from at:
//
//	0  entries: how many (a power of two, at least twice the names)
//	1  names: how many names it takes (the init option names)
//	2  claimed: how many entries were claimed (never more than names)
//	3  the arena's size, in slots; it begins after the entries
//	4  the arena's next free slot (from its start), bumped by creators
//	5  the first slot of the lock request queues' table (lockq.go), which
//	   follows the arena, the last thing in the memory: it grows past it
//
// Then the entries, nameSlots each (an open-addressed hash table, probed
// one entry after another from the name's hash), then the arena: each
// name's UTF-16 code units, two a slot, and its primitive's slots (zeroed:
// the arena is never reused), at a multiple of nameAlign slots.
//
// An entry (every field but the state is written once, by its creator,
// before it publishes it):
//
//	0  state (below)
//	1  the name's hash (FNV-1a over its code units)
//	2  kind (nameKind*)     3  a     4  b (the kind's parameters)
//	5  the name's first slot     6  its length, in code units
//	7  the primitive's first slot
//
// The state, and who changes it (compare-and-swap each):
//
//	| from     | to       | who                                                        |
//	| FREE (0) | id       | a creator whose probe stops at a free entry (nameClaim)    |
//	| id       | READY    | the creator, once every other field is written; it then    |
//	|          |          | wakes all (nameCreate)                                     |
//	| id, DEAD | id2      | a creator whose probe stops at it: it creates its name     |
//	|          |          | there (a takeover: the dead one's arena is lost)           |
//	| id, DEAD | VOID     | a finder (no parameters to create with) whose probe stops  |
//	|          |          | at it                                                      |
//	| id       | VOID     | the creator, when the table is full (names or arena)       |
//
// READY and VOID are final. A probe for a name passes READY entries of
// other names and VOID ones; it stops at its own READY entry (found), a
// FREE one (absent: a creator claims it) or a claim (the caller sleeps on
// the state while it holds that id, at most WATCH_MS, and asks again). So
// two creators of one name stop at the same entry, and one claims it; and
// an agent that ends between its claim and its publication leaves a claim
// that the next agent to need the entry takes over or voids once the
// registry says the agent is DEAD: no half entry is ever READY.
const (
	nameFree  = 0
	nameReady = -1
	nameVoid  = -2

	nEntries    = 0
	nNames      = 1
	nClaimed    = 2
	nArenaSlots = 3
	nArenaNext  = 4
	nLocks      = 5
	namesHeader = 8

	neState   = 0
	neHash    = 1
	neKind    = 2
	neA       = 3
	neB       = 4
	neName    = 5
	neLength  = 6
	nePrim    = 7
	nameSlots = 8

	// A primitive's first slot is a multiple of nameAlign (64 bytes): named
	// primitives do not share a cache line.
	nameAlign = 16
	// The arena holds nameArenaPer slots per name: its code units and its
	// primitive (a name of 32 code units and a Mutex take 32).
	nameArenaPer = 48
	// The most names a table takes (init's names option).
	maxNames = 1 << 20
)

// The kinds of named primitive (neKind), and their parameters (a, b).
const (
	nameKindMutex   = 1
	nameKindRWMutex = 2
	nameKindSem     = 3 // a: permits
	nameKindCond    = 4
	nameKindWG      = 5
	nameKindBarrier = 6 // a: parties
	nameKindOnce    = 7
	nameKindChan    = 8 // a: capacity, b: maxMessageBytes
)

// namesSlots is how many slots a table for n names takes (resultTooMany
// past maxNames).
func namesSlots(n int32) int32 {
	if n < 1 || n > maxNames {
		return resultTooMany
	}
	return namesHeader + namesEntries(n)*nameSlots + n*nameArenaPer + lqSlots()
}

func namesEntries(n int32) int32 {
	e := int32(16)
	for e < 2*n {
		e *= 2
	}
	return e
}

// namesMake sets up the zeroed slots at (mem, at) as a table for n names.
func namesMake(mem, at, n int32) int32 {
	if namesSlots(n) < 0 || atomicLoad(mem, at+nEntries) != 0 {
		return resultCorrupted
	}
	atomicStore(mem, at+nNames, n)
	atomicStore(mem, at+nArenaSlots, n*nameArenaPer)
	locks := at + namesHeader + namesEntries(n)*nameSlots + n*nameArenaPer
	atomicStore(mem, at+nLocks, locks)
	lqMake(prim{mem, locks, 0})
	atomicStore(mem, at+nEntries, namesEntries(n)) // last: a table is whole once it has entries
	return resultOK
}

// primSlotsOf is how many slots a primitive of kind takes (-1: no kind).
func primSlotsOf(kind, a, b int32) int32 {
	if kind == nameKindChan {
		if a >= 1 && a <= chanMaxCap && b >= 0 && b <= (chanMaxCell-chanCellWords)*4 {
			return chanSlots + a*(chanCellWords+(b+3)/4)
		}
	} else if kind >= nameKindMutex && kind < nameKindChan {
		return primSlots[kind]
	}
	return -1
}

var primSlots = [...]int32{nameKindMutex: mutexSlots, nameKindRWMutex: rwSlots, nameKindSem: semSlots, nameKindCond: condSlots,
	nameKindWG: wgSlots, nameKindBarrier: barrierSlots, nameKindOnce: onceSlots}

// nameLookup finds the READY entry of name (UTF-16 code units, two bytes
// each, low byte first) in the table at t and returns its first slot; or,
// if create and it is absent, creates it, of kind with a and b. A found
// entry may be of another kind or parameters: its caller compares
// (neKind, neA, neB) and says what the name already is. Otherwise:
// resultNone (absent, and not create), resultTooMany (the table is full:
// init's names option), resultCorrupted (no table, or no kind), or
// resultBusy: another agent is creating an entry where the probe stopped;
// sleep while that entry's state holds that agent's id (at most WATCH_MS:
// it may end) and ask again. The state's slot and the id are then the two
// float64s at OP_SLEEP_OUT's address (sleepOut, as after a turn).
func nameLookup(t prim, kind, a, b int32, name []byte, create bool) int32 {
	mem := t.mem
	n := atomicLoad(mem, t.index+nEntries)
	if n <= 0 || len(name)%2 != 0 || create && primSlotsOf(kind, a, b) < 0 {
		return resultCorrupted
	}
	h := uint32(2166136261)
	for _, c := range name {
		h = (h ^ uint32(c)) * 16777619
	}
	for i, probes := int32(h)&(n-1), int32(0); probes < n; {
		e := t.index + namesHeader + i*nameSlots
		st := atomicLoad(mem, e+neState)
		if st == nameReady && atomicLoad(mem, e+neHash) == int32(h) &&
			string(loadBytes(mem, atomicLoad(mem, e+neName), 2*atomicLoad(mem, e+neLength))) == string(name) {
			return e
		}
		if st == nameFree && !create {
			return resultNone
		}
		if st == nameFree || st > 0 {
			if st > 0 && (brokenNameDeadClaimKept || !agentEnded(st)) {
				sleepOut = [2]float64{float64(e + neState), float64(st)}
				return resultBusy
			}
			// A free entry, or a claim of a DEAD agent: a creator claims
			// it (a free one counts against names), a finder voids the claim.
			to := int32(nameVoid)
			if create {
				to = t.self
			}
			if atomicCompareExchange(mem, e+neState, st, to) != st {
				continue // claimed meanwhile: look at it again
			}
			if create {
				return nameCreate(t, e, kind, a, b, name, int32(h), st == nameFree)
			}
			atomicNotify(mem, e+neState, notifyAll)
		}
		i, probes = (i+1)&(n-1), probes+1
	}
	return resultTooMany
}

// agentEnded: agent id is DEAD in this agent's registry.
func agentEnded(id int32) bool {
	at := recordOf(id)
	return at >= 0 && deadAt(at)
}

// addUpTo adds delta to the slot if that leaves it at most limit, and
// returns what it held before; -1 if it would not.
func addUpTo(mem, at, delta, limit int32) int32 {
	old, ok := addIf(mem, at, delta, func(v int32) bool { return v+delta <= limit })
	if !ok {
		return -1
	}
	return old
}

// nameCreate fills entry e, which this agent has claimed, and publishes it.
// A new claim (not a takeover) counts against the names the table takes;
// an agent that ends between its claim and its count leaves one name
// uncounted (the entries are twice the names).
func nameCreate(t prim, e, kind, a, b int32, name []byte, h int32, counted bool) int32 {
	mem, units := t.mem, int32(len(name)/2)
	need := (units+1)/2 + primSlotsOf(kind, a, b) + nameAlign
	entries := atomicLoad(mem, t.index+nEntries)
	off := int32(0)
	if counted {
		off = addUpTo(mem, t.index+nClaimed, 1, atomicLoad(mem, t.index+nNames))
	}
	if off >= 0 {
		off = addUpTo(mem, t.index+nArenaNext, need, atomicLoad(mem, t.index+nArenaSlots))
	}
	if off < 0 {
		atomicCompareExchange(mem, e+neState, t.self, nameVoid)
		atomicNotify(mem, e+neState, notifyAll)
		return resultTooMany
	}
	at := t.index + namesHeader + entries*nameSlots + off
	storeBytes(mem, at, name)
	p := (at + (units+1)/2 + nameAlign - 1) &^ (nameAlign - 1)
	if brokenNamePublishedFirst {
		atomicStore(mem, e+neState, nameReady)
	}
	for i, v := range [...]int32{h, kind, a, b, at, units, p} {
		atomicStore(mem, e+neHash+int32(i), v)
	}
	atomicCompareExchange(mem, e+neState, t.self, nameReady) // last: READY is whole
	atomicNotify(mem, e+neState, notifyAll)
	return e
}

// NamesLayout is what the hosts read of a table to name a primitive by its
// first slot, on the paths users read (the snapshot, the deadlock message):
// the module keeps no names (its text would cost every page's download), so
// the glue and sabsync scan the READY entries for that slot themselves.
// cmd/jsbundle writes these into protocol.js and proto.go, not into the
// module's published text.
func NamesLayout() map[string]int32 {
	return map[string]int32{
		"NAMES_ENTRIES": nEntries, "NAMES_HEADER": namesHeader, "NAME_SLOTS": nameSlots,
		// The lock table after it (lockq.go): a lock request's name is its
		// queue's, which the hosts read from a record the same way (a record
		// of the table names the table, and lies before the heap's end).
		"NAMES_LOCKS": nLocks, "LOCKS_HEAP": lqhHeap, "LOCKS_HEADER": lqHeader,
		"LOCK_QUEUE_LENGTH": lqqLength, "LOCK_QUEUE_NAME": lqqName,
		"LOCK_RECORD_QUEUE": lqrQueue, "LOCK_RECORD_TABLE": lqrTable, "LOCK_RECORD_NEXT": lqrNext,
		// The fast path's words (lockq.go: lqFastTake, lqFastLetGo), which the glue inlines.
		"LOCK_QUEUE_FAST": lqqFast, "LOCK_QUEUE_GEN": lqqGen, "LOCK_FAST_OFF": lqFastOff,
		// The run's word (lockq.go: lqRunAdd, lqRunNext), which the glue inlines.
		"LOCK_QUEUE_RUN": lqqRun, "LOCK_RUN_SEALED": lqRunSealed, "LOCK_RUN_STOLEN": lqRunStolen, "LOCK_RUN_COUNT": lqRunCount,
		"NAME_STATE": neState, "NAME_NAME": neName, "NAME_LENGTH": neLength,
	}
}
