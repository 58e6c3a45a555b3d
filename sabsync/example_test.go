//go:build js && wasm

package sabsync_test

import (
	"fmt"
	"sync"
	"syscall/js"

	"github.com/sabmutex/sabmutex/sabsync"
)

// Goroutines adding to one counter in a SharedArrayBuffer under a Mutex. In
// a worker, mem would come from the page (js.Global().Get("shared") after
// the page posted it), and JavaScript workers would lock the same slots
// with new sabmutex.Mutex(sab, 0).
func Example() {
	sab := js.Global().Get("SharedArrayBuffer").New(16)
	counter := js.Global().Get("Int32Array").New(sab)
	m, err := sabsync.NewMutex(sab, 0)
	if err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				m.Lock()
				counter.SetIndex(2, counter.Index(2).Int()+1)
				m.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Println(counter.Index(2).Int())
	// Output: 400
}
