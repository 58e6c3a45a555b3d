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
	words []int32

	mu     sync.Mutex
	queues map[int32][]chan struct{} // waiters per index, oldest first
}

// New returns a zeroed memory of n words.
func New(n int) *Memory {
	return &Memory{words: make([]int32, n), queues: map[int32][]chan struct{}{}}
}

// Len is how many words the memory has.
func (m *Memory) Len() int32 { return int32(len(m.words)) }

func (m *Memory) Load(i int32) int32     { return atomic.LoadInt32(&m.words[i]) }
func (m *Memory) Store(i int32, v int32) { atomic.StoreInt32(&m.words[i], v) }

// CompareExchange returns the old value, like Atomics.compareExchange.
func (m *Memory) CompareExchange(i, expected, replacement int32) int32 {
	for {
		if atomic.CompareAndSwapInt32(&m.words[i], expected, replacement) {
			return expected
		}
		if old := atomic.LoadInt32(&m.words[i]); old != expected {
			return old
		}
	}
}

// Wait sleeps while word i holds expected, until a Notify wakes it or
// timeoutMs milliseconds pass (+Inf: no limit).
func (m *Memory) Wait(i, expected int32, timeoutMs float64) int32 {
	m.mu.Lock()
	if atomic.LoadInt32(&m.words[i]) != expected {
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
