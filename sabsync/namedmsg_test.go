//go:build js && wasm

package sabsync

import (
	"context"
	"strings"
	"testing"
)

// Errors say the name (#51): each message of a primitive by name that
// names it says `the Mutex "go msg mutex"`, as the glue's do, never an
// index: the misuses one program can make, corruption, and every kind's
// internal error. It fails on sabsync before #51, whose primitives by name
// said "the Mutex at index 81234".
func TestNamedMessages(t *testing.T) {
	name := func(kind string) string { return "go msg " + strings.ToLower(kind) }
	m, err := NamedMutex(name("Mutex"))
	if err != nil {
		t.Fatal(err)
	}
	rw, err := NamedRWMutex(name("RWMutex"))
	if err != nil {
		t.Fatal(err)
	}
	sem, err := NamedSemaphore(name("Semaphore"), 2)
	if err != nil {
		t.Fatal(err)
	}
	cond, err := NamedCond(name("Cond"), m)
	if err != nil {
		t.Fatal(err)
	}
	wg, err := NamedWaitGroup(name("WaitGroup"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NamedBarrier(name("Barrier"), 2)
	if err != nil {
		t.Fatal(err)
	}
	once, err := NamedOnce(name("Once"))
	if err != nil {
		t.Fatal(err)
	}
	ch, err := NamedChannel(name("Channel"), 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	errorOf := func(f func() error) string {
		if err := f(); err != nil {
			return err.Error()
		}
		return ""
	}
	msgs := map[string]string{
		"Mutex Unlock unlocked": panicOf(m.Unlock),
		"Mutex corrupted": panicOf(func() {
			registry.i32.SetIndex(int(m.s.at), 7)
			defer registry.i32.SetIndex(int(m.s.at), 0)
			m.TryLock()
		}),
		"RWMutex Unlock unlocked":       panicOf(rw.Unlock),
		"RWMutex RUnlock unlocked":      panicOf(rw.RUnlock),
		"Semaphore Release of none":     panicOf(func() { sem.Release(1) }),
		"WaitGroup Add(-1)":             panicOf(func() { wg.Add(-1) }),
		"Channel message too long":      errorOf(func() error { return ch.SendString(context.Background(), "too long for eight bytes") }),
		"Channel Close twice":           panicOf(func() { ch.Close(); ch.Close() }),
		"Mutex internal error":          m.s.failure(-12345).Error(),
		"RWMutex internal error":        rw.s.failure(-12345).Error(),
		"Semaphore internal error":      sem.s.failure(-12345).Error(),
		"Cond internal error":           cond.s.failure(-12345).Error(),
		"WaitGroup internal error":      wg.s.failure(-12345).Error(),
		"Barrier internal error":        b.s.failure(-12345).Error(),
		"Once internal error":           once.s.failure(-12345).Error(),
		"Channel internal error":        ch.s.failure(-12345).Error(),
		"Mutex corrupted, by its slots": m.s.failure(resultCorrupted).Error(),
	}
	for c, msg := range msgs {
		kind, _, _ := strings.Cut(c, " ")
		want := `the ` + kind + ` "` + name(kind) + `"`
		if !strings.HasPrefix(msg, "sabmutex: ") || !strings.Contains(msg, want) || strings.Contains(msg, " at index ") {
			t.Errorf("%s: %q; want a sabmutex: error that says %s and no index", c, msg, want)
		}
	}
}
