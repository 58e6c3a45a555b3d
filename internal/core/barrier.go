package core

// A barrier is barrierSlots int32 slots at index i:
//
//	i    the generation (bits 16-30) and how many parties have arrived in it
//	     (bits 0-15), in one word so that an arrival is counted in the
//	     generation it saw
//	i+1  parties: the size every agent gave, recorded by the first (0: not yet)
//
// Zeroed slots are a barrier in generation 0 with nobody arrived.
// Transitions (compare-and-swap):
//
//	(g, c) -> (g, c+1)       an arrival that is not the last; it sleeps
//	                         until the generation moves
//	(g, parties-1) -> (g+1, 0)  the last arrival: wakes everyone
//	(g, c) -> (g, c-1)       an arrival that times out or is aborted before
//	                         the generation moves withdraws, so the others
//	                         still wait for a full set of parties
//
// A waiter can see the generation move at most once (the next one needs its
// arrival too), so it wraps freely.
const barrierSlots = 2

// barrierPartiesAt is the parties slot's offset from the word.
const barrierPartiesAt = 1

const (
	barrierCountMask  = 1<<16 - 1
	barrierGenOne     = 1 << 16
	barrierGenMask    = 1<<31 - 1 - barrierCountMask
	barrierMaxParties = barrierCountMask
)

type barrier struct{ prim }

func (b barrier) parties() int32 { return atomicLoad(b.mem, b.index+barrierPartiesAt) }

func barrierSetUp(b barrier, parties int32) int32 {
	return setUpSize(b.mem, b.index+barrierPartiesAt, parties, barrierMaxParties)
}

// barrierStep is one turn of wait's loop (see step). It returns resultLast
// to the arrival that completed its generation, resultOK to the others once
// it is complete, and resultBusy to a party that gave up (and withdrew).
func barrierStep(b barrier, deadlineMs float64, slept, sleptOn int32) int32 {
	p := b.parties()
	if p < 1 || p > barrierMaxParties {
		return resultCorrupted
	}
	if slept == sleptNone {
		for v := b.load(); ; {
			if v < 0 || v&barrierCountMask >= p {
				return resultCorrupted
			}
			next := v + 1
			if v&barrierCountMask == p-1 {
				next = (v&barrierGenMask + barrierGenOne) & barrierGenMask
			}
			if got := b.cas(v, next); got != v {
				v = got
				continue
			}
			if next&barrierCountMask == 0 {
				atomicNotify(b.mem, b.index, notifyAll)
				return resultLast
			}
			sleptOn = next
			break
		}
	}
	g := sleptOn & barrierGenMask
	for v := b.load(); ; {
		switch {
		case v < 0:
			return resultCorrupted
		case v&barrierGenMask != g:
			return resultOK
		case !timedOut(deadlineMs):
			return v
		case v&barrierCountMask == 0:
			return resultCorrupted
		case brokenBarrierTimeoutKeepsArrival:
			return resultBusy
		}
		if got := b.cas(v, v-1); got != v {
			v = got
			continue
		}
		return resultBusy
	}
}
