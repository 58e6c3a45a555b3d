//go:build js && wasm

// Adapted from Go's src/sync/mutex_test.go as released in go1.26.8 (the Go
// this repository builds with; taken from its GOROOT, since golang/go is too
// large to fetch whole here). See gosync_helpers_test.go for the rules.
//
// Dropped:
//   - TestSemaphore: the runtime's semaphore (Runtime_Semacquire), an
//     internal of sync that sabsync does not use.
//   - Benchmark*: make bench measures sabsync (bench_test.go).
//
// Changed:
//   - TestMutex does not turn on the mutex profile (SetMutexProfileFraction):
//     it records sync.Mutex's contention in the runtime, which sabsync's
//     waits do not reach.
//   - TestMutexMisuse: in Go an unlock of an unlocked lock is a fatal error,
//     which kills the process, so Go runs each case in a child process
//     (os/exec, which js/wasm lacks) and looks for "unlocked" in its output.
//     sabsync panics instead, changing nothing, with a "sabmutex:" message
//     that names the call (see README, "From Go"): each case runs here,
//     and the test checks that panic.
//
// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package sabsync_test

import (
	"strings"
	"testing"
	"time"

	. "github.com/sabmutex/sabmutex/sabsync"
)

func HammerMutex(m *Mutex, loops int, cdone chan bool) {
	for i := 0; i < loops; i++ {
		if i%3 == 0 {
			if m.TryLock() {
				m.Unlock()
			}
			continue
		}
		m.Lock()
		m.Unlock()
	}
	cdone <- true
}

func TestMutex(t *testing.T) {
	m := fresh(NewMutex)

	m.Lock()
	if m.TryLock() {
		t.Fatalf("TryLock succeeded with mutex locked")
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatalf("TryLock failed with mutex unlocked")
	}
	m.Unlock()

	c := make(chan bool)
	for i := 0; i < 10; i++ {
		go HammerMutex(m, 1000, c)
	}
	for i := 0; i < 10; i++ {
		<-c
	}
}

var misuseTests = []struct {
	name string
	f    func()
}{
	{
		"Mutex.Unlock",
		func() {
			mu := fresh(NewMutex)
			mu.Unlock()
		},
	},
	{
		"Mutex.Unlock2",
		func() {
			mu := fresh(NewMutex)
			mu.Lock()
			mu.Unlock()
			mu.Unlock()
		},
	},
	{
		"RWMutex.Unlock",
		func() {
			mu := fresh(NewRWMutex)
			mu.Unlock()
		},
	},
	{
		"RWMutex.Unlock2",
		func() {
			mu := fresh(NewRWMutex)
			mu.RLock()
			mu.Unlock()
		},
	},
	{
		"RWMutex.Unlock3",
		func() {
			mu := fresh(NewRWMutex)
			mu.Lock()
			mu.Unlock()
			mu.Unlock()
		},
	},
	{
		"RWMutex.RUnlock",
		func() {
			mu := fresh(NewRWMutex)
			mu.RUnlock()
		},
	},
	{
		"RWMutex.RUnlock2",
		func() {
			mu := fresh(NewRWMutex)
			mu.Lock()
			mu.RUnlock()
		},
	},
	{
		"RWMutex.RUnlock3",
		func() {
			mu := fresh(NewRWMutex)
			mu.RLock()
			mu.RUnlock()
			mu.RUnlock()
		},
	},
}

func TestMutexMisuse(t *testing.T) {
	for _, test := range misuseTests {
		msg := panicMessage(test.f)
		if !strings.HasPrefix(msg, "sabmutex: ") || !strings.Contains(strings.ToLower(msg), "unlock()") {
			t.Errorf("%s: did not find a panic with a sabmutex message about the unlock: %q", test.name, msg)
		}
	}
}

func TestMutexFairness(t *testing.T) {
	mu := fresh(NewMutex)
	stop := make(chan bool)
	defer close(stop)
	go func() {
		for {
			mu.Lock()
			time.Sleep(100 * time.Microsecond)
			mu.Unlock()
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	done := make(chan bool, 1)
	go func() {
		for i := 0; i < 10; i++ {
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			mu.Unlock()
		}
		done <- true
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("can't acquire Mutex in 10 seconds")
	}
}
