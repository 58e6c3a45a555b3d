//go:build js && wasm

package sabsync

import (
	"errors"
	"fmt"

	"github.com/sabmutex/sabmutex/internal/proto"
)

const (
	resultNotLocked = proto.ResultNotLocked
	resultCorrupted = proto.ResultCorrupted
	resultNotHolder = proto.ResultNotHolder
	resultTooMany   = proto.ResultTooMany
	resultMismatch  = proto.ResultMismatch
	resultNegative  = proto.ResultNegative
	resultLast      = proto.ResultLast
	resultRun       = proto.ResultRun
	resultRunDied   = proto.ResultRunDied
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

// setUp records size in a primitive's zeroed slots with op (proto.OpSemSetUp,
// proto.OpBarrierSetUp), or checks it against what the first agent recorded
// at slot sizeAt, with the JavaScript API's messages: noun is "permits" or
// "parties", and with "with" or "for" ("set up with 2 permits").
func (s slots) setUp(op int32, size, max int64, sizeAt int32, with, noun string) error {
	if size < 1 || size > max {
		return errors.New(proto.Message(proto.MsgSizeRange, "what", noun, "max", max, "got", size))
	}
	switch r := s.call(op, int32(size), 0); r {
	case resultOK:
		return nil
	case resultMismatch:
		return errors.New(proto.Message(proto.MsgSizeMismatch, "what", s.what, "with", with, "size", aLoad.Invoke(s.i32, s.at+sizeAt).Int(), "noun", noun, "got", size))
	default:
		return s.failure(r)
	}
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
