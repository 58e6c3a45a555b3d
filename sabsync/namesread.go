//go:build js && wasm

package sabsync

import (
	"encoding/binary"
	"syscall/js"
	"unicode/utf16"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Names where users read them: Snapshot's WaitState.Name, the
// DeadlockError's message and a primitive's own messages (whatAt) say a
// primitive by name's name, as the glue's do (jsglue/names.js's nameAt).
// The module keeps no names: the core marks a wait whose primitive is in
// the registry's memory (where only primitives by name live), and the name
// is read from the table here, sabsync's one reader of it.

// nameAt is the name of the primitive by name whose first slot is index in
// the registry this program joined; false if none. It reads the table's
// entries in one copy (a call into JavaScript per slot would cost
// milliseconds per thousand names), on these cold paths only; a READY
// entry's fields are final.
func nameAt(index int32) (string, bool) {
	if registry == nil {
		return "", false
	}
	i32 := registry.i32
	if n := i32.Get("buffer").Get("byteLength").Int() >> 2; i32.Get("length").Int() < n {
		i32 = js.Global().Get("Int32Array").New(i32.Get("buffer"), 0, n) // (its lock table grew since: lockq.go)
	}
	load := func(at int32) int32 { return int32(i32.Index(int(at)).Int()) }
	table := load(proto.RegistryNames)
	if table == 0 {
		return "", false
	}
	first := table + proto.NamesHeader
	n := int(load(table+proto.NamesEntries) * proto.NameSlots)
	b := make([]byte, 4*n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(i32.Get("buffer"), 4*int(first), 4*n))
	for e := 0; e < n; e += int(proto.NameSlots) {
		// (An Int32Array's bytes are the platform's order: little-endian
		// wherever browsers and Node.js run.)
		slot := func(f int32) int32 { return int32(binary.LittleEndian.Uint32(b[4*(e+int(f)):])) }
		if slot(proto.NamePrim) != index || slot(proto.NameState) != proto.NameReady {
			continue
		}
		// Its code units, two a slot, low first (the core's storeBytes).
		at, units := load(first+int32(e)+proto.NameName), load(first+int32(e)+proto.NameLength)
		u := make([]uint16, units)
		for k := range u {
			u[k] = uint16(uint32(load(at+int32(k/2))) >> (16 * (k % 2)))
		}
		return string(utf16.Decode(u)), true
	}
	return lockNameAt(load, table, index)
}

// lockNameAt is the name of the lock request whose record is at index (a
// wait for a lock: internal/core/lockq.go), false if none: its queue's
// name, read as a primitive's name is. A record lies in the table's heap
// and names the table.
func lockNameAt(load func(int32) int32, table, index int32) (string, bool) {
	locks := load(table + proto.NamesLocks)
	heap := load(locks + proto.LocksHeap)
	if locks == 0 || index < locks+proto.LocksHeader || index >= heap || load(index+proto.LockRecordTable) != locks {
		return "", false
	}
	q := load(index + proto.LockRecordQueue)
	if q < locks+proto.LocksHeader || q >= heap {
		return "", false
	}
	u := make([]uint16, load(q+proto.LockQueueLength))
	for i := range u {
		u[i] = uint16(uint32(load(q+proto.LockQueueName+int32(i/2))) >> (16 * (i % 2)))
	}
	return string(utf16.Decode(u)), true
}
