//go:build js && wasm

// Adapted from Go's src/sync/once_test.go as released in go1.26.8 (the Go
// this repository builds with; taken from its GOROOT, since golang/go is too
// large to fetch whole here). See gosync_helpers_test.go for the rules.
//
// Dropped:
//   - BenchmarkOnce: make bench measures sabsync (bench_test.go).
//
// Changed: nothing but the zero values.
//
// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE-go file.

package sabsync_test

import (
	"testing"

	. "github.com/sabmutex/sabmutex/sabsync"
)

type one int

func (o *one) Increment() {
	*o++
}

func run(t *testing.T, once *Once, o *one, c chan bool) {
	once.Do(func() { o.Increment() })
	if v := *o; v != 1 {
		t.Errorf("once failed inside run: %d is not 1", v)
	}
	c <- true
}

func TestOnce(t *testing.T) {
	o := new(one)
	once := fresh(NewOnce)
	c := make(chan bool)
	const N = 10
	for i := 0; i < N; i++ {
		go run(t, once, o, c)
	}
	for i := 0; i < N; i++ {
		<-c
	}
	if *o != 1 {
		t.Errorf("once failed outside run: %d is not 1", *o)
	}
}

func TestOncePanic(t *testing.T) {
	once := fresh(NewOnce)
	for i := 0; i < 2; i++ {
		func() {
			defer func() {
				r := recover()
				if r == nil && i == 0 {
					t.Fatalf("Once.Do() has not panic'ed on first iteration")
				}
				if r != nil && i == 1 {
					t.Fatalf("Once.Do() has panic'ed on second iteration")
				}
			}()
			once.Do(func() {
				panic("failed")
			})
		}()
	}
	once.Do(func() {})
	once.Do(func() {
		t.Fatalf("Once called twice")
	})
}
