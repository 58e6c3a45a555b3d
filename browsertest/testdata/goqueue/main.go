//go:build js && wasm

// Command goqueue is the Go side of browsertest's TestGoAndJSQueue: a
// producer or a consumer of a bounded queue in a SharedArrayBuffer, guarded
// by a sabsync Mutex and two Conds that JavaScript producers and consumers
// use too, and a WaitGroup that the page waits on. It reads what to do from
// globalThis.goqueue, set by testdata/go-queue-worker.js:
//
//	{ memory, role: "producer" | "consumer" | "rw", id, n, total, lock, done }
//
// (role "rw": TestGoAndJSRWMutex's reader and writer, see rw below; roles
// "chanproducer" and "chanconsumer": TestGoAndJSChannel's, see channel.)
//
// The slots (testdata/harness.js's goAndJSQueue lays them out the same):
// 0-1 Mutex, 2 Cond notEmpty, 3 Cond notFull, 4 WaitGroup, 5 items in the
// queue, 6 its head, 7 items consumed, 8.. the ring (cap 4), 16.. how often
// each item was consumed (item = producer id * n + i).
package main

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/sabmutex/sabmutex/sabsync"
)

const (
	slotLen, slotHead, slotConsumed, ring, capacity, seen = 5, 6, 7, 8, 4, 16
)

func main() {
	cfg := js.Global().Get("goqueue")
	mem := cfg.Get("memory")
	w := js.Global().Get("Int32Array").New(mem)
	get := func(i int) int { return w.Index(i).Int() }
	set := func(i, v int) { w.SetIndex(i, v) }
	m, err := sabsync.NewMutex(mem, 0)
	if err != nil {
		panic(err)
	}
	notEmpty, _ := sabsync.NewCond(mem, 2, m)
	notFull, _ := sabsync.NewCond(mem, 3, m)
	wg, _ := sabsync.NewWaitGroup(mem, 4)
	id, n, total := cfg.Get("id").Int(), cfg.Get("n").Int(), cfg.Get("total").Int()
	if cfg.Get("role").String() == "rw" {
		rw(mem, w, n, cfg.Get("lock").Bool())
		cfg.Call("done", sabsync.AgentID())
		return
	}
	if role := cfg.Get("role").String(); role == "chanproducer" || role == "chanconsumer" {
		channel(mem, w, cfg.Get("chan").Int(), role == "chanproducer", id, n)
		cfg.Call("done", sabsync.AgentID())
		return
	}
	if cfg.Get("role").String() == "producer" {
		for i := range n {
			m.Lock()
			for get(slotLen) == capacity {
				notFull.Wait()
			}
			set(ring+(get(slotHead)+get(slotLen))%capacity, id*n+i)
			set(slotLen, get(slotLen)+1)
			notEmpty.Signal()
			m.Unlock()
		}
	} else {
		for {
			m.Lock()
			for get(slotLen) == 0 && get(slotConsumed) < total {
				notEmpty.Wait()
			}
			if get(slotLen) == 0 {
				m.Unlock()
				break
			}
			item := get(ring + get(slotHead))
			set(slotHead, (get(slotHead)+1)%capacity)
			set(slotLen, get(slotLen)-1)
			set(seen+item, get(seen+item)+1)
			set(slotConsumed, get(slotConsumed)+1)
			if get(slotConsumed) == total {
				notEmpty.Broadcast() // the other consumers stop waiting
			}
			notFull.Signal()
			m.Unlock()
		}
	}
	wg.Done()
	cfg.Call("done", sabsync.AgentID())
}

// rw is a reader and writer of two counters under an RWMutex at slots 0-2
// of its own buffer: every 4th turn writes (slot 4, then slot 5, each +1),
// the others read and count in slot 6 the times the two differed, which
// only a writer inside with a reader can make them. lock false: no RWMutex.
func rw(mem, w js.Value, n int, lock bool) {
	l, err := sabsync.NewRWMutex(mem, 0)
	if err != nil {
		panic(err)
	}
	atomics := js.Global().Get("Atomics")
	for i := range n {
		if i%4 == 0 {
			if lock {
				l.Lock()
			}
			w.SetIndex(4, w.Index(4).Int()+1)
			w.SetIndex(5, w.Index(5).Int()+1)
			if lock {
				l.Unlock()
			}
			continue
		}
		if lock {
			l.RLock()
		}
		if w.Index(4).Int() != w.Index(5).Int() {
			atomics.Call("add", w, 6, 1)
		}
		if lock {
			l.RUnlock()
		}
	}
}

// channel is a sender or a receiver of the Channel (capacity 4, messages of
// up to 16 bytes) at slot at, as harness.js's goAndJSChannel lays it out.
// The producer sends n messages "id:i", the even ones as strings
// (SendString), the odd ones as bytes. The consumer receives until the
// channel is closed and drained, and adds to slot 16 + p*n + i for each
// message "p:i": 1, or 1000 if it arrived as the wrong kind.
func channel(mem, w js.Value, at int, producer bool, id, n int) {
	ch, err := sabsync.NewChannel(mem, at, 4, 16)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if producer {
		for i := range n {
			msg := fmt.Sprintf("%d:%d", id, i)
			if i%2 == 0 {
				err = ch.SendString(ctx, msg)
			} else {
				err = ch.Send(ctx, []byte(msg))
			}
			if err != nil {
				panic(err)
			}
		}
		return
	}
	atomics := js.Global().Get("Atomics")
	for {
		m, err := ch.Recv(ctx)
		if errors.Is(err, sabsync.ErrClosed) {
			return
		}
		if err != nil {
			panic(err)
		}
		var p, i int
		if _, err := fmt.Sscanf(m.String(), "%d:%d", &p, &i); err != nil {
			panic(fmt.Errorf("received %q: %v", m.String(), err))
		}
		mark := 1
		if m.Text != (i%2 == 0) {
			mark = 1000
		}
		atomics.Call("add", w, 16+p*n+i, mark)
	}
}
