package core

import (
	"math"
	"unsafe"
)

// The watch: what a wait that has lasted a while does, in every host's
// loop (a turn of the wait's record, waitrec.go, asks it). Each time a wait has slept watchMs
// through, watchTurn repairs what a waiter that never comes left behind
// (the kind's repairStale), records in this agent's registry record what it
// waits for and for whom, and asks the registry two questions:
//
//	| question                          | verdict                           |
//	| is the agent it waits for DEAD?   | free what it held (the kind's     |
//	|                                   | recover); the next turn takes it  |
//	|                                   | and is told of the death          |
//	| is the wait in a deadlock, for    | the wait ends with resultCycle,   |
//	| certain? (below)                  | having taken nothing; its error   |
//	|                                   | names the cycle (cycleMembers)    |
//	| neither                           | go on waiting                     |
//
// A wait shorter than watchMs asks nothing, so the watch costs nothing
// until then.
//
// A deadlock is told only when it is certain, never on a wait that could
// still end. A blocking wait cannot run anything else, so an agent asleep
// in one holds what it holds until that wait ends (a JavaScript agent in
// Atomics.wait; a Go program whose only goroutine waits: sabsync); an
// asynchronous wait's agent runs other tasks, which may release, so a cycle
// through one is never an error; nor through a wait with a deadline, which
// ends at it (waitBlocking counts it as not blocking). The records are
// read without a lock, and may be stale: a member may have read its holder
// just before that holder released (it is then about to wake). So a cycle
// is told only once every member has read its holder again after the cycle
// was first seen (its rReadStamp, the clock before that read, past the
// clock then), in the same wait (the same rWaitStamp): each holder was then
// asleep in its wait since before that read, and so still held what it was
// seen to hold. Of a cycle's members, the one with the lowest id is told;
// the others sleep on, and go on once it releases what it holds.
//
// An agent has one record, and so shows one wait: the waiter that owns it.
// A waiter is a number the host gives each wait (waiterBlocking for a
// blocking one); the first wait to last owns the record until it ends
// (watchEnd), and a blocking wait takes it over.

// waiterBlocking names a blocking wait of the core's own loop.
const waiterBlocking = 1<<29 - 1

var watchState struct {
	owner     int32   // the waiter that owns this agent's record (0: none)
	nextStamp int32   // the owner's clock before its next read of the holder
	suspect   []int32 // a cycle seen, not yet certain: its members' ids and wait stamps
	clock     int32   // the registry's clock when suspect was seen
	lastCycle []byte  // the members of the last deadlock told to this agent (cycleMembers)
}

// watchTurn is one watch of waiter's wait of kind k on w, which has slept
// watchMs through; blocked says whether this agent can run nothing else
// until it ends, deadlineMs when it ends at the latest (monotonicNowMs;
// +Inf: never), and blocking whether it counts for the cycle's rule
// (blocked, without a deadline). It returns resultCycle when the wait is in
// a deadlock for certain, else resultOK (having freed what a dead holder
// held).
func watchTurn(k waitKind, w prim, waiter int32, blocked bool, deadlineMs float64) int32 {
	blocking := blocked && math.IsInf(deadlineMs, 1)
	d, ok := defOf(k)
	if !ok || waiter <= 0 {
		return resultCorrupted
	}
	h := watchLook(k, w)
	if k == kindRWDrain {
		// A writer waits for readers, whom only the records name.
		live, freed := readersOf(atomicLoad(w.mem, w.index+rwTag))
		if freed > 0 {
			d.recover(w, freed)
			return resultOK
		}
		h = live
	}
	if reg.own < 0 {
		return resultOK
	}
	s, r, me := &watchState, reg.mem, reg.own
	b := int32(0)
	if blocking {
		b |= waitCycle
	}
	if blocked {
		b |= waitBlocked
	}
	if !math.IsInf(deadlineMs, 1) {
		b |= waitDeadline
	}
	if w.mem == r {
		b |= waitInRegistry
	}
	if s.owner != waiter && (s.owner == 0 || blocking) {
		s.owner, s.nextStamp = waiter, 0
		atomicStore(r, me+rIndex, w.index)
		atomicStore(r, me+rSince, int32(registryNowMs())-watchMs)
		atomicStore(r, me+rBlocking, b)
		atomicStore(r, me+rDeadline, registryDeadline(deadlineMs))
		atomicStore(r, me+rWaitStamp, tick())
		atomicStore(r, me+rKind, int32(k))
	}
	if s.owner == waiter {
		if was := atomicLoad(r, me+rBlocking); was != b {
			// (A Go program whose other goroutines ended: another wait, as
			// the cycle's rule sees it, since they could have released.)
			atomicStore(r, me+rDeadline, registryDeadline(deadlineMs))
			atomicStore(r, me+rBlocking, b)
			if was&waitCycle != b&waitCycle {
				atomicStore(r, me+rWaitStamp, tick())
			}
		}
		atomicStore(r, me+rHolder, h)
		atomicStore(r, me+rReadStamp, s.nextStamp)
		s.nextStamp = tick() // before the next turn reads the holder
	}
	if h != 0 && isDead(h) {
		if d.recover != nil && !brokenDeadHolderKept {
			d.recover(w, h)
		}
		return resultOK
	}
	if blocking && s.owner == waiter && cycleIsCertain() {
		return resultCycle
	}
	return resultOK
}

// registryDeadline is deadlineMs (monotonicNowMs) in registryNowMs, for
// rDeadline (0 for none): shifted by the agent's offset, not by two
// readings of the clocks (a thread descheduled between them, on a busy
// machine, moved the deadline that much earlier: 85 ms in WebKit).
func registryDeadline(deadlineMs float64) int32 {
	if math.IsInf(deadlineMs, 1) || math.IsNaN(deadlineMs) {
		return 0
	}
	return int32(math.Min(math.Max(deadlineMs+reg.offsetMs, -1<<31), 1<<31-1))
}

// watchEnd ends the watch of waiter's wait: its record says no wait.
func watchEnd(waiter int32) {
	if s := &watchState; s.owner == waiter && waiter != 0 {
		s.owner = 0
		atomicStore(reg.mem, reg.own+rKind, 0)
	}
}

func tick() int32 { return atomicAdd(reg.mem, regClock, 1) + 1 }

// watchLook is a watched wait's look at its primitive (watchTurn, and the
// op OP_WAITS_FOR): it repairs what a waiter that never comes left
// (repairStale), then returns the agent whose release the wait needs (0: none,
// or not known).
func watchLook(k waitKind, w prim) int32 {
	d, ok := defOf(k)
	if !ok {
		return 0
	}
	if d.repairStale != nil {
		d.repairStale(w)
	}
	if d.holder != nil {
		return d.holder(w)
	}
	return 0
}

// recoverOf is a kind's recover, for the op OP_RECOVER.
func recoverOf(k waitKind, w prim, dead int32) int32 {
	if d, ok := defOf(k); ok && d.recover != nil && dead > 0 {
		return d.recover(w, dead)
	}
	return resultNotHolder
}

// cycleIsCertain reports whether this agent's wait is in a deadlock for
// certain (see the top): each member waits in a blocking wait for the next,
// the last for this agent; the same cycle (members and their waits) as at
// an earlier watch, every member's holder read again since; and this agent
// the member with the lowest id.
func cycleIsCertain() bool {
	s, r := &watchState, reg.mem
	self := atomicLoad(r, reg.own+rID)
	var key []int32 // the members' ids and wait stamps, this agent's first
	again := true   // every member has read its holder since s.clock
	for at := reg.own; ; {
		id := atomicLoad(r, at+rID)
		seen := id < self && !brokenCycleToldToAll || len(key) > 128 // (not the lowest id: another member is told)
		for i := 0; i < len(key); i += 2 {
			seen = seen || key[i] == id // a cycle that this agent is not in
		}
		if seen {
			key = nil
			break
		}
		key = append(key, id, atomicLoad(r, at+rWaitStamp))
		again = again && atomicLoad(r, at+rReadStamp) > s.clock
		next := atomicLoad(r, at+rHolder)
		if next == self {
			break
		}
		if at = recordOf(next); at < 0 || deadAt(at) || atomicLoad(r, at+rKind) == 0 || atomicLoad(r, at+rBlocking)&waitCycle == 0 && !brokenCycleThroughAsync {
			key = nil
			break
		}
	}
	switch {
	case key == nil:
		s.suspect = nil
		return false
	case !equalInt32s(key, s.suspect) && !brokenCycleAtFirstSight:
		s.suspect, s.clock = key, tick()
		return false
	case !again && !brokenCycleAtFirstSight:
		return false
	}
	s.lastCycle, s.suspect = cycleMembers(key), nil
	return true
}

func equalInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The columns of a deadlock's members (the text TEXT_DEADLOCK: a JSON
// array of rows, one a member, in the cycle's order, the told agent first),
// published (DEADLOCK_AGENT, ...): the hosts word the message
// (internal/proto/messages.go's MsgDeadlock), each member by name where its
// primitive is one by name, whose name the module does not keep.
const (
	deadlockAgent      = 0 // the member's agent id
	deadlockType       = 1 // what it waits for: "Mutex", "RWMutex", ... (kindWords)
	deadlockMode       = 2 // how: "" or "read", "write", "send", "receive" (kindWords)
	deadlockIndex      = 3 // the first slot of that primitive, in its memory
	deadlockInRegistry = 4 // 1 if that memory is the registry's (a primitive by name's: waitInRegistry), else 0
	deadlockHolder     = 5 // the agent it waits for: the next member
	deadlockColumns    = 6
)

// cycleMembers is the deadlock's members (TEXT_DEADLOCK), read from their
// records while every member but this agent is asleep in the cycle. key:
// the members' ids (and wait stamps).
func cycleMembers(key []int32) []byte {
	var t textBuilder
	sep := "["
	for i := 0; i < len(key); i += 2 {
		at := recordOf(key[i])
		var row [deadlockColumns]int32
		row[deadlockAgent] = key[i]
		row[deadlockIndex] = atomicLoad(reg.mem, at+rIndex)
		row[deadlockInRegistry] = bit(atomicLoad(reg.mem, at+rBlocking) & waitInRegistry)
		row[deadlockHolder] = key[(i+2)%len(key)]
		typ, mode := kindWords(waitKind(atomicLoad(reg.mem, at+rKind)))
		t.s(sep).row(row[:], deadlockType, typ, deadlockMode, mode)
		sep = ","
	}
	return t.s("]").b
}

// kindWords is what a wait of kind k waits for (its primitive's type) and
// how (its mode, or ""), as the deadlock's members and the snapshot say.
func kindWords(k waitKind) (typ, mode string) {
	switch k {
	case kindLock:
		return "Mutex", ""
	case kindRWRead:
		return "RWMutex", "read"
	case kindRWAnnounce, kindRWDrain:
		return "RWMutex", "write"
	case kindSemAcquire, kindSemReserved:
		return "Semaphore", ""
	case kindWGWait:
		return "WaitGroup", ""
	case kindBarrier:
		return "Barrier", ""
	case kindOnce:
		return "Once", ""
	case kindCond:
		return "Cond", ""
	case kindChanRoom, kindChanRoomWaited:
		return "Channel", "send"
	case kindChanMsg, kindChanMsgWaited:
		return "Channel", "receive"
	case kindLockRequest:
		return "Lock", ""
	}
	return "primitive", ""
}

// kindWhat is the snapshot's kind of a wait of kind k: its type, then its
// mode in parentheses ("RWMutex (read)").
func kindWhat(k waitKind) string {
	typ, mode := kindWords(k)
	if mode != "" {
		return typ + " (" + mode + ")"
	}
	return typ
}

// The columns of the snapshot's rows, published (SNAPSHOT_NAME, ...).
const (
	snapshotName         = 0 // the agent's name
	snapshotKind         = 1 // what the wait it is in waits for ("Mutex", "RWMutex (read)", ...: kindWhat), or ""
	snapshotAgent        = 2 // its id
	snapshotAlive        = 3 // 1 unless the agent has ended
	snapshotIndex        = 4 // the first slot of the wait's primitive
	snapshotHolder       = 5 // the agent the wait waits for (0: none, or not known)
	snapshotSinceMs      = 6 // how long it has waited
	snapshotBlocked      = 7 // 1 if its agent can run nothing else until the call returns (deadline or not)
	snapshotDeadlineInMs = 8 // how long until the wait's deadline (0 once passed; -1: it has none)
	snapshotInRegistry   = 9 // 1 if its primitive is in the registry's memory (one by name, which the hosts name: waitInRegistry)
	snapshotColumns      = 10
)

// snapshotJSON is who waits for whom, as this agent's registry says, for
// the glue's snapshot() and sabsync's Snapshot(): a JSON array of every
// agent that joined, in join order, each a row of the columns above. The
// wait is the one it is in once that wait has lasted watchMs (an agent in
// several asynchronous waits shows the first to last); else kind is "" and
// the numbers after alive 0 (deadlineInMs -1).
func snapshotJSON() []byte {
	var t textBuilder
	now, r := int32(registryNowMs()), reg.mem
	sep := "["
	eachRecord(func(at int32) {
		var row [snapshotColumns]int32
		k := waitKind(atomicLoad(r, at+rKind))
		row[snapshotAgent], row[snapshotAlive], row[snapshotDeadlineInMs] = atomicLoad(r, at+rID), 1, -1
		if deadAt(at) {
			k, row[snapshotAlive] = 0, 0
		}
		kind := ""
		if k != 0 {
			flags := atomicLoad(r, at+rBlocking)
			kind = kindWhat(k)
			row[snapshotIndex], row[snapshotHolder] = atomicLoad(r, at+rIndex), atomicLoad(r, at+rHolder)
			row[snapshotSinceMs] = max(0, now-atomicLoad(r, at+rSince))
			row[snapshotBlocked], row[snapshotInRegistry] = bit(flags&waitBlocked), bit(flags&waitInRegistry)
			if flags&waitDeadline != 0 {
				row[snapshotDeadlineInMs] = max(0, atomicLoad(r, at+rDeadline)-now)
			}
		}
		t.s(sep).row(row[:], snapshotName, nameAt(at), snapshotKind, kind)
		sep = ","
	})
	if sep == "[" {
		return []byte("[]")
	}
	return t.s("]").b
}

// bit is 1 if x is not 0, else 0.
func bit(x int32) int32 {
	if x != 0 {
		return 1
	}
	return 0
}

// A textBuilder makes the core's text (messages, the snapshot): a call per
// piece (noinline), which costs the module far less than appends written
// out: in Go's WebAssembly, each append inlined grows its call site
// (docs/decisions/registry-in-go.md).
type textBuilder struct{ b []byte }

//go:noinline
func (t *textBuilder) s(x string) *textBuilder {
	t.b = append(t.b, x...)
	return t
}

// n writes v in decimal digits (strconv would cost the module more).
//
//go:noinline
func (t *textBuilder) n(v int32) *textBuilder {
	var digits [11]byte
	i := len(digits)
	u := uint32(v)
	if v < 0 {
		u = -u
	}
	for {
		i--
		digits[i] = byte('0' + u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	if v < 0 {
		i--
		digits[i] = '-'
	}
	t.b = append(t.b, digits[i:]...)
	return t
}

// q writes x as a JSON string (as JSON.stringify does, but for the
// characters it leaves as they are).
//
//go:noinline
func (t *textBuilder) q(x string) *textBuilder {
	t.s(`"`)
	for i := 0; i < len(x); i++ {
		c := x[i]
		if c == '"' || c == '\\' {
			t.s(`\`)
		}
		if c < 0x20 {
			t.s(`\u00`).s(hexDigits[c>>4 : c>>4+1])
			c = hexDigits[c&15]
		}
		t.b = append(t.b, c)
	}
	return t.s(`"`)
}

const hexDigits = "0123456789abcdef"

// row writes a JSON array of nums, but for the columns i and j, which are
// the strings x and y.
//
//go:noinline
func (t *textBuilder) row(nums []int32, i int, x string, j int, y string) *textBuilder {
	sep := "["
	for c, v := range nums {
		t.s(sep)
		switch c {
		case i:
			t.q(x)
		case j:
			t.q(y)
		default:
			t.n(v)
		}
		sep = ","
	}
	return t.s("]")
}

// agent writes how messages name agent id: `agent 7` or `agent 7 ("decoder 2")`.
//
//go:noinline
func (t *textBuilder) agent(id int32) *textBuilder {
	t.s("agent ").n(id)
	if at := recordOf(id); at >= 0 && atomicLoad(reg.mem, at+rNameLength) > 0 {
		t.s(" (").q(nameAt(at)).s(")")
	}
	return t
}

// text is where the glue and the core pass text (names, messages, the
// snapshot) through the core's memory: the op OP_TEXT gives its address.
var text []byte

// The texts of the op OP_TEXT_OF.
const (
	textDeadlock     = 1 // the members of the last deadlock told to this agent (cycleMembers)
	textSnapshot     = 2 // the snapshot (snapshotJSON)
	textAgentLabel   = 3 // how messages name an agent (textBuilder.agent)
	textLifeLockName = 4 // the name of an agent's life lock (lifeLockName; mem: the registry)
)

func textOf(mem, which, id int32) []byte {
	var t textBuilder
	switch which {
	case textDeadlock:
		return watchState.lastCycle
	case textSnapshot:
		return snapshotJSON()
	case textAgentLabel:
		return t.agent(id).b
	case textLifeLockName:
		return lifeLockName(mem, id)
	}
	return nil
}

// textOut puts b in text for the glue and returns its length.
func textOut(b []byte) int32 {
	text = append(text[:0], b...)
	return int32(len(text))
}

// textAddress makes text n bytes long (keeping what it holds when it has
// room) and returns the address of its first byte. No limit but memory's:
// a query of 100,000 held locks is megabytes, a lock name any length.
func textAddress(n int32) int32 {
	if n < 0 || n > 1<<30 {
		return resultTooMany
	}
	if int(n) > cap(text) {
		text = make([]byte, n, n+64)
	}
	text = text[:n:cap(text)]
	if cap(text) == 0 {
		text = make([]byte, 0, 64)
	}
	return int32(uintptr(unsafe.Pointer(unsafe.SliceData(text[:cap(text)]))))
}
