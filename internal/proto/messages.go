package proto

import (
	"fmt"
	"strings"
)

// The error texts that the JavaScript glue and sabsync both give, each
// written once, here: sabsync fills them in with Message, and make dist
// writes them into jsglue/messages.js (cmd/jsbundle/link.go, checked current by
// go test ./cmd/jsbundle), where the glue fills them in with fill (errors.js).
// {name} is a value that the caller gives. Four are reasons, without the
// "sabmutex: " that the error they go into starts with (MsgTooManyReaders,
// MsgWriterNotHolder, MsgCountPast, MsgCondNeedsMutex), and two are the
// ends of MsgMemoryTooSmall, its {grow} (MsgMemoryGrow, MsgMemoryLarger). Texts that name a
// language's own methods (Unlock or unlock()) are each language's, beside
// its code, or a {call} of the text.
//
// A deadlock's message (MsgDeadlock, a reason too) is the hosts' wording of
// the members that the core publishes as data (TEXT_DEADLOCK, columns
// DEADLOCK_AGENT, ...: internal/core/watch.go's cycleMembers): {members} is
// each member's MsgDeadlockMember, joined by "; "; its {agent} and {holder}
// are agent labels (TEXT_AGENT_LABEL); its {primitive} is MsgPrimitiveNamed
// for a primitive by name (its {name} quoted as JSON.stringify quotes it),
// else MsgPrimitiveAt; {mode} is MsgMode, or "" for a member whose mode is
// "". The lookup of a primitive by name (jsglue/names.js, sabsync/names.go)
// says what an entry is with MsgNamedIs (MsgNamedSemaphore, ... for the
// kinds with parameters).
const (
	MsgMemoryNotShared  = "sabmutex: memory must be shared, but this {kind} is over an ArrayBuffer; create it over a SharedArrayBuffer"
	MsgMemoryKind       = "sabmutex: memory must be a SharedArrayBuffer or an Int32Array over one; got {got}"
	MsgIndexRange       = "sabmutex: index must be a whole number from 0 to {max}, leaving {count} ({slots}) int32 slots in a memory of {length} int32 slots ({bytes} bytes); got {got}"
	MsgMemoryTooSmall   = "sabmutex: {need} needs {bytes} bytes ({slots} int32 slots: {count}); this {kind} has {has} bytes, too few at any index{grow}"
	MsgMemoryGrow       = ": grow it first (it may grow to {max} bytes), or give it a larger one"
	MsgMemoryLarger     = ": give it a larger SharedArrayBuffer"
	MsgSizeRange        = "sabmutex: {what} must be a whole number from 1 to {max}; got {got}"
	MsgSizeMismatch     = "sabmutex: {what} was set up {with} {size} {noun}, not {got}; every agent must pass the same {noun}"
	MsgTooManyReaders   = "too many readers of {what} (at most {max})"
	MsgWriterNotHolder  = "unlock() by an agent that does not hold the write lock of {what}; only the agent that locked it may unlock it"
	MsgReleaseTooMuch   = "sabmutex: release({n}) of {what} gives back more than is taken ({taken}); release only what acquire took"
	MsgAddRange         = "sabmutex: add(delta) takes a whole number from -{max} to {max}; got {got}"
	MsgCountPast        = "{call} would take the count of {what} past {max}"
	MsgCondNeedsMutex   = "wait(mutex) needs mutex held by this agent: lock it first, check the condition, then wait (it unlocks and relocks it for you)"
	MsgMaxBytesRange    = "sabmutex: maxMessageBytes must be a whole number from 0 to {max}; got {got}"
	MsgChannelMismatch  = "sabmutex: {what} was set up with capacity {capacity} and messages of up to {bytes} bytes, not capacity {gotCapacity} and {gotBytes} bytes; every agent must pass the same capacity and maxMessageBytes"
	MsgMessageTooLong   = "sabmutex: {call}: the message is {bytes} bytes{encoded}, more than the {max} bytes (maxMessageBytes) of {what}; nothing was sent. Send it in parts, or make the Channel with a larger maxMessageBytes"
	MsgClosedAlready    = "sabmutex: close() of {what}, which is closed already; close a channel once, from the side that sends its last message"
	MsgTooManyJoins     = "sabmutex: a million agents have joined this registry; start the next workers from a new page"
	MsgDeadlock         = "deadlock: {members}. Each waits in a blocking call for the next, so none could ever go on: this wait ended without taking anything; release what this agent holds (and take locks in one order everywhere)"
	MsgDeadlockMember   = "{agent} waits for the {primitive}, which {holder} holds"
	MsgPrimitiveAt      = "{type}{mode} at index {index}"
	MsgPrimitiveNamed   = "{type} {name}{mode}"
	MsgMode             = " ({mode})"
	MsgNameNone         = "sabmutex: there is no {type} named {name} yet; the first agent to ask for it gives its {params} ({call})"
	MsgNamesFull        = "sabmutex: the registry's name table is full; give init({ names }) more (it holds 10000 by default) in the agent that makes the registry (the page)"
	MsgNameOtherKind    = "sabmutex: the name {name} is {is} in this registry, not a {type}; ask for it with {call}, or give the {type} another name"
	MsgNameOtherParams  = "sabmutex: the name {name} is {is}, not {want}; every agent must give the same {params} (or none: the name's)"
	MsgNamesAnswered    = "sabmutex: internal error: the name table answered {result}"
	MsgNamedIs          = "a {type}"
	MsgNamedSemaphore   = "a Semaphore of {a} permits"
	MsgNamedBarrier     = "a Barrier of {a} parties"
	MsgNamedChannel     = "a Channel of capacity {a} and messages of up to {b} bytes"
	MsgLocksFull        = "sabmutex: the registry's memory is full ({bytes} bytes, as far as this engine lets its SharedArrayBuffer grow): the lock {name} was not requested, and what is held or queued is kept; release locks or abort queued requests to make room (each held name takes about 100 bytes, each queued request 32)"
	MsgRegistryExpected = "sabmutex: {call} takes the registry of sabmutex.forWorker() (post forWorker()'s object to the worker and pass it whole); got {got}"
)

// Message is text with each {name} replaced by its value: args are name,
// value pairs.
func Message(text string, args ...any) string {
	pairs := make([]string, 0, len(args))
	for i := 0; i+1 < len(args); i += 2 {
		pairs = append(pairs, "{"+fmt.Sprint(args[i])+"}", fmt.Sprint(args[i+1]))
	}
	return strings.NewReplacer(pairs...).Replace(text)
}
