//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Cond is sabmutex's Cond (internal/core/cond.go) from Go, on the same slot as
// its JavaScript twin, used with the Mutex L: no Signal sent after Wait
// began is lost, in any language.
type Cond struct {
	s slots
	L *Mutex
}

// NewCond is the Cond at mem[index] (CondSlots slots; zeroed: nobody
// waits), guarded by l.
func NewCond(mem js.Value, index int, l *Mutex) (*Cond, error) {
	s, err := slotsOf("Cond", CondSlots, mem, index)
	if err != nil {
		return nil, err
	}
	return &Cond{s, l}, nil
}

// Wait unlocks c.L (held by this program), parks until a Signal or
// Broadcast, and locks c.L again before it returns. Check the condition
// again when it returns, in a loop, as with sync.Cond.
func (c *Cond) Wait() { must(c.WaitContext(context.Background())) }

// WaitContext is Wait that stops waiting once ctx is done; it locks c.L
// again either way, and then returns ctx's error. With ctx done already, it
// returns ctx's error at once, c.L held all along.
func (c *Cond) WaitContext(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	seq := c.s.call(proto.OpCondWaitBegin, c.L.s.mem, c.L.s.at)
	switch {
	case seq == resultNotLocked || seq == resultNotHolder:
		panic(errors.New("sabmutex: " + proto.MsgCondNeedsMutex))
	case seq < 0:
		panic(c.s.failure(seq))
	}
	if debugging {
		debugReleased(&c.L.debug, markHold) // released by the wait's beginning, taken again by its c.L.Lock()
	}
	r, err := c.s.wait(ctx, proto.KindCond, seq)
	c.L.Lock()
	if err == nil && r != resultOK && r != resultBusy {
		panic(c.s.failure(r))
	}
	return err
}

// Signal wakes one waiter, if any, in any agent.
func (c *Cond) Signal() { c.notify(1) }

// Broadcast wakes every waiter.
func (c *Cond) Broadcast() { c.notify(-1) }

func (c *Cond) notify(count int32) {
	if r := c.s.call(proto.OpCondNotify, count, 0); r < 0 {
		panic(c.s.failure(r))
	}
}
