package core

import "math"

// The registry: the agents (a page, its workers, Go programs in workers)
// that know each other. One small SharedArrayBuffer, made by the first
// agent (its maker) and handed on by forWorker(); each agent that joins
// draws the next id from it, so ids are unique among the agents that
// joined, records its name for the messages that name it, and says whether
// it lives and what it waits for (watch.go writes and reads that part).
// Every host (the glue, sabsync, the core tests) joins through these
// functions; a host supplies only what only it can: the memory, a random
// base, its time origin (Host.TimeOriginMs) and the life lock (below).
//
// The header, int32 slots:
//
//	0    registryMagic: what tells a registry from any other buffer
//	1    base: drawn at random by the maker; ids are base+1, base+2, ...
//	2    joined: how many agents have joined (the next one takes joined+1)
//	3    announced: counts agents that became LIVE or UNWATCHED (the maker
//	     sleeps on it: REGISTRY_ANNOUNCED)
//	4    clock: a counter that orders the watch's records (watch.go)
//	5    tags: how many RWMutexes got a tag from this registry (readCounter)
//	6-7  epoch: the maker's time origin (a float64, in ms, low word first),
//	     so that every agent gives times on one clock (registryNowMs)
//	8    names: the first slot of the registry's name table (names.go; 0:
//	     none), after the registry's slots and its debug area's, written
//	     by the maker before it makes the registry (OP_NAMES_MAKE)
//	9    unused
//
// Then a record of recordSlots per agent, by join order (the first
// maxRecords agents), at the offsets r*: its id, written last when it
// joins (0: not yet written); its state (below); the wait it is in, once
// that wait has lasted a while (watch.go); its name (UTF-8, nameMaxLen
// bytes); the name of its life lock, drawn at random by its host;
// its read locks: readEntries pairs (an RWMutex's tag, how many read locks
// of it the agent holds), written by the agent alone (readCounter), so that
// the watch can give back those of an agent that ended (readersOf).
//
// An agent's state, and who changes it:
//
//	| from    | to        | who                  | when                                  |
//	| (none)  | JOINING   | the agent            | registryJoin: its record written      |
//	| JOINING | LIVE      | the agent            | it holds its life lock: a Web Lock,   |
//	|         |           |                      | held until it ends, which the browser |
//	|         |           |                      | then releases (registryAnnounce)      |
//	|         |           |                      | (in Node.js, Deno and Bun: it is a    |
//	|         |           |                      | worker_thread, whose starter sees it  |
//	|         |           |                      | exit; no Web Lock)                    |
//	| JOINING | UNWATCHED | the agent            | nothing can tell its end (a server    |
//	|         |           |                      | runtime's main thread)                |
//	| LIVE    | DEAD      | the maker            | its request for that life lock is     |
//	|         |           |                      | granted: the agent has ended          |
//	|         |           |                      | (terminate(), close(), its parent     |
//	|         |           |                      | ended) (registryEnded)                |
//	| LIVE    | DEAD      | any agent            | in a server runtime, the thread that  |
//	|         |           |                      | started it saw it exit; or the code   |
//	|         |           |                      | that ended it said so (agentEnded)    |
//	|         |           |                      | (registryEnded)                       |
//
// Only a LIVE agent can become DEAD: a request for the life lock of an agent
// that does not hold it yet would be granted at once. An agent that ends
// while JOINING is never found dead; the glue's init waits until it is LIVE
// before it resolves, so it has taken nothing by then.
const (
	registryMagic     = 0x53414232 // "SAB2"
	regBase           = 1
	regJoined         = 2
	regAnnounced      = 3
	regClock          = 4
	regTags           = 5
	regEpoch          = 6
	regNames          = 8
	registryHeaderLen = 10

	rID         = 0
	rState      = 1
	rNameLength = 2
	rKind       = 3  // the wait's kind (0: none that lasted)
	rIndex      = 4  // its primitive's first slot
	rHolder     = 5  // the agent it waits for, when last looked at (0: none known)
	rSince      = 6  // when it began, in registryNowMs
	rWaitStamp  = 7  // the clock when the record was made: which wait it is
	rReadStamp  = 8  // the clock before rHolder was last read (0: not yet)
	rBlocking   = 9  // the wait's flags: waitCycle, waitBlocked, waitDeadline, waitInRegistry
	rDeadline   = 10 // when it ends at the latest, in registryNowMs (with waitDeadline)
	rName       = 11
	nameMaxLen  = 64 // bytes
	// The name of its life lock, which the agent chose (unique: drawn at
	// random), and its length in bytes.
	rLifeLock       = rName + nameMaxLen/4
	lifeLockMaxLen  = 48 // bytes
	rLifeLockLength = rLifeLock + lifeLockMaxLen/4
	rReads          = rLifeLockLength + 1
	readEntries     = 16
	recordSlots     = rReads + 2*readEntries

	maxRecords    = 1024
	registrySlots = registryHeaderLen + maxRecords*recordSlots
	// Ids stay within 1..maxAgentID: the base leaves room for a million joins.
	maxJoins = 1 << 20
)

// A wait's flags (rBlocking), for the watch and the snapshot.
const (
	// waitCycle: the wait takes part in the cycle's rule (watch.go): its
	// agent is blocked in it and it has no deadline.
	waitCycle = 1
	// waitBlocked: its agent can run nothing else until the call returns
	// (a worker's blocking call; a Go program's only goroutine), deadline
	// or not.
	waitBlocked = 2
	// waitDeadline: it ends at rDeadline at the latest.
	waitDeadline = 4
	// waitInRegistry: its primitive is in the registry's own memory, where
	// only primitives by name live (names.go): the hosts, which keep names
	// out of the module, name it in the snapshot and the deadlock message
	// (their columns SNAPSHOT_IN_REGISTRY, DEADLOCK_IN_REGISTRY). Without it, an index alone could be any
	// memory's: a user's buffer may hold a Mutex at the same index.
	waitInRegistry = 8
)

// An agent's state (rState).
const (
	agentJoining   = 0
	agentLive      = 1
	agentDead      = 2
	agentUnwatched = 3
)

// reg is this agent's part: the registry it joined and its record there.
var reg = struct {
	mem      int32   // the registry's memory (-1: none joined)
	own      int32   // the first slot of this agent's record (-1: none: not joined, or past maxRecords)
	base     int32   // the registry's base (regBase): an id less its join order
	offsetMs float64 // this agent's time origin less the registry's epoch
}{mem: -1, own: -1}

// registryMake sets up the zeroed memory mem (registrySlots slots) as a
// registry whose ids start after a base made of random (any int32, drawn
// at random by the host): unique ids in one registry, and ids unlikely to
// meet those of another.
func registryMake(mem, random int32) int32 {
	if atomicLoad(mem, 0) != 0 {
		return resultCorrupted
	}
	atomicStore(mem, regBase, int32(uint32(random)%(maxAgentID-maxJoins)))
	epoch := math.Float64bits(host.TimeOriginMs())
	atomicStore(mem, regEpoch, int32(uint32(epoch)))
	atomicStore(mem, regEpoch+1, int32(epoch>>32))
	atomicStore(mem, 0, registryMagic) // last: a registry is whole once marked
	return resultOK
}

// registryJoin joins this agent to the registry at mem under name (cut to
// nameMaxLen bytes, whole UTF-8 characters only) and returns its id, or
// resultTooMany once maxJoins agents have joined, or resultCorrupted if mem
// is no registry or lifeLock no name the record can hold. lifeLock is the
// name of the agent's life lock, which the host draws at random (so it may
// request the lock before it joins, while its module loads); the agent
// then holds it and announces itself (registryAnnounce); its id goes to
// SetAgent.
func registryJoin(mem int32, name, lifeLock []byte) int32 {
	if atomicLoad(mem, 0) != registryMagic || reg.mem >= 0 || len(lifeLock) > lifeLockMaxLen {
		return resultCorrupted
	}
	old, ok := addIf(mem, regJoined, 1, func(n int32) bool { return n < maxJoins })
	if !ok {
		return resultTooMany
	}
	n := old + 1
	reg.base = atomicLoad(mem, regBase)
	id := reg.base + n
	reg.mem = mem
	reg.offsetMs = host.TimeOriginMs() - epochOf(mem)
	if n > maxRecords {
		return id
	}
	at := recordAt(n)
	if len(name) > nameMaxLen {
		name = name[:nameMaxLen]
		for len(name) > 0 && name[len(name)-1]&0xC0 == 0x80 { // a character's continuation bytes
			name = name[:len(name)-1]
		}
		if len(name) > 0 && name[len(name)-1] >= 0xC0 { // its first byte
			name = name[:len(name)-1]
		}
	}
	if brokenJoinIDFirst {
		atomicStore(mem, at+rID, id)
	}
	storeBytes(mem, at+rName, name)
	atomicStore(mem, at+rNameLength, int32(len(name)))
	storeBytes(mem, at+rLifeLock, lifeLock)
	atomicStore(mem, at+rLifeLockLength, int32(len(lifeLock)))
	atomicStore(mem, at+rID, id) // last: the record is whole once its id is there
	reg.own = at
	return id
}

// registryAnnounce ends this agent's joining: LIVE once it holds its life
// lock (live), UNWATCHED where the host has none. It wakes the maker.
func registryAnnounce(live bool) int32 {
	if reg.mem < 0 {
		return resultCorrupted
	}
	if reg.own >= 0 {
		state := int32(agentUnwatched)
		if live {
			state = agentLive
		}
		atomicCompareExchange(reg.mem, reg.own+rState, agentJoining, state)
	}
	atomicAdd(reg.mem, regAnnounced, 1)
	atomicNotify(reg.mem, regAnnounced, notifyAll)
	return resultOK
}

// registryLiveAt is, for the maker's watch, the id of the n-th agent to
// join (from 1) if it is LIVE, 0 if it is not (yet), and resultNone past
// the records written so far.
func registryLiveAt(mem, n int32) int32 {
	if n < 1 || n > min(atomicLoad(mem, regJoined), maxRecords) {
		return resultNone
	}
	at := recordAt(n)
	if st := atomicLoad(mem, at+rState); st != agentLive && !(brokenLiveAtJoining && st == agentJoining) {
		return 0
	}
	return atomicLoad(mem, at+rID)
}

// registryEnded is the news that agent id has ended: the maker's (its
// request for the agent's life lock was granted), or in a server runtime
// any agent's (the thread it started exited; agentEnded): LIVE -> DEAD.
func registryEnded(mem, id int32) int32 {
	at := recordIn(mem, id)
	if at < 0 || atomicCompareExchange(mem, at+rState, agentLive, agentDead) != agentLive {
		return resultCorrupted
	}
	return resultOK
}

// lifeLockName is the name of agent id's life lock (a Web Lock), as its
// record says (nil: no record).
func lifeLockName(mem, id int32) []byte {
	at := recordIn(mem, id)
	if at < 0 {
		return nil
	}
	return loadBytes(mem, at+rLifeLock, min(max(atomicLoad(mem, at+rLifeLockLength), 0), lifeLockMaxLen))
}

func recordAt(n int32) int32 { return registryHeaderLen + (n-1)*recordSlots }

// recordIn is the first slot of agent id's record in the registry at mem,
// or -1 when id did not join it (or joined past the first maxRecords).
func recordIn(mem, id int32) int32 {
	if mem < 0 {
		return -1
	}
	n := id - atomicLoad(mem, regBase)
	if n < 1 || n > maxRecords || n > atomicLoad(mem, regJoined) {
		return -1
	}
	at := recordAt(n)
	if atomicLoad(mem, at+rID) != id {
		return -1
	}
	return at
}

// recordOf is agent id's record in this agent's registry (-1: none).
func recordOf(id int32) int32 { return recordIn(reg.mem, id) }

// eachRecord calls f with every record written in this agent's registry,
// in join order.
func eachRecord(f func(at int32)) {
	if reg.mem < 0 {
		return
	}
	for n := int32(1); n <= min(atomicLoad(reg.mem, regJoined), maxRecords); n++ {
		if at := recordAt(n); atomicLoad(reg.mem, at+rID) != 0 {
			f(at)
		}
	}
}

// deadAt reports whether the agent of the record at is DEAD.
func deadAt(at int32) bool { return atomicLoad(reg.mem, at+rState) == agentDead }

// isDead reports whether agent id joined this agent's registry and ended.
func isDead(id int32) bool {
	at := recordOf(id)
	return at >= 0 && deadAt(at)
}

// nameAt is the name of the agent of the record at.
func nameAt(at int32) string {
	return string(loadBytes(reg.mem, at+rName, min(max(atomicLoad(reg.mem, at+rNameLength), 0), nameMaxLen)))
}

func epochOf(mem int32) float64 {
	return math.Float64frombits(uint64(uint32(atomicLoad(mem, regEpoch))) | uint64(uint32(atomicLoad(mem, regEpoch+1)))<<32)
}

// registryNowMs is the time in ms on the registry's one clock (from its
// maker's time origin).
func registryNowMs() float64 { return monotonicNowMs() + reg.offsetMs }

// readCounter is where this agent counts its read locks of the RWMutex w
// (its tag at rwTag): a slot of its registry record, the first readEntries
// RWMutexes it reads, giving the RWMutex a tag first if it has none; -1
// elsewhere (then the watch cannot free its read locks, as when it did not
// join). The host adds 1 there after each read lock it takes and
// subtracts 1 before each it releases: an agent that ends between the two
// leaks one rather than have the watch free one it no longer holds.
func readCounter(w prim) int32 {
	me := reg.own
	if me < 0 {
		return -1
	}
	tag := atomicLoad(w.mem, w.index+rwTag)
	if tag == 0 {
		// Unique in this registry; the base makes those of other registries unlikely to match.
		mine := (atomicLoad(reg.mem, regBase) + atomicAdd(reg.mem, regTags, 1) + 1) & maxAgentID
		if mine == 0 {
			mine = 1
		}
		if tag = atomicCompareExchange(w.mem, w.index+rwTag, 0, mine); tag == 0 {
			tag = mine
		}
	}
	for e := me + rReads; e < me+recordSlots; e += 2 {
		switch atomicLoad(reg.mem, e) {
		case tag:
			return e + 1
		case 0:
			atomicStore(reg.mem, e, tag)
			return e + 1
		}
	}
	return -1
}

// readersOf is what the records say of the read locks of the RWMutex
// tagged tag: live, an agent alive that holds one (0: none), and freed, how
// many the agents that ended held, now taken off their records (each once:
// a swap to 0), for the caller to give back (rwReleaseDeadReads).
func readersOf(tag int32) (live, freed int32) {
	if tag == 0 {
		return 0, 0
	}
	eachRecord(func(at int32) {
		for e := at + rReads; e < at+recordSlots; e += 2 {
			if atomicLoad(reg.mem, e) != tag {
				continue
			}
			n := atomicLoad(reg.mem, e+1)
			switch {
			case n <= 0:
			case !deadAt(at) && !brokenReadsOfLiveFreed:
				if live == 0 {
					live = atomicLoad(reg.mem, at+rID)
				}
			case atomicCompareExchange(reg.mem, e+1, n, 0) == n:
				freed += n
			}
			return
		}
	})
	return live, freed
}

// storeBytes writes b into the slots from at, four bytes a slot, little
// endian (as an Int32Array's bytes are in every engine).
func storeBytes(mem, at int32, b []byte) {
	for i := 0; i < len(b); i += 4 {
		var v uint32
		for j := 0; j < 4 && i+j < len(b); j++ {
			v |= uint32(b[i+j]) << (8 * j)
		}
		atomicStore(mem, at+int32(i/4), int32(v))
	}
}

func loadBytes(mem, at, n int32) []byte {
	b := make([]byte, n)
	for i := int32(0); i < n; i++ {
		if i%4 == 0 {
			v := uint32(atomicLoad(mem, at+i/4))
			for j := int32(0); j < 4 && i+j < n; j++ {
				b[i+j] = byte(v >> (8 * j))
			}
		}
	}
	return b
}
