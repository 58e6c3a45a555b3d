//go:build !wasm

package core

import (
	"testing"

	"github.com/sabmutex/sabmutex/internal/futex"
)

// FuzzMutexOps runs a random sequence of operations (each byte one op) on
// one mutex, from one goroutine, and compares every result and the word with
// a simple model: free, held, or overwritten with some value. No operation
// waits: lock gets a zero timeout and lockStep a deadline in the past.
func FuzzMutexOps(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 0, 2, 2},                      // tryLock, tryLock, unlock, unlock
		{1, 3, 2, 4, 2},                   // lock(0), lockStep, unlock, lockStep, unlock
		{0, 5, 0x83, 0, 2, 5, 1, 2},       // overwrite the word with junk, then with legal values
		{5, 0x40, 0, 1, 3, 4, 2, 2, 2},    // overwrite with 0x40 (junk): every op reports corruption
		{0, 4, 2, 0, 0, 0, 2, 3, 2, 1, 2}, // a longer mix
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := futex.New(2)
		nativeMemories = append(nativeMemories, m)
		w := word{mem: int32(len(nativeMemories) - 1), index: 1}
		const (
			free = iota
			held
			junk
		)
		model := free
		for i := 0; i < len(ops); i++ {
			var got, want int32
			op := ops[i] % 6
			switch op {
			case 0:
				got = tryLock(w)
			case 1:
				got = lock(w, 0)
			case 3, 4:
				got = lockStep(w, -1, op == 4) // the deadline has passed
			case 2:
				got = unlock(w)
			case 5:
				// Something else writes the slot: a legal state or junk.
				i++
				v := int32(0)
				if i < len(ops) {
					v = int32(ops[i]) - 3
				}
				m.Store(1, v)
				switch v {
				case stateUnlocked:
					model = free
				case stateLocked, stateContended:
					model = held
				default:
					model = junk
				}
				continue
			}
			switch {
			case model == junk:
				want = resultCorrupted
			case op == 2 && model == held:
				want, model = resultOK, free
			case op == 2:
				want = resultNotLocked
			case model == free:
				want, model = resultOK, held
			default:
				want = resultBusy
			}
			if got != want {
				t.Fatalf("op %d (%d) in %v: got %d, want %d", i, op, ops, got, want)
			}
			switch v := m.Load(1); {
			case model == free && v != stateUnlocked,
				model == held && v != stateLocked && v != stateContended:
				t.Fatalf("after op %d (%d) in %v: word %d, model %d", i, op, ops, v, model)
			}
		}
	})
}
