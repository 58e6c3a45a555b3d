package core

// A once is onceSlots int32 slots at index i:
//
//	i    the state: onceNew, onceRunning, onceRunningWaited (some agent may
//	     sleep on the word), onceDone, onceNewDied (new, and the last
//	     runner ended while it ran fn)
//	i+1  the agent running fn (0 when none)
//
// Zeroed slots are a once whose fn has not run. Transitions:
//
//	new(died) -> running          a caller that will run its fn (resultRun;
//	                              from died, resultRunDied: it is told)
//	running -> running+waited     a caller that waits for the runner
//	running(+waited) -> done      fn returned; wakes every waiter
//	running(+waited) -> new       a JavaScript fn threw: the error goes to
//	                              its caller, and the waiters wake and try
//	                              again, so one of them runs its own fn (a
//	                              failed fn leaves the once as if nobody had
//	                              called it); a Go f that panics finishes
//	                              as done instead (sabsync, as sync.Once)
//	running(+waited) -> new+died  the runner's agent ended (onceReleaseDead):
//	                              as if fn had thrown
//	done                          final
const onceSlots = 2

const (
	onceNew           = 0
	onceRunning       = 1
	onceRunningWaited = 2
	onceDone          = 3
	onceNewDied       = 4
)

// onceStep is one turn of do's wait loop (see step): resultRun when the
// caller is to run fn now, resultOK when fn has run (here or elsewhere).
func onceStep(w prim, deadlineMs float64, sleep sleepKind) int32 {
	for v := w.load(); ; {
		switch v {
		case onceDone:
			return resultOK
		case onceNew, onceNewDied:
			if got := w.cas(v, onceRunning); got != v {
				v = got
				continue
			}
			w.setHolder(w.self)
			if v == onceNewDied {
				return resultRunDied
			}
			return resultRun
		case onceRunning, onceRunningWaited:
		default:
			return resultCorrupted
		}
		if sleep == sleepBlocking && w.holder() == w.self {
			return resultDeadlock // this agent runs fn, and would sleep
		}
		if timedOut(deadlineMs) {
			return resultBusy
		}
		if v == onceRunning {
			if got := w.cas(onceRunning, onceRunningWaited); got != onceRunning {
				v = got
				continue
			}
		}
		return onceRunningWaited
	}
}

// onceReleaseDead ends the run of agent dead, which ended while it ran fn,
// as if fn had thrown: back to new (onceNewDied: the next runner is told),
// and the waiters wake (one of them then runs its own fn). Several waiters may try at once: the one that swaps the
// runner slot from dead does it. Returns resultOK, or resultNotHolder if
// dead does not run fn (or another caller ended its run first).
func onceReleaseDead(w prim, dead int32) int32 {
	if v := w.load(); (v != onceRunning && v != onceRunningWaited) || w.holder() != dead {
		return resultNotHolder
	}
	if atomicCompareExchange(w.mem, w.index+mutexHolderAt, dead, 0) != dead {
		return resultNotHolder
	}
	for v := w.load(); ; {
		if v != onceRunning && v != onceRunningWaited {
			w.setHolder(dead)
			return resultCorrupted
		}
		if got := w.cas(v, onceNewDied); got != v {
			v = got
			continue
		}
		atomicNotify(w.mem, w.index, notifyAll)
		return resultOK
	}
}

// onceFinish ends the run that resultRun started: done if ok, else back to new.
func onceFinish(w prim, ok bool) int32 {
	next := int32(onceNew)
	if ok {
		next = onceDone
	}
	for v := w.load(); ; {
		if v != onceRunning && v != onceRunningWaited {
			return resultCorrupted
		}
		if w.holder() != w.self {
			return resultNotHolder
		}
		w.setHolder(0)
		if got := w.cas(v, next); got != v {
			w.setHolder(w.self)
			v = got
			continue
		}
		if v == onceRunningWaited && !brokenOnceFinishForgetsNotify {
			atomicNotify(w.mem, w.index, notifyAll)
		}
		return resultOK
	}
}
