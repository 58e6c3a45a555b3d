package coretest

import (
	"encoding/binary"
	"fmt"
	"testing"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// The explorer on the lock request queues (internal/core/lockq.go), as the
// hosts reach them: OP_LOCK_REQUEST on a name table, a wait of
// KIND_LOCK_REQUEST on the record it returns (blocking, or begun and
// turned as the glue's waitFor does, aborted at its first sleep), then
// OP_LOCK_RELEASE; each call that finds the table's guard held sleeps on
// it (WATCH_MS at most) and calls again, as lookupName does on a claim.
// What must hold, in every schedule:
//
//	| what                          | how it is checked                                |
//	| a request lands in its name's | when OP_LOCK_REQUEST returns, its record is      |
//	| queue                         | PENDING or GRANTED, linked in a LIVE queue slot  |
//	|                               | that holds its name (lqReturned)                 |
//	| exclusion by mode             | on entering, no other holder of the name whose   |
//	|                               | record is not STOLEN is inside, unless both are  |
//	|                               | shared (lqEnter)                                 |
//	| grants in the queue's order   | on entering, every request the queue showed      |
//	|                               | ahead of it when its request returned has        |
//	|                               | entered, unless both are shared, or it was       |
//	|                               | abandoned, stolen, or its agent ended            |
//	| a steal is granted at once,   | a steal returns GRANTED, at the head, the only   |
//	| alone                         | GRANTED record of the table; a robbed release    |
//	|                               | (its record made STOLEN: sched.onStore) returns  |
//	|                               | RESULT_NOT_HOLDER, every other RESULT_OK         |
//	| no lost wake-up               | every wait ends (the scheduler's stuck check)    |
//	| the fast path as the glue's   | a fast take (OP_LOCK_FAST_TAKE with the slot and |
//	|                               | gen its role's last request of the name found)   |
//	|                               | is checked as a grant (exclusion, order: nothing |
//	|                               | was queued); its release (OP_LOCK_FAST_LET_GO,   |
//	|                               | else OP_LOCK_RELEASE_FAST) says RESULT_NOT_HOLDER |
//	|                               | exactly when a steal made its word OFF           |
//	| the table left clean          | after the schedule, the guard free, each queue   |
//	|                               | the index holds idle (no record, its fast word   |
//	|                               | 0), no name in it twice, every record a request  |
//	|                               | returned FREE; where an agent ended, at most its |
//	|                               | one record and the one queue that links only it, |
//	|                               | or holds its fast lock                           |
//	| growth                        | the index's first array has one entry: a second  |
//	|                               | name rehashes it into a new one, from the heap,  |
//	|                               | which grows the memory (its reads past the end   |
//	|                               | panic); every check above holds across it        |
//
// The order is checked against what the queue showed, not against the
// order the requests returned in: two requests can return in another
// order than they were linked (the first lets the guard go and is
// preempted before it returns).
//
// The memory: a name table's header at 0 of which the core reads only
// the lock table's first slot (names.go's nLocks); the lock table after
// it, as lqMake writes it but for its index: an array of one entry (in a
// block of 8 slots), so that the second name grows the table (lqRehash);
// then the heap, which grows the memory up to lqxGrowTo words.
const (
	lqxNLocks  = 5  // names.go's nLocks
	lqxAt      = 8  // the lock table's first slot
	lqxHeader  = 72 // lockq.go's lqHeader
	lqxhIndex  = 2  // lockq.go's header: lqhIndex, lqhHeap
	lqxhHeap   = 5
	lqxIndex   = lqxAt + lqxHeader // the first index
	lqxHeap    = lqxIndex + 8      // where the heap begins
	lqxWords   = lqxHeap
	lqxGrowTo  = lqxWords + 1024
	lqxRecords = 64 // the most records a schedule's walk of a queue may pass (a cycle past it)

	lqxqState, lqxqLength, lqxqHead, lqxqName = 0, 2, 3, 10 // a queue's
	lqxqFast, lqxqGen, lqxqRun                = 4, 5, 8
	lqxRunCount, lqxRunStolen, lqxRunTags     = 1<<16 - 1, 1 << 29, 1<<29 - 1<<16 // its run word's
	lqxqLive                                  = 1
	lqxFastOff                                = -1 << 31
	lqxrState, lqxrAgent, lqxrNext, lqxrQueue = 0, 1, 3, 4 // a record's
	lqxrTable                                 = 5
	lqxFree, lqxAbandoned                     = 0, 3
	lqxEmpty, lqxTomb                         = 0, -1 // an index entry's
)

// lqReq is one request: its role, and which of the role's requests.
type lqReq struct{ role, seq int }

// lqState is what the lock queues' roles keep, and the observer.
type lqState struct {
	roleOf  map[int32]int   // by agent id
	seq     []int           // by role: requests begun
	cur     []lqReq         // by role: the request it holds, or last held or asked for
	run     [][]lqReq       // by role: the requests of its run, in order (lqRunOf)
	recReq  map[int32]lqReq // a request's record, once known (a run's, once adopted)
	name    []string        // by role: its current request's
	mode    []int32
	inCS    []bool
	before  map[lqReq][]lqAhead // what its queue showed ahead of it when its request returned
	entered map[lqReq]bool
	gaveUp  map[lqReq]bool
	robbed  map[lqReq]bool // its record was made STOLEN (lqObserve)
	modeOf  map[lqReq]int32
	cache   []map[string][2]int32 // by role: name -> its queue and gen, as the glue's cache
	records map[int32]bool        // every record a request returned
	queues  map[int32]bool        // every queue a request landed in
}

// lqAhead is a request ahead of another in its queue, and its record.
type lqAhead struct {
	req lqReq
	rec int32
}

// lqAct is one request of a role: a name, a mode, and how it waits.
type lqAct struct {
	name   string
	mode   int32
	steal  bool
	async  bool // WaitAsync (begin and turns), not the blocking wait
	abort  bool // async, aborted at its first sleep
	fast   bool // through the fast path, once its role has requested the name before
	run    int  // taken through the fast path, it adds this many requests to its run
	toFast bool // granted at once through the queue, it asks for the fast lock instead (OP_LOCK_TO_FAST), as a name's first request does in the glue
}

func lqInit(s *sched) {
	s.mem[lqxNLocks] = lqxAt
	s.mem[lqxIndex] = 1 // (one entry)
	s.mem[lqxAt+lqxhHeap] = lqxHeap
	s.mem[lqxAt+lqxhIndex] = lqxIndex
	n := len(s.agents)
	s.lq = &lqState{roleOf: map[int32]int{}, seq: make([]int, n), cur: make([]lqReq, n), run: make([][]lqReq, n), recReq: map[int32]lqReq{}, name: make([]string, n), mode: make([]int32, n), inCS: make([]bool, n),
		before: map[lqReq][]lqAhead{}, entered: map[lqReq]bool{}, gaveUp: map[lqReq]bool{}, robbed: map[lqReq]bool{}, modeOf: map[lqReq]int32{},
		cache: make([]map[string][2]int32, n), records: map[int32]bool{}, queues: map[int32]bool{}}
	for i := range n {
		s.lq.cache[i] = map[string][2]int32{}
	}
	for i, a := range s.agents {
		s.lq.roleOf[a.a.ID] = i
	}
	s.onStore = lqObserve
}

// lqObserve marks the request whose record a steal makes STOLEN robbed,
// or whose fast lock another agent's store makes OFF (a steal: X's own
// release through the guard stores it too).
//
// Only a fast word ever goes from less an agent's id to OFF; a record's
// state is the one slot made STOLEN whose block names the table (its
// lqxrTable slot).
func lqObserve(s *sched, a *sagent, i, was, v int32) {
	if v == lqxFastOff && was < 0 && was != lqxFastOff {
		if o, ok := s.lq.roleOf[-was]; ok && o != a.id {
			s.lq.robbed[s.lq.cur[o]] = true
		}
		return
	}
	if v != proto.LockStolen || i < lqxHeap || int(i+lqxrTable) >= len(s.mem) || s.mem[i+lqxrTable] != lqxAt {
		return
	}
	o, ok := s.lq.roleOf[s.mem[i+lqxrAgent]]
	if !ok {
		s.fail("a steal made record %d STOLEN, of agent %d, no role's", i, s.mem[i+lqxrAgent])
	}
	s.lq.robbed[s.lq.cur[o]] = true
}

// lqRole makes the requests acts, one after another; doomed, it ends at
// its scenario's step (sched.doom), at the latest once they are made.
func lqRole(doomed bool, acts ...lqAct) func(s *sched, a *sagent) {
	return func(s *sched, a *sagent) {
		if doomed {
			s.doom(a, s.endAt)
		}
		for _, x := range acts {
			lqOne(s, a, x)
		}
		if doomed && s.endAt >= 0 {
			s.endNow(a)
		}
	}
}

func lqText(mode, flags int32, name string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(mode))
	b = binary.LittleEndian.AppendUint32(b, uint32(flags))
	for _, u := range utf16.Encode([]rune(name)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// lqCall calls op on at (with text, if any), and while the table's guard
// is held, sleeps on it (WATCH_MS at most) and calls again.
func lqCall(s *sched, a *sagent, what string, op, at int32, text []byte) int32 {
	for range namesTries {
		if text != nil {
			t := a.a.Call(proto.OpText, 0, 0, int32(len(text)), 0)
			if !a.a.mod.Memory().Write(uint32(t), text) {
				panic("OP_TEXT outside the module's memory")
			}
		}
		r := a.a.Call(op, 0, at, int32(len(text)), 0)
		if r != resultBusy {
			return r
		}
		slot, id := a.a.sleepOut()
		s.wait(a, slot, int32(id), proto.WatchMS)
	}
	s.fail("role %d: the guard still held after %d %ss", a.id, namesTries, what)
	return 0
}

// lqOne requests, waits, holds for a few steps, and releases.
func lqOne(s *sched, a *sagent, x lqAct) {
	l := s.lq
	l.seq[a.id]++
	req := lqReq{a.id, l.seq[a.id]}
	l.cur[a.id] = req
	l.name[a.id], l.mode[a.id], l.modeOf[req] = x.name, x.mode, x.mode
	flags := int32(0)
	if x.steal {
		flags = proto.LockSteal
	}
	if c, ok := l.cache[a.id][x.name]; ok && x.fast && lqFast(s, a, req, x, c) {
		return
	}
	r := lqCall(s, a, "request", proto.OpLockRequest, 0, lqText(x.mode, flags, x.name))
	if r <= 0 {
		s.fail("role %d: request %q = %d", a.id, x.name, r)
	}
	lqReturned(s, a, req, r, x)
	if x.toFast && s.mem[r+lqxrState] == proto.LockGranted {
		switch got := lqCall(s, a, "to fast", proto.OpLockToFast, r, nil); got {
		case resultOK:
			q := l.cache[a.id][x.name][0]
			lqEnter(s, a, req)
			lqRunAdd(s, a, x, q)
			s.dwell(a)
			l.inCS[a.id] = false
			if lqRunOf(s, a, q) {
				lqFastRelease(s, a, l.cur[a.id], q, l.robbed[l.cur[a.id]])
			}
			return
		case proto.ResultNone:
		default:
			s.fail("role %d: to fast = %d", a.id, got)
		}
	}
	var w int32
	if x.async {
		var abort AbortFunc
		if x.abort {
			abort = abortFirst(s, a)
		}
		w = a.a.WaitAsync(proto.KindLockRequest, 0, r, 0, inf, abort)
	} else {
		w = a.a.Wait(proto.KindLockRequest, 0, r, 0, inf)
	}
	switch w {
	case resultOK:
		lqEnter(s, a, req)
		s.dwell(a)
		l.inCS[a.id] = false
	case Aborted:
		l.gaveUp[req] = true
	default:
		s.fail("role %d: the wait for %q = %d", a.id, x.name, w)
	}
	rel := lqCall(s, a, "release", proto.OpLockRelease, r, nil)
	if want := map[bool]int32{false: resultOK, true: resultNotHolder}[l.robbed[req]]; rel != want {
		s.fail("role %d: release of %q = %d, want %d (robbed by a steal: %v)", a.id, x.name, rel, want, l.robbed[req])
	}
}

// lqFast is a request through the fast path, as the glue makes it, with
// its role's cache c of the name: false if it must go through the queue.
func lqFast(s *sched, a *sagent, req lqReq, x lqAct, c [2]int32) bool {
	l := s.lq
	switch r := a.a.Call(proto.OpLockFastTake, 0, c[0], c[1], 0); r {
	case resultOK:
		l.before[req] = nil // (taken idle: nothing was queued)
		lqEnter(s, a, req)
		lqRunAdd(s, a, x, c[0])
		s.dwell(a)
		l.inCS[a.id] = false
		if lqRunOf(s, a, c[0]) {
			lqFastRelease(s, a, l.cur[a.id], c[0], l.robbed[l.cur[a.id]])
		}
		return true
	case proto.ResultMismatch: // the slot has another name now: let it go
		delete(l.cache[a.id], x.name)
		lqFastRelease(s, a, req, c[0], l.robbed[req])
	case resultBusy:
	default:
		s.fail("role %d: a fast take of %q = %d", a.id, x.name, r)
	}
	return false
}

// lqRunAdd adds x.run requests of x's name to the role's run, holding
// queue q's fast lock, as the glue's tasks do (OP_LOCK_RUN_ADD): each
// one refused is not made (the glue's would go through the queue, which
// this role, holding the lock, cannot wait for). Each made is ahead of
// what the queue held before it was asked for: nothing, if its add was
// right to be let in (a record queued would have sealed the run).
func lqRunAdd(s *sched, a *sagent, x lqAct, q int32) {
	l := s.lq
	for range x.run {
		l.seq[a.id]++
		req := lqReq{a.id, l.seq[a.id]}
		l.modeOf[req] = proto.LockExclusive
		ahead := lqAheadOf(s, q, 0)
		l.run[a.id] = append(l.run[a.id], req) // (before: a request that returns meanwhile sees it)
		if r := a.a.Call(proto.OpLockRunAdd, 0, q, 0, 0); r != resultOK {
			if r != resultBusy {
				s.fail("role %d: a run's add = %d", a.id, r)
			}
			l.run[a.id] = l.run[a.id][:len(l.run[a.id])-1]
			l.gaveUp[req] = true // (never made)
			continue
		}
		l.before[req] = ahead
	}
}

// lqRunOf hands queue q's fast lock to each request of the role's run
// in turn (OP_LOCK_RUN_NEXT), each checked as a grant; or, once a steal
// has made the run records (RESULT_NOT_HOLDER), adopts them
// (OP_LOCK_RUN_ADOPT) and waits for each, holds and releases it. Whether
// the role still holds the fast lock (its last request's: let it go).
func lqRunOf(s *sched, a *sagent, q int32) bool {
	l := s.lq
	for len(l.run[a.id]) > 0 {
		next := l.run[a.id][0]
		l.run[a.id] = l.run[a.id][1:] // (before: a request that returns meanwhile no longer sees it)
		switch r := a.a.Call(proto.OpLockRunNext, 0, q, 0, 0); r {
		case resultOK:
			if l.robbed[l.cur[a.id]] {
				s.fail("role %d: its run handed on a lock that a steal took", a.id)
			}
			l.cur[a.id] = next
			lqEnter(s, a, next)
			s.dwell(a)
			l.inCS[a.id] = false
		case resultNotHolder:
			l.run[a.id] = append([]lqReq{next}, l.run[a.id]...)
			lqAdopt(s, a, q)
			return false
		default:
			s.fail("role %d: a run's hand-off with %d requests in it = %d", a.id, len(l.run[a.id])+1, r)
		}
	}
	if r := a.a.Call(proto.OpLockRunNext, 0, q, 0, 0); r != proto.ResultNone && r != resultNotHolder {
		s.fail("role %d: an empty run's hand-off = %d", a.id, r)
	}
	return true
}

// lqAdopt waits for, holds and releases each of the role's run's
// requests that a steal made records, in order.
func lqAdopt(s *sched, a *sagent, q int32) {
	l := s.lq
	r := a.a.Call(proto.OpLockRunAdopt, 0, 0, q, 0)
	run := l.run[a.id]
	l.run[a.id] = nil
	var recs []int32
	for range run {
		if r < lqxHeap || int(r+lqxrTable) >= len(s.mem) || s.mem[r+lqxrAgent] != a.a.ID || s.mem[r+lqxrQueue] != q {
			s.fail("role %d: its run of %d, made records, reads record %d", a.id, len(run), r)
		}
		recs = append(recs, r)
		l.records[r] = true
		r = s.mem[r+lqxrNext]
	}
	for i, req := range run {
		l.recReq[recs[i]] = req
	}
	for i, req := range run {
		l.cur[a.id] = req
		if w := a.a.Wait(proto.KindLockRequest, 0, recs[i], 0, inf); w != resultOK {
			s.fail("role %d: the wait for its run's record %d = %d", a.id, recs[i], w)
		}
		lqEnter(s, a, req)
		s.dwell(a)
		l.inCS[a.id] = false
		if rel := lqCall(s, a, "release", proto.OpLockRelease, recs[i], nil); rel != resultOK {
			s.fail("role %d: release of its run's record %d = %d", a.id, recs[i], rel)
		}
	}
}

// lqAheadOf is what queue q shows ahead of record r (0: all of it): its
// fast holder's run (while the fast word is its holder's), then its
// records PENDING or GRANTED, each with the request it is: a record a
// request returned or a run adopted; else the next of its role's run
// (a steal made them records, not yet adopted) or its role's last.
func lqAheadOf(s *sched, q, r int32) []lqAhead {
	l := s.lq
	var ahead []lqAhead
	if f := s.mem[q+lqxqFast]; f != 0 && f != lqxFastOff {
		if o, ok := l.roleOf[max(f, -f)]; ok && s.mem[q+lqxqRun]&lqxRunStolen == 0 {
			for _, p := range l.run[o][:min(len(l.run[o]), int(s.mem[q+lqxqRun]&lqxRunCount))] {
				ahead = append(ahead, lqAhead{p, 0})
			}
		}
	}
	runs := map[int]int{}
	p, k := s.mem[q+lqxqHead], 0
	for ; p != 0 && p != r; p, k = s.mem[p+lqxrNext], k+1 {
		if k > lqxRecords {
			s.fail("queue %q is a cycle", lqName(s, q))
		}
		if st := s.mem[p+lqxrState]; st == proto.LockPending || st == proto.LockGranted {
			o, ok := l.roleOf[s.mem[p+lqxrAgent]]
			if !ok {
				s.fail("queue %q links record %d of agent %d, no role's", lqName(s, q), p, s.mem[p+lqxrAgent])
			}
			req, known := l.recReq[p]
			if !known {
				if req = (lqReq{o, l.seq[o]}); runs[o] < len(l.run[o]) && st == proto.LockPending {
					req = l.run[o][runs[o]]
					runs[o]++
				}
			}
			ahead = append(ahead, lqAhead{req, p})
		}
	}
	if r != 0 && p != r {
		return nil
	}
	return ahead
}

// lqFastRelease lets queue slot q's fast lock go, through the guard if
// refused: RESULT_NOT_HOLDER if and only if robbed.
func lqFastRelease(s *sched, a *sagent, req lqReq, q int32, robbed bool) {
	r := a.a.Call(proto.OpLockFastLetGo, 0, q, 0, 0)
	if r == resultBusy {
		for range namesTries {
			if r = a.a.Call(proto.OpLockReleaseFast, 0, 0, q, 0); r != resultBusy {
				break
			}
			slot, id := a.a.sleepOut()
			s.wait(a, slot, int32(id), proto.WatchMS)
		}
	}
	if want := map[bool]int32{false: resultOK, true: resultNotHolder}[robbed || s.lq.robbed[req]]; r != want {
		s.fail("role %d: the fast release of slot %d = %d, want %d (robbed: %v)", a.id, q, r, want, robbed || s.lq.robbed[req])
	}
}

// lqName is the name of queue q.
func lqName(s *sched, q int32) string {
	n := s.mem[q+lqxqLength]
	if n < 0 || n > 64 {
		return fmt.Sprintf("(a length of %d)", n)
	}
	units := make([]uint16, n)
	for k := range units {
		units[k] = uint16(s.mem[q+lqxqName+int32(k/2)] >> (16 * (k % 2)))
	}
	return string(utf16.Decode(units))
}

// lqReturned checks request req's record r as OP_LOCK_REQUEST returned
// it (nobody has run since), and keeps what its queue showed ahead of it.
func lqReturned(s *sched, a *sagent, req lqReq, r int32, x lqAct) {
	l := s.lq
	if r < lqxHeap || int(r+lqxrTable) >= len(s.mem) || s.mem[r+lqxrTable] != lqxAt {
		s.fail("role %d: request %q returned %d, not a record", a.id, x.name, r)
	}
	l.records[r] = true
	st := s.mem[r+lqxrState]
	if st == proto.LockStolen && !x.steal && l.robbed[req] {
		return // granted at once, and robbed before it returned
	}
	if st != proto.LockPending && st != proto.LockGranted || x.steal && st != proto.LockGranted {
		s.fail("role %d: request %q (steal: %v) returned a record in state %d", a.id, x.name, x.steal, st)
	}
	q := s.mem[r+lqxrQueue]
	if q < lqxHeap || int(q) >= len(s.mem) || s.mem[q+lqxqState] != lqxqLive || lqName(s, q) != x.name || !lqIndexed(s, q) {
		s.fail("role %d: request %q landed in queue %d, state %d, of the name %q, not in the index", a.id, x.name, q, s.mem[q+lqxqState], lqName(s, q))
	}
	l.cache[a.id][x.name] = [2]int32{q, s.mem[q+lqxqGen]} // (linked: its queue keeps its name)
	l.queues[q] = true
	l.recReq[r] = req
	ahead := lqAheadOf(s, q, r)
	if ahead == nil && !lqLinked(s, q, r) {
		s.fail("role %d: request %q's record %d is not in its queue", a.id, x.name, r)
	}
	if x.steal {
		if s.mem[q+lqxqHead] != r {
			s.fail("role %d: a steal of %q returned, and its record is not the queue's head", a.id, x.name)
		}
		for o := s.mem[r+lqxrNext]; o != 0; o = s.mem[o+lqxrNext] {
			if s.mem[o+lqxrState] == proto.LockGranted {
				s.fail("role %d: a steal of %q returned, and record %d (agent %d) is still GRANTED", a.id, x.name, o, s.mem[o+lqxrAgent])
			}
		}
	}
	l.before[req] = ahead
}

// lqLinked says whether queue q links record r.
func lqLinked(s *sched, q, r int32) bool {
	for p, k := s.mem[q+lqxqHead], 0; p != 0 && k <= lqxRecords; p, k = s.mem[p+lqxrNext], k+1 {
		if p == r {
			return true
		}
	}
	return false
}

// lqEnter is request req's entry into its critical section.
func lqEnter(s *sched, a *sagent, req lqReq) {
	s.step(a)
	l := s.lq
	shared := l.mode[a.id] == proto.LockShared
	for _, p := range l.before[req] {
		if l.entered[p.req] || l.gaveUp[p.req] || l.robbed[p.req] || s.agents[p.req.role].ended ||
			shared && l.modeOf[p.req] == proto.LockShared ||
			p.rec != 0 && l.cur[p.req.role] == p.req && s.mem[p.rec+lqxrState] == lqxAbandoned {
			continue
		}
		s.fail("role %d: its request %d of %q was granted before role %d's request %d, ahead of it in the queue", a.id, req.seq, l.name[a.id], p.req.role, p.req.seq)
	}
	for o, in := range l.inCS {
		// (A request granted, then stolen before its wait looked, goes
		// in as granted, beside its robber, as a Web Lock's callback does.)
		if o == a.id || !in || l.robbed[req] || l.name[o] != l.name[a.id] || l.robbed[l.cur[o]] || shared && l.mode[o] == proto.LockShared {
			continue
		}
		s.fail("exclusion broken: role %d (mode %d) entered %q while role %d (mode %d) was inside", a.id, l.mode[a.id], l.name[a.id], o, l.mode[o])
	}
	l.inCS[a.id], l.entered[req] = true, true
}

// lqEnded is the scenario's news of a role's end: the maker's (makerNews),
// and it is no longer inside.
func lqEnded(s *sched, a *sagent) {
	makerNews(s, a)
	s.lq.inCS[a.id] = false
}

// lqIndexed says whether the table's index holds queue q.
func lqIndexed(s *sched, q int32) bool {
	index := s.mem[lqxAt+lqxhIndex]
	for i := range s.mem[index] {
		if s.mem[index+1+i] == q {
			return true
		}
	}
	return false
}

// lqClean: the table as every role left it. An agent that ended may have
// left its one record, and the one LIVE queue that links only its records,
// or holds its fast lock; and room that nothing links (lockq.go: lost
// room, never a wrong table).
func lqClean(s *sched) string {
	ended := map[int32]bool{}
	for _, a := range s.agents {
		if a.ended {
			ended[a.a.ID] = true
		}
	}
	if g := s.mem[lqxAt]; g != 0 && !ended[g] {
		return fmt.Sprintf("the guard is left held by agent %d", g)
	}
	left := 0
	for r := range s.lq.records {
		if st := s.mem[r+lqxrState]; st != lqxFree {
			if left++; !ended[s.mem[r+lqxrAgent]] || left > 1 {
				return fmt.Sprintf("record %d is left in state %d, of agent %d", r, st, s.mem[r+lqxrAgent])
			}
		}
	}
	for q := range s.lq.queues {
		// A LIVE queue the index does not hold would be made a second
		// time: but for one an eviction made OFF and left (its agent ended).
		if s.mem[q+lqxqState] == lqxqLive && !lqIndexed(s, q) && (s.mem[q+lqxqFast] != lqxFastOff || s.mem[q+lqxqHead] != 0 || len(ended) == 0) {
			return fmt.Sprintf("queue %d (%q) is LIVE and not in the index: its name would be made again", q, lqName(s, q))
		}
	}
	live, names := 0, map[string]bool{}
	index := s.mem[lqxAt+lqxhIndex]
	for i := range s.mem[index] {
		q := s.mem[index+1+i]
		if q == lqxEmpty || q == lqxTomb {
			continue
		}
		if names[lqName(s, q)] {
			return fmt.Sprintf("the index holds two queues of the name %q", lqName(s, q))
		}
		names[lqName(s, q)] = true
		f := s.mem[q+lqxqFast]
		if s.mem[q+lqxqState] != lqxqLive {
			return fmt.Sprintf("the index holds queue %d (%q), which is not LIVE", q, lqName(s, q))
		}
		if s.mem[q+lqxqHead] == 0 && f == 0 && s.mem[q+lqxqRun]&^lqxRunTags != 0 {
			return fmt.Sprintf("queue %d (%q) is idle with a run word of %#x", q, lqName(s, q), s.mem[q+lqxqRun])
		}
		if s.mem[q+lqxqHead] == 0 && (f == 0 || f > 0 && ended[f]) {
			continue // idle, or the fast lock of an agent that ended
		}
		if live++; live > 1 || len(ended) == 0 {
			return fmt.Sprintf("queue %d (%q) is left busy", q, lqName(s, q))
		}
		for r := s.mem[q+lqxqHead]; r != 0; r = s.mem[r+lqxrNext] {
			if !ended[s.mem[r+lqxrAgent]] {
				return fmt.Sprintf("queue %d (%q) is left busy, linking record %d of agent %d", q, lqName(s, q), r, s.mem[r+lqxrAgent])
			}
		}
	}
	return ""
}

func lqScenario(name string, roles ...role) *scenario {
	return &scenario{name: "Lock queue: " + name, roles: roles, words: lqxWords, growTo: lqxGrowTo, steps: 400, init: lqInit, check: lqClean}
}

var (
	lqX = lqAct{name: "a", mode: proto.LockExclusive}
	lqS = lqAct{name: "a", mode: proto.LockShared}

	// Two exclusive requests and a shared one, each waiting blocking.
	lqExclusiveFirst = lqScenario("two exclusive requests and a shared one",
		role{lqRole(false, lqX), 0}, role{lqRole(false, lqX), 1}, role{lqRole(false, lqS), 2})
	// Two shared requests (one waiting asynchronously) and an exclusive one.
	lqSharedFirst = lqScenario("two shared requests and an exclusive one",
		role{lqRole(false, lqAct{name: "a", mode: proto.LockShared, async: true}), 0}, role{lqRole(false, lqS), 1}, role{lqRole(false, lqX), 2})
	// An exclusive request whose asynchronous wait is aborted at its first
	// sleep (a grant may win the race: it then holds and releases), between
	// an exclusive and a shared one.
	lqAbort = lqScenario("an aborted wait between an exclusive and a shared request",
		role{lqRole(false, lqX), 0}, role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, async: true, abort: true}), 1}, role{lqRole(false, lqS), 2})
	// A steal while others hold and wait.
	lqSteal = lqScenario("a steal while others hold and wait",
		role{lqRole(false, lqX), 0}, role{lqRole(false, lqX), 1}, role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, steal: true}), 2})
	// Two names: the second grows the index (its first has one entry),
	// giving "a"'s queue back if it is idle, while "a" is requested again.
	lqReuse = lqScenario("two names, the second growing the table, emptied and made again",
		role{lqRole(false, lqX), 0}, role{lqRole(false, lqAct{name: "b", mode: proto.LockExclusive}), 1},
		role{lqRole(false, lqS, lqAct{name: "b", mode: proto.LockShared}), 2})
	// The fast path: two agents that request twice (the second time
	// through the fast path, once the first found the slot) beside a
	// shared request; a steal of a fast holder's lock; and a fast take of
	// a queue that has been given another name since (the second name
	// grows the index, which gives the idle queues back first).
	lqXF       = lqAct{name: "a", mode: proto.LockExclusive, fast: true}
	lqFastPath = lqScenario("fast takes beside queued requests",
		role{lqRole(false, lqXF, lqXF), 0}, role{lqRole(false, lqXF, lqXF), 1}, role{lqRole(false, lqS), 2})
	lqFastSteal = lqScenario("a steal of a fast holder's lock",
		role{lqRole(false, lqXF, lqXF), 0}, role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, steal: true}), 1})
	lqFastReuse = lqScenario("a fast take of a queue given another name",
		role{lqRole(false, lqXF, lqXF), 0}, role{lqRole(false, lqAct{name: "b", mode: proto.LockExclusive}), 1}, role{lqRole(false, lqX), 2})
	// Growth beside what runs without the guard: "a" taken and released
	// twice (the second time by the fast path: its fast word), "b" grows
	// the index while a third agent's request of "a" waits, and is aborted
	// at its first sleep (a name lost in the move would be made twice, and
	// granted twice).
	lqGrowth = lqScenario("the table grows beside a fast take, a wait and an abort",
		role{lqRole(false, lqXF, lqXF), 0}, role{lqRole(false, lqAct{name: "b", mode: proto.LockExclusive}), 1},
		role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, async: true, abort: true}), 2})
	// The run: an agent that holds the fast lock adds two requests to its
	// run, handed on in turn, while another requests (sealing it) and a
	// third asks for it shared; and while another steals the lock.
	lqXR       = lqAct{name: "a", mode: proto.LockExclusive, fast: true, run: 2}
	lqRun      = lqScenario("a fast holder's run beside an exclusive and a shared request", role{lqRole(false, lqXF, lqXR), 0}, role{lqRole(false, lqX), 1}, role{lqRole(false, lqS), 2})
	lqRunSteal = lqScenario("a steal of a fast holder's lock and its run, a request behind",
		role{lqRole(false, lqXF, lqXR), 0}, role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, steal: true}), 1}, role{lqRole(false, lqX), 2})
	// A name's first request made the fast lock at once, with a run, beside
	// a request and a steal.
	lqToFast = lqScenario("a first request made the fast lock, its run, a request and a steal",
		role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, toFast: true, run: 1}), 0}, role{lqRole(false, lqX), 1},
		role{lqRole(false, lqAct{name: "a", mode: proto.LockExclusive, steal: true}), 2})
	lqScenarios = []*scenario{lqExclusiveFirst, lqSharedFirst, lqAbort, lqSteal, lqReuse, lqFastPath, lqFastSteal, lqFastReuse, lqGrowth, lqRun, lqRunSteal, lqToFast}

	// An agent that ends at each step of an exclusive request, its wait,
	// its hold and its release, while another asks for it exclusively and
	// a third shared (asynchronously); the maker (role 0) marks it DEAD.
	lqEnds = &scenario{
		name: "Lock queue: an agent ends at a step of its request, wait, hold or release, two others request",
		roles: []role{{idle, 0}, {lqRole(true, lqX), 1}, {lqRole(false, lqX), 2},
			{lqRole(false, lqAct{name: "a", mode: proto.LockShared, async: true}), 3}},
		words: lqxWords, growTo: lqxGrowTo, steps: 400, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
	// An agent that ends at each step of a fast take or its release (its
	// second request of the name), while another asks for it.
	lqFastEnds = &scenario{
		name:  "Lock queue: an agent ends at a step of a fast take, its hold or its release, another requests",
		roles: []role{{idle, 0}, {lqRole(true, lqXF, lqXF), 1}, {lqRole(false, lqX), 2}},
		words: lqxWords, growTo: lqxGrowTo, steps: 300, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
	// An agent that ends at each step of its run (its fast take, the two
	// adds, the hand-offs, the release), while another asks for the name
	// (and seals the run).
	lqRunEnds = &scenario{
		name:  "Lock queue: an agent ends at a step of its run, another requests",
		roles: []role{{idle, 0}, {lqRole(true, lqXF, lqXR), 1}, {lqRole(false, lqX), 2}},
		words: lqxWords, growTo: lqxGrowTo, steps: 300, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
	// An agent that ends at each step of the request that grows the table
	// (the index moved, the heap grown), while another takes "a" twice
	// (the second time by the fast path) and a third requests it.
	lqGrowthEnds = &scenario{
		name: "Lock queue: an agent ends at a step of the request that grows the table, two others on another name",
		roles: []role{{idle, 0}, {lqRole(true, lqAct{name: "b", mode: proto.LockExclusive}), 1}, {lqRole(false, lqXF, lqXF), 2},
			{lqRole(false, lqX), 3}},
		words: lqxWords, growTo: lqxGrowTo, steps: 400, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
	// The same with one other agent, which holds "a" (a search of every
	// end that the broken cores can afford).
	lqGrowthEndsSmall = &scenario{
		name:  "Lock queue: an agent ends at a step of the request that grows the table, another holds another name",
		roles: []role{{idle, 0}, {lqRole(true, lqAct{name: "b", mode: proto.LockExclusive}), 1}, {lqRole(false, lqX), 2}},
		words: lqxWords, growTo: lqxGrowTo, steps: 300, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
	// The same with one other agent: a search of every end that the
	// broken cores can afford (TestExploreCatchesBrokenCores).
	lqEndsSmall = &scenario{
		name:  "Lock queue: an agent ends at a step of its request, wait, hold or release, another requests",
		roles: []role{{idle, 0}, {lqRole(true, lqX), 1}, {lqRole(false, lqX), 2}},
		words: lqxWords, growTo: lqxGrowTo, steps: 300, init: lqInit, check: lqClean, onEnd: lqEnded, jumps: true,
	}
)

func TestExploreLockQueue(t *testing.T) {
	t.Parallel() // on hosts of its own (ownHost, watchedHost)
	for _, sc := range lqScenarios {
		e := &explorer{t: t, h: ownHost(t)}
		bound, most := boundOf(), 400000
		switch sc {
		case lqReuse, lqGrowth, lqFastReuse, lqRun, lqRunSteal, lqToFast:
			// The second name grows the table (lqRehash: a new index,
			// its entries cleared one store each), and every schedule
			// passes it: at 2 preemptions, more than the explorer's
			// 400,000 schedules; their PCT runs cover them. (The runs'
			// three agents make some 30 requests' steps: the same.)
			bound = 1
		case lqFastPath:
			most = 1000000 // (at 2 preemptions: 415,723 schedules)
		}
		if f, prefix := e.bounded(sc, bound, most); f != "" {
			t.Fatalf("%s, schedule %v: %s", sc.name, prefix, f)
		}
		t.Logf("%s, ≤ %d preemptions: all %d schedules pass", sc.name, bound, e.runs)
	}
	e := &explorer{t: t, h: ownHost(t)}
	n, first := pctRuns(4000), int64(0)
	if *exploreSeed >= 0 {
		n, first = 1, *exploreSeed
	}
	if seed, f := e.pctOf(lqScenarios, n, first); seed >= 0 {
		t.Fatalf("%s: PCT seed %d: %s\nreplay: -run %s -explore.seed=%d", lqScenarios[seed%int64(len(lqScenarios))].name, seed, f, t.Name(), seed)
	}
	t.Logf("%d PCT schedules pass", e.runs)
}

func TestExploreLockQueueEnds(t *testing.T) {
	t.Parallel() // on hosts of its own (watchedHost)
	exploreEnding(t, lqEndsSmall)
	exploreEnding(t, lqFastEnds)
	exploreEnding(t, lqRunEnds)
	exploreEnding(t, lqGrowthEndsSmall)
	exploreEndingTo(t, lqGrowthEnds, 1)
	// Three agents: to 1 preemption in make test-deep too (at 2, more than
	// the explorer's 400,000 schedules); its PCT runs at full counts there.
	exploreEndingTo(t, lqEnds, 1)
}
