//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/wasm/proto"
)

// Channel is sabmutex's Channel (wasm/core/chan.go) from Go: a bounded
// queue of messages, many senders and many receivers, on the same slots as
// new sabmutex.Channel(memory, index, capacity, maxMessageBytes) in
// JavaScript, so Go programs, JavaScript workers and the page send to and
// receive from one channel. Every message sent is received exactly once;
// one sender's arrive in the order it sent them. A message is bytes or a
// string, copied in and out: what JavaScript sends as a string arrives
// with Text set, and SendString's arrive in JavaScript as strings.
//
// As with the other primitives, the core decides (it takes the channel's
// lock and waits for room or a message) and this file copies the message
// between the core's first step and its commit, as jsglue/channel.js does.
type Channel struct {
	s                  slots
	u8                 js.Value // the bytes of the whole buffer
	capacity, maxBytes int32
	cellSlots          int32
}

// Message is what Recv gives: the bytes, and whether they were sent as a
// string (then they are UTF-8).
type Message struct {
	Data []byte
	Text bool
}

// String is the message as a string (its bytes, whatever it was sent as).
func (m Message) String() string { return string(m.Data) }

// ErrClosed is what Send returns on a closed channel (nothing was sent),
// and Recv once the channel is closed and drained.
var ErrClosed = errors.New("sabmutex: the channel is closed")

const (
	chanSlots    = proto.ChanSlots
	chanPosMask  = proto.ChanPosMask
	chanKindText = proto.ChanKindString
	chanMaxCap   = proto.ChanMaxCapacity
	chanMaxBytes = (proto.ChanMaxCellSlots - 1) * 4
	resultClosed = proto.ResultClosed
	chanLenMask  = chanKindText - 1
)

// ChannelSlots is how many int32 slots a Channel of capacity messages of up
// to maxMessageBytes bytes each uses (Channel.slotsFor in JavaScript).
func ChannelSlots(capacity, maxMessageBytes int) int {
	return int(chanSlots) + capacity*int(cellSlotsOf(int32(maxMessageBytes)))
}

func cellSlotsOf(maxBytes int32) int32 { return 1 + (maxBytes+3)/4 }

// NewChannel is the Channel at mem[index] (ChannelSlots(capacity,
// maxMessageBytes) slots; zeroed: an empty open channel). Every agent must
// give the same capacity and maxMessageBytes.
func NewChannel(mem js.Value, index, capacity, maxMessageBytes int) (*Channel, error) {
	if capacity < 1 || capacity > int(chanMaxCap) {
		return nil, errors.New(proto.Message(proto.MsgSizeRange, "what", "capacity", "max", chanMaxCap, "got", capacity))
	}
	if maxMessageBytes < 0 || maxMessageBytes > int(chanMaxBytes) {
		return nil, errors.New(proto.Message(proto.MsgMaxBytesRange, "max", chanMaxBytes, "got", maxMessageBytes))
	}
	s, err := slotsOf("Channel", int32(ChannelSlots(capacity, maxMessageBytes)), mem, index)
	if err != nil {
		return nil, err
	}
	c := &Channel{s: s, u8: js.Global().Get("Uint8Array").New(s.i32.Get("buffer")),
		capacity: int32(capacity), maxBytes: int32(maxMessageBytes), cellSlots: cellSlotsOf(int32(maxMessageBytes))}
	switch r := s.call(proto.OpChanSetUp, c.capacity, c.cellSlots); r {
	case resultOK:
		return c, nil
	case resultMismatch:
		return nil, errors.New(proto.Message(proto.MsgChannelMismatch, "what", s.what, "capacity", c.load(6), "bytes", (c.load(7)-1)*4,
			"gotCapacity", capacity, "gotBytes", maxMessageBytes))
	default:
		return nil, s.failure(r)
	}
}

func (c *Channel) load(i int32) int32 { return int32(aLoad.Invoke(c.s.i32, c.s.at+i).Int()) }

// Cap is how many messages the channel holds.
func (c *Channel) Cap() int { return int(c.capacity) }

// Len is how many messages are in it now.
func (c *Channel) Len() int {
	n := c.s.call(proto.OpChanLength, 0, 0)
	if n < 0 {
		panic(c.s.failure(n))
	}
	return int(n)
}

// Closed is whether Close was called (by any agent).
func (c *Channel) Closed() bool { return c.load(5)&proto.ChanClosed != 0 }

// Send puts msg in, parking the goroutine while the channel is full. It
// returns ErrClosed if the channel is closed (or closes while it waits),
// ctx's error once ctx is done, or an error for a message longer than
// maxMessageBytes; then nothing was sent.
func (c *Channel) Send(ctx context.Context, msg []byte) error { return c.send(ctx, msg, 0) }

// SendString is Send of a string, received in JavaScript as a string.
func (c *Channel) SendString(ctx context.Context, msg string) error {
	return c.send(ctx, []byte(msg), chanKindText)
}

// TrySend puts msg in if there is room now; it never waits. It returns
// false if the channel is full, and errors as Send.
func (c *Channel) TrySend(msg []byte) (bool, error) {
	if err := c.checkSize(msg); err != nil {
		return false, err
	}
	r := c.s.call(proto.OpChanTrySend, 0, 0)
	if r == resultBusy {
		return false, nil
	}
	return true, c.sent(r, msg, 0)
}

func (c *Channel) send(ctx context.Context, msg []byte, kind int32) error {
	if err := c.checkSize(msg); err != nil {
		return err
	}
	r, err := c.s.wait(ctx, proto.KindChanSend, 0)
	if err != nil {
		return err
	}
	return c.sent(r, msg, kind)
}

func (c *Channel) checkSize(msg []byte) error {
	if len(msg) > int(c.maxBytes) {
		return errors.New(proto.Message(proto.MsgMessageTooLong, "call", "send", "bytes", len(msg), "encoded", "", "max", c.maxBytes, "what", c.s.what))
	}
	return nil
}

// sent ends a send after the core's first step returned r: holding the
// lock, the copy into the cell at the tail, then the core's commit.
func (c *Channel) sent(r int32, msg []byte, kind int32) error {
	if r == resultOK || r == resultHolderDied {
		cell := c.cell(c.load(5) & chanPosMask)
		aStore.Invoke(c.s.i32, cell, int32(len(msg))|kind)
		if len(msg) > 0 {
			js.CopyBytesToJS(c.u8.Call("subarray", (cell+1)*4, (cell+1)*4+int32(len(msg))), msg)
		}
		r = c.s.call(proto.OpChanSendCommit, 0, 0)
	}
	switch r {
	case resultOK:
		return nil
	case resultClosed:
		return ErrClosed
	}
	return c.s.failure(r)
}

// Recv takes the next message, parking the goroutine while the channel is
// empty. It returns ErrClosed once the channel is closed and drained, or
// ctx's error once ctx is done.
func (c *Channel) Recv(ctx context.Context) (Message, error) {
	r, err := c.s.wait(ctx, proto.KindChanRecv, 0)
	if err != nil {
		return Message{}, err
	}
	return c.received(r)
}

// TryRecv takes the next message if one is in now; it never waits. ok is
// false if none is (closed or not: Closed tells).
func (c *Channel) TryRecv() (msg Message, ok bool) {
	r := c.s.call(proto.OpChanTryRecv, 0, 0)
	if r == resultBusy || r == resultClosed {
		return Message{}, false
	}
	m, _ := c.received(r)
	return m, true
}

// received ends a receive: holding the lock, the copy out of the cell at
// the head, then the core's commit. The message's length word is checked
// first: one no message can have is reported, and the lock given back.
func (c *Channel) received(r int32) (Message, error) {
	switch r {
	case resultClosed:
		return Message{}, ErrClosed
	case resultOK, resultHolderDied:
	default:
		panic(c.s.failure(r))
	}
	cell := c.cell(c.load(4) & chanPosMask)
	meta := int32(aLoad.Invoke(c.s.i32, cell).Int())
	n := meta & chanLenMask
	if meta < 0 || n > (c.cellSlots-1)*4 {
		c.s.call(proto.OpUnlock, 0, 0) // change nothing
		panic(fmt.Errorf("%w: a message in %s has a length word of %d, which no message can have, so something else wrote to its slots; give each object its own slots", ErrCorrupted, c.s.what, meta))
	}
	m := Message{Data: make([]byte, n), Text: meta&chanKindText != 0}
	if n > 0 {
		js.CopyBytesToGo(m.Data, c.u8.Call("subarray", (cell+1)*4, (cell+1)*4+n))
	}
	if r := c.s.call(proto.OpChanRecvCommit, 0, 0); r != resultOK {
		panic(c.s.failure(r))
	}
	return m, nil
}

// Close closes the channel: sends return ErrClosed from then on (also those
// parked), and receivers get what is left, then ErrClosed. Like close of a
// Go channel, a second Close panics.
func (c *Channel) Close() {
	switch r := c.s.call(proto.OpChanClose, 0, 0); r {
	case resultOK:
	case resultClosed:
		panic(errors.New(proto.Message(proto.MsgClosedAlready, "what", c.s.what)))
	default:
		panic(c.s.failure(r))
	}
}

// cell is the first slot of the cell of position pos.
func (c *Channel) cell(pos int32) int32 { return c.s.at + chanSlots + (pos%c.capacity)*c.cellSlots }
