//go:build js && wasm

package sabsync

import (
	"errors"
	"fmt"
)

var (
	resultNotLocked = published["RESULT_NOT_LOCKED"]
	resultCorrupted = published["RESULT_CORRUPTED"]
	resultNotHolder = published["RESULT_NOT_HOLDER"]
	resultTooMany   = published["RESULT_TOO_MANY"]
	resultMismatch  = published["RESULT_MISMATCH"]
	resultNegative  = published["RESULT_NEGATIVE"]
	resultLast      = published["RESULT_LAST"]
	resultRun       = published["RESULT_RUN"]
)

// ErrCorrupted is what every error for a word that no primitive can hold
// wraps: something other than sabmutex wrote to the primitive's slots.
var ErrCorrupted = errors.New("sabmutex: corrupted state")

// failure is the error for a core result that is not an outcome the caller
// handles, with the messages the JavaScript API gives (jsglue/primitive.js).
func (s slots) failure(r int32) error {
	if r == resultCorrupted {
		return fmt.Errorf("%w in %s: its first slot holds %d, which it cannot hold, so something else wrote to its slots; give each object SLOTS slots of its own",
			ErrCorrupted, s.what, aLoad.Invoke(s.i32, s.at).Int())
	}
	return fmt.Errorf("sabmutex: internal error: the core returned %d for %s; please report this", r, s.what)
}

// acquired is the outcome of an acquisition: true (had), false (busy or
// timed out), or a panic with failure's error, as for a corrupted word.
func (s slots) acquired(r int32) bool {
	switch r {
	case resultOK, resultHolderDied:
		return true
	case resultBusy:
		return false
	}
	panic(s.failure(r))
}
