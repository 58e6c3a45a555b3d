// Package core is sabmutex's lock protocol: a futex mutex whose lock word is
// one int32 slot of the user's SharedArrayBuffer. The Go code here is the one
// definition of the protocol; the JavaScript glue reads the constants below
// from the running module and never defines its own.
//
// The lock word (one int32, read and written only with Atomics):
//
//	bits 0-1   state: stateUnlocked, stateLocked or stateContended
//	bits 2-30  reserved, always zero: room for a starvation flag and the
//	           holder's agent id, so that neither needs a second slot
//	bit  31    never set: every legal word is >= 0, which lets lockStep
//	           return either a word to wait on or a negative result
//
// Legal transitions, and who makes them:
//
//	unlocked  -> locked     lock or tryLock that finds the mutex free (CAS)
//	unlocked  -> contended  a waiter that has slept takes the lock; others may
//	                        still sleep, so its unlock must wake one (CAS)
//	locked    -> contended  a waiter announces itself before it sleeps (CAS)
//	locked    -> unlocked   unlock with nobody asleep: no notify (CAS)
//	contended -> unlocked   unlock, then notify one waiter (store: only the
//	                        holder moves a word away from contended)
//
// Any other word value means something other than sabmutex wrote to the slot;
// every operation reports it as corruption and leaves the word as it found it.
package core

// Slots is how many int32 slots of the user's memory one mutex uses. A zeroed
// slot is an unlocked mutex.
const Slots = 1

// States of the lock word.
const (
	stateUnlocked  = 0 // nobody holds the mutex
	stateLocked    = 1 // held, and nobody is asleep on the word
	stateContended = 2 // held, and some agent may be asleep on the word
)

// Results of the exported calls. They are negative so that lockStep can also
// return a (non-negative) word to wait on.
const (
	resultOK        = -1 // acquired, or released
	resultBusy      = -2 // not acquired: held by someone else, or timed out
	resultNotLocked = -3 // unlock of a mutex that nobody holds; word untouched
	resultCorrupted = -4 // the word holds a value no mutex can hold; word untouched
)
