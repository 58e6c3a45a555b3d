package coretest

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkLockUnlock is one uncontended lock+unlock through the exports: the
// cost of the core itself, without a browser.
func BenchmarkLockUnlock(b *testing.B) {
	a := agents(b, 1)[0]
	mem, _ := host.NewMemory(2)
	for b.Loop() {
		a.Lock(mem, 0, inf)
		a.Unlock(mem, 0)
	}
}

// BenchmarkContended: 2, 4 and 8 instances take turns on one mutex; ns/op is
// per acquisition across all of them.
func BenchmarkContended(b *testing.B) {
	for _, p := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("instances=%d", p), func(b *testing.B) {
			as := agents(b, p)
			mem, m := host.NewMemory(3)
			b.ResetTimer()
			var wg sync.WaitGroup
			for i, a := range as {
				n := b.N / p
				if i == 0 {
					n += b.N % p
				}
				wg.Go(func() {
					for range n {
						a.Lock(mem, 0, inf)
						m.Store(2, m.Load(2)+1)
						a.Unlock(mem, 0)
					}
				})
			}
			wg.Wait()
			if got := int(m.Load(2)); got != b.N {
				b.Fatalf("counter = %d after %d locked increments", got, b.N)
			}
		})
	}
}
