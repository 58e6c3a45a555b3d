//go:build js && wasm

// Adapted from Go's src/sync/waitgroup_test.go as released in go1.26.8 (the
// Go this repository builds with; taken from its GOROOT, since golang/go is
// too large to fetch whole here). See gosync_helpers_test.go for the rules.
//
// Dropped:
//   - TestIssue76126: it runs itself in a child process (os/exec, which
//     js/wasm lacks) to see that a panic in a WaitGroup.Go goroutine ends
//     the process before Wait returns. WaitGroup.Go follows sync's code
//     for it (it does not call Done on a panic).
//   - Benchmark*: make bench measures sabsync (bench_test.go).
//
// Changed:
//   - TestWaitGroupMisuse: sync panics with the string "sync: negative
//     WaitGroup counter"; sabsync with an error whose "sabmutex:" message
//     says the count would go negative (see README, "From Go").
//   - TestWaitGroupAlign: sync's test puts a WaitGroup after a byte in a
//     struct, where its 64-bit word might be misaligned. sabsync's slots are
//     int32s in an Int32Array, so the nearest case is a WaitGroup at index 1
//     of an Int32Array that starts 4 bytes into its buffer.
//
// Copyright 2011 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package sabsync_test

import (
	"strings"
	"sync/atomic"
	"syscall/js"
	"testing"

	. "github.com/sabmutex/sabmutex/sabsync"
)

func testWaitGroup(t *testing.T, wg1 *WaitGroup, wg2 *WaitGroup) {
	n := 16
	wg1.Add(n)
	wg2.Add(n)
	exited := make(chan bool, n)
	for i := 0; i != n; i++ {
		go func() {
			wg1.Done()
			wg2.Wait()
			exited <- true
		}()
	}
	wg1.Wait()
	for i := 0; i != n; i++ {
		select {
		case <-exited:
			t.Fatal("WaitGroup released group too soon")
		default:
		}
		wg2.Done()
	}
	for i := 0; i != n; i++ {
		<-exited // Will block if barrier fails to unlock someone.
	}
}

func TestWaitGroup(t *testing.T) {
	wg1 := fresh(newWaitGroup)
	wg2 := fresh(newWaitGroup)

	// Run the same test a few times to ensure barrier is in a proper state.
	for i := 0; i != 8; i++ {
		testWaitGroup(t, wg1, wg2)
	}
}

func TestWaitGroupMisuse(t *testing.T) {
	defer func() {
		err, _ := recover().(error)
		if err == nil || !strings.HasPrefix(err.Error(), "sabmutex: add(-1) would make the count of the WaitGroup at index 0 negative") {
			t.Fatalf("Unexpected panic: %#v", err)
		}
	}()
	wg := fresh(newWaitGroup)
	wg.Add(1)
	wg.Done()
	wg.Done()
	t.Fatal("Should panic")
}

func TestWaitGroupRace(t *testing.T) {
	// Run this test for about 1ms.
	for i := 0; i < 1000; i++ {
		wg := fresh(newWaitGroup)
		n := new(int32)
		// spawn goroutine 1
		wg.Add(1)
		go func() {
			atomic.AddInt32(n, 1)
			wg.Done()
		}()
		// spawn goroutine 2
		wg.Add(1)
		go func() {
			atomic.AddInt32(n, 1)
			wg.Done()
		}()
		// Wait for goroutine 1 and 2
		wg.Wait()
		if atomic.LoadInt32(n) != 2 {
			t.Fatal("Spurious wakeup from Wait")
		}
	}
}

func TestWaitGroupAlign(t *testing.T) {
	// One int32 before the WaitGroup, in an Int32Array 4 bytes into its buffer.
	x := js.Global().Get("Int32Array").New(js.Global().Get("SharedArrayBuffer").New(16), 4, 3)
	wg, err := NewWaitGroup(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func(wg *WaitGroup) {
		wg.Done()
	}(wg)
	wg.Wait()
}

func TestWaitGroupGo(t *testing.T) {
	wg := fresh(newWaitGroup)
	var i int
	wg.Go(func() {
		i++
	})
	wg.Wait()
	if i != 1 {
		t.Fatalf("got %d, want 1", i)
	}
}
