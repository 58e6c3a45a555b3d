//go:build js && wasm

package sabsync

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// No goroutine starves behind goroutines that release and take again
// (issue 32; x/sync's TestLargeAcquireDoesntStarve, which hung against
// Semaphore). One program: a goroutine that gets the thread back after a
// release can take again before a parked waiter's wake-up is even run.

// starve is one case: looper goroutines take, hold 1 ms, give and take again,
// counting their cycles (or, with a partner, only take, as fast as the
// partner, which runs every 1 ms, lets them); a waiter asks 5 times, each
// after a few cycles, and must be served within starveBound cycles per
// looper, and within 3 s: a starved one fails instead of hanging the test.
type starve struct {
	loopers    int
	take, give func()
	ask        func(context.Context) error
	done       func()
	partner    func()      // a channel's other side, or nil
	ready      func() bool // a channel's: full for a sender, empty for a receiver (else the waiter would not wait)
}

const starveBound = 10

func (s starve) run(t *testing.T) {
	var cycles atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	turn := make(chan struct{}, 1) // a looper's cycle done: the waiter runs once it parks
	for range s.loopers {
		wg.Add(1)
		if s.partner == nil {
			s.take()
		}
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if s.partner == nil {
					time.Sleep(time.Millisecond)
					s.give()
				}
				s.take()
				cycles.Add(1)
				select {
				case turn <- struct{}{}:
				default:
				}
			}
			if s.partner == nil {
				s.give()
			}
		}()
	}
	if s.partner != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				time.Sleep(time.Millisecond)
				s.partner()
			}
		}()
	}
	defer func() { stop.Store(true); waitOrFail(t, &wg) }()
	rounds, worst := "", int64(0)
	for range 5 {
		for from := cycles.Load() + 5; cycles.Load() < from || s.ready != nil && !s.ready(); {
			select {
			case <-turn:
			case <-time.After(10 * time.Millisecond):
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c0, t0 := cycles.Load(), time.Now()
		err := s.ask(ctx)
		cancel()
		c, ms := cycles.Load()-c0, float64(time.Since(t0).Microseconds())/1000
		if err != nil {
			t.Errorf("starved: not served within 3 s, %d looper cycles (%v); cycles (ms) of the rounds before:%s", c, err, rounds)
			return
		}
		s.done()
		rounds += fmt.Sprintf(" %d (%.1f ms)", c, ms)
		worst = max(worst, c)
	}
	if worst > int64(starveBound*s.loopers) {
		t.Errorf("served after at most %d looper cycles, want at most %d; cycles (ms), each round:%s", worst, starveBound*s.loopers, rounds)
	} else {
		t.Logf("cycles (ms) to serve it, each round:%s", rounds)
	}
}

// must0 fails the test's goroutine loudly on an error it cannot have.
func must0(err error) {
	if err != nil {
		panic(err)
	}
}

func TestStarvationMutex(t *testing.T) { // the control: starvation mode
	m, _ := NewMutex(newSAB(4), 0)
	starve{loopers: 1, take: m.Lock, give: m.Unlock, ask: m.LockContext, done: m.Unlock}.run(t)
}

// Our TestLargeAcquireDoesntStarve: two loopers taking 1 of 2 permits, a
// waiter for both; and the same with one permit, a waiter for it.
func TestStarvationSemaphore(t *testing.T) {
	for _, permits := range []int64{2, 1} {
		t.Run(fmt.Sprintf("%d of %d", permits, permits), func(t *testing.T) {
			s, _ := NewSemaphore(newSAB(4), 0, permits)
			ctx := context.Background()
			starve{loopers: int(permits), take: func() { must0(s.Acquire(ctx, 1)) }, give: func() { s.Release(1) },
				ask: func(ctx context.Context) error { return s.Acquire(ctx, permits) }, done: func() { s.Release(permits) }}.run(t)
		})
	}
}

func TestStarvationRWMutexWriter(t *testing.T) {
	rw, _ := NewRWMutex(newSAB(4), 0)
	starve{loopers: 1, take: rw.Lock, give: rw.Unlock, ask: rw.LockContext, done: rw.Unlock}.run(t)
}

// Capacity 1: a looper sends (receives) again as soon as it can, a partner
// receives (sends) every 1 ms, and the waiter sends (receives) once.
func TestStarvationChannel(t *testing.T) {
	for _, side := range []string{"sender", "receiver"} {
		t.Run(side, func(t *testing.T) {
			ch, _ := NewChannel(newSAB(ChannelSlots(1, 16)), 0, 1, 16)
			brief := func(f func(context.Context) error) func() {
				return func() {
					ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
					defer cancel()
					f(ctx) // a timeout: the other side has stopped
				}
			}
			send := func(ctx context.Context) error { return ch.SendString(ctx, side) }
			recv := func(ctx context.Context) error { _, err := ch.Recv(ctx); return err }
			s := starve{loopers: 1, take: brief(send), ask: send, partner: brief(recv), done: func() {}, ready: func() bool { return ch.Len() == 1 }}
			if side == "receiver" {
				s.take, s.ask, s.partner, s.ready = brief(recv), recv, brief(send), func() bool { return ch.Len() == 0 }
			}
			s.run(t)
		})
	}
}
