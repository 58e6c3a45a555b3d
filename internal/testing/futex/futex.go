// Package futex emulates, in plain Go, the part of JavaScript's Atomics that
// sabmutex's core imports, over a buffer of int32 words shared by goroutines.
// The core tests give it to wasm instances under wazero, and the core's
// native build (go test ./internal/core) runs on it directly.
//
// Like Atomics.wait and Atomics.notify in V8, Wait checks the word and joins
// the word's queue in one step with respect to Notify, and Notify wakes
// waiters in the order they arrived (FIFO).
package futex

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Wait results, as Atomics.wait names them.
const (
	OK       = 0 // woken by Notify
	NotEqual = 1 // the word did not hold the expected value
	TimedOut = 2 // nobody woke it in time
)

// Memory is a buffer of int32 words with a wait queue per word.
type Memory struct {
	words []int32      // max words: a memory grows (Grow) within them
	n     atomic.Int32 // its length, in words

	mu     sync.Mutex
	queues map[int32][]chan struct{} // waiters per index, oldest first
}

// New returns a zeroed memory of n words.
func New(n int) *Memory { return NewGrowable(n, n) }

// NewGrowable returns a zeroed memory of n words that Grow makes up to max
// words long, as a growable SharedArrayBuffer of that maxByteLength.
func NewGrowable(n, max int) *Memory {
	m := &Memory{words: make([]int32, max), queues: map[int32][]chan struct{}{}}
	m.n.Store(int32(n))
	return m
}

// Len is how many words the memory has.
func (m *Memory) Len() int32 { return m.n.Load() }

// Grow makes the memory at least n words long, if its max allows: it
// returns its length after (less than n: it cannot grow so far), as the
// core's import Grow does.
func (m *Memory) Grow(n int32) int32 {
	for {
		was := m.n.Load()
		if was >= n || int(n) > len(m.words) {
			return was
		}
		if m.n.CompareAndSwap(was, n) {
			return n
		}
	}
}

// at is word i, which must be inside the memory (as Atomics' index must
// be inside its array: a RangeError there, a panic here).
func (m *Memory) at(i int32) *int32 {
	if uint32(i) >= uint32(m.n.Load()) {
		panic("futex: index out of the memory's range")
	}
	return &m.words[i]
}

func (m *Memory) Load(i int32) int32     { return atomic.LoadInt32(m.at(i)) }
func (m *Memory) Store(i int32, v int32) { atomic.StoreInt32(m.at(i), v) }

// CompareExchange returns the old value, like Atomics.compareExchange.
func (m *Memory) CompareExchange(i, expected, replacement int32) int32 {
	for {
		if atomic.CompareAndSwapInt32(m.at(i), expected, replacement) {
			return expected
		}
		if old := atomic.LoadInt32(m.at(i)); old != expected {
			return old
		}
	}
}

// Wait sleeps while word i holds expected, until a Notify wakes it or
// timeoutMs milliseconds pass (+Inf: no limit).
func (m *Memory) Wait(i, expected int32, timeoutMs float64) int32 {
	w := m.at(i)
	m.mu.Lock()
	if atomic.LoadInt32(w) != expected {
		m.mu.Unlock()
		return NotEqual
	}
	ch := make(chan struct{})
	m.queues[i] = append(m.queues[i], ch)
	m.mu.Unlock()

	if math.IsInf(timeoutMs, 1) {
		<-ch
		return OK
	}
	t := time.NewTimer(time.Duration(math.Max(timeoutMs, 0) * float64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-ch:
		return OK
	case <-t.C:
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queues[i]
	for k, c := range q {
		if c == ch {
			m.queues[i] = append(q[:k:k], q[k+1:]...)
			return TimedOut
		}
	}
	return OK // a Notify took it off the queue as the timer fired
}

// Notify wakes up to count waiters on word i (all of them if count < 0),
// oldest first, and returns how many it woke.
func (m *Memory) Notify(i, count int32) int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queues[i]
	n := len(q)
	if count >= 0 {
		n = min(int(count), n)
	}
	for _, c := range q[:n] {
		close(c)
	}
	m.queues[i] = q[n:]
	return int32(n)
}

// Waiters is how many agents sleep on word i now.
func (m *Memory) Waiters(i int32) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queues[i])
}
