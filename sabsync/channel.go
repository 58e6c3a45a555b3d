//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Channel is sabmutex's Channel (internal/core/chan.go) from Go: a bounded
// queue of messages, many senders and many receivers, on the same slots as
// new sabmutex.Channel(memory, index, capacity, maxMessageBytes) in
// JavaScript, so Go programs, JavaScript workers and the page send to and
// receive from one channel. Every message sent is received exactly once;
// one sender's arrive in the order it sent them. A message is bytes or a
// string, copied in and out: what JavaScript sends as a string arrives
// with Text set, and SendString's arrive in JavaScript as strings.
//
// As with the other primitives, the core decides (it claims a cell, naming
// this agent, and waits for room or a message) and this file copies the
// message between the core's claim and its commit, as jsglue/channel.js
// does.
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
	chanKindText = proto.ChanKindString
	chanMaxCap   = proto.ChanMaxCapacity
	chanWords    = proto.ChanCellWords // a cell's words before its bytes
	chanMaxBytes = (proto.ChanMaxCellSlots - chanWords) * 4
	resultClosed = proto.ResultClosed
	chanLenMask  = chanKindText - 1
)

// ChannelSlots is how many int32 slots a Channel of capacity messages of up
// to maxMessageBytes bytes each uses (Channel.slotsFor in JavaScript): 96 +
// capacity × (2 + ⌈maxMessageBytes/4⌉). A capacity or size that NewChannel
// refuses panics, with NewChannel's error, as Channel.slotsFor throws.
func ChannelSlots(capacity, maxMessageBytes int) int {
	if err := checkChannelSizes(capacity, maxMessageBytes); err != nil {
		panic(err)
	}
	return int(chanSlots) + capacity*int(cellSlotsOf(int32(maxMessageBytes)))
}

func cellSlotsOf(maxBytes int32) int32 { return chanWords + (maxBytes+3)/4 }

// checkChannelSizes is the error for a capacity or maxMessageBytes out of
// range, or nil.
func checkChannelSizes(capacity, maxMessageBytes int) error {
	if capacity < 1 || capacity > int(chanMaxCap) {
		return errors.New(proto.Message(proto.MsgSizeRange, "what", "capacity", "max", chanMaxCap, "got", capacity))
	}
	if maxMessageBytes < 0 || maxMessageBytes > int(chanMaxBytes) {
		return errors.New(proto.Message(proto.MsgMaxBytesRange, "max", chanMaxBytes, "got", maxMessageBytes))
	}
	return nil
}

// NewChannel is the Channel at mem[index] (ChannelSlots(capacity,
// maxMessageBytes) slots; zeroed: an empty open channel). Every agent must
// give the same capacity and maxMessageBytes.
func NewChannel(mem js.Value, index, capacity, maxMessageBytes int) (*Channel, error) {
	if err := checkChannelSizes(capacity, maxMessageBytes); err != nil {
		return nil, err
	}
	s, err := slotsNeeded("Channel", fmt.Sprintf("a Channel of capacity %d and %d-byte messages", capacity, maxMessageBytes),
		fmt.Sprintf("ChannelSlots(%d, %d)", capacity, maxMessageBytes), ChannelSlots(capacity, maxMessageBytes), mem, index)
	if err != nil {
		return nil, err
	}
	// (Over the length s.i32 covers, not tracking a growable buffer's: see register.)
	u8 := js.Global().Get("Uint8Array").New(s.i32.Get("buffer"), 0, 4*s.i32.Get("length").Int())
	c := &Channel{s: s, u8: u8,
		capacity: int32(capacity), maxBytes: int32(maxMessageBytes), cellSlots: cellSlotsOf(int32(maxMessageBytes))}
	switch r := s.call(proto.OpChanSetUp, c.capacity, c.cellSlots); {
	case r >= 0: // (this agent's mark: its claims go through the core)
		return c, nil
	case r == resultMismatch:
		return nil, errors.New(proto.Message(proto.MsgChannelMismatch, "what", s.what, "capacity", c.load(proto.ChanCapacityAt), "bytes", (c.load(proto.ChanCellSizeAt)-chanWords)*4,
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
func (c *Channel) Closed() bool { return c.load(proto.ChanTail)&proto.ChanClosed != 0 }

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
	return c.claimSend(msg, 0, 0)
}

func (c *Channel) send(ctx context.Context, msg []byte, kind int32) error {
	if err := c.checkSize(msg); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for waiter := int32(0); ; {
		if sent, err := c.claimSend(msg, kind, waiter); sent || err != nil {
			return err
		}
		k := int32(proto.KindChanRoom)
		if waiter != 0 {
			k = proto.KindChanRoomWaited
		}
		r, err := c.s.wait(ctx, k, 0)
		if err != nil {
			return err
		}
		if waiter, err = c.waiterOf(r, waiter); err != nil {
			return err
		}
	}
}

func (c *Channel) checkSize(msg []byte) error {
	if len(msg) > int(c.maxBytes) {
		return errors.New(proto.Message(proto.MsgMessageTooLong, "call", "send", "bytes", len(msg), "encoded", "", "max", c.maxBytes, "what", c.s.what))
	}
	return nil
}

// claimSend is the core's claim of a send (waiter: 1 for a waiter's), the
// copy into the cell, then the core's commit: true if sent; false if there
// is no room now (or the cell is another's).
func (c *Channel) claimSend(msg []byte, kind, waiter int32) (bool, error) {
	p := c.s.call(proto.OpChanClaimSend, waiter, 0)
	switch {
	case p == resultBusy:
		return false, nil
	case p == resultClosed:
		return false, ErrClosed
	case p < 0:
		return false, c.s.failure(p)
	}
	cell := c.cell(p)
	aStore.Invoke(c.s.i32, cell+proto.ChanCellMetaAt, int32(len(msg))|kind)
	if len(msg) > 0 {
		js.CopyBytesToJS(c.u8.Call("subarray", (cell+chanWords)*4, (cell+chanWords)*4+int32(len(msg))), msg)
	}
	if r := c.s.call(proto.OpChanSendCommit, p, 0); r != resultOK {
		return false, c.s.failure(r)
	}
	return true, nil
}

// waiterOf is a wait's result r as the next claim's waiter argument: 1 once
// a wait returned RESULT_WAITER (a waiter stays one), else waiter.
func (c *Channel) waiterOf(r, waiter int32) (int32, error) {
	switch r {
	case proto.ResultWaiter:
		return 1, nil
	case resultOK:
		return waiter, nil
	}
	return waiter, c.s.failure(r)
}

// Recv takes the next message, parking the goroutine while the channel is
// empty. It returns ErrClosed once the channel is closed and drained, or
// ctx's error once ctx is done.
func (c *Channel) Recv(ctx context.Context) (Message, error) {
	if err := ctx.Err(); err != nil {
		return Message{}, err
	}
	for waiter := int32(0); ; {
		if m, ok, err := c.claimRecv(waiter); ok || err != nil {
			return m, err
		}
		k := int32(proto.KindChanMessage)
		if waiter != 0 {
			k = proto.KindChanMessageWaited
		}
		r, err := c.s.wait(ctx, k, 0)
		if err != nil {
			return Message{}, err
		}
		if waiter, err = c.waiterOf(r, waiter); err != nil {
			return Message{}, err
		}
	}
}

// TryRecv takes the next message if one is in now; it never waits. ok is
// false if none is (closed or not: Closed tells).
func (c *Channel) TryRecv() (msg Message, ok bool) {
	m, ok, err := c.claimRecv(0)
	if err != nil && err != ErrClosed {
		panic(err)
	}
	return m, ok && err == nil
}

// claimRecv is the core's claim of a receive, the copy out of the cell,
// then the core's commit: the message and ok; not ok if none is in now;
// ErrClosed once closed and drained. The message's length word is checked:
// one no message can have is reported (a panic), once the cell is freed.
func (c *Channel) claimRecv(waiter int32) (Message, bool, error) {
	p := c.s.call(proto.OpChanClaimRecv, waiter, 0)
	switch {
	case p == resultBusy:
		return Message{}, false, nil
	case p == resultClosed:
		return Message{}, true, ErrClosed
	case p < 0:
		panic(c.s.failure(p))
	}
	cell := c.cell(p)
	meta := int32(aLoad.Invoke(c.s.i32, cell+proto.ChanCellMetaAt).Int())
	n := meta & chanLenMask
	bad := meta < 0 || n > (c.cellSlots-chanWords)*4
	var m Message
	if !bad {
		m = Message{Data: make([]byte, n), Text: meta&chanKindText != 0}
		if n > 0 {
			js.CopyBytesToGo(m.Data, c.u8.Call("subarray", (cell+chanWords)*4, (cell+chanWords)*4+n))
		}
	}
	if r := c.s.call(proto.OpChanRecvCommit, p, 0); r != resultOK {
		panic(c.s.failure(r))
	}
	if bad {
		panic(fmt.Errorf("%w: a message in %s has a length word of %d, which no message can have, so something else wrote to its slots; give each object its own slots", ErrCorrupted, c.s.what, meta))
	}
	return m, true, nil
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

// cell is the first slot (the stamp) of the cell of position pos.
func (c *Channel) cell(pos int32) int32 { return c.s.at + chanSlots + (pos%c.capacity)*c.cellSlots }
