//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/proto"
)

// Web Locks' order in one queue per name, from goroutines (a Go agent's
// tasks): a shared request behind a queued exclusive one waits for it, and
// Query lists the holder and the pending requests in request order.
func TestRequestOrderAndQuery(t *testing.T) {
	const name = "go order"
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 3)
	go func() {
		done <- Request(context.Background(), name, nil, func() error { close(held); <-release; return nil })
	}()
	<-held
	var order []string
	start := func(what string, shared bool) {
		go func() {
			done <- Request(context.Background(), name, &LockOptions{Shared: shared}, func() error {
				order = append(order, what)
				time.Sleep(time.Millisecond) // (a shared one beside it would run now)
				return nil
			})
		}()
		want := len(pendingOf(mustQuery(t), name)) + 1
		until(t, func() bool { return len(pendingOf(mustQuery(t), name)) == want }, func() string { return fmt.Sprintf("%+v", mustQuery(t)) })
	}
	start("x", false)
	start("ss", true)
	q, err := Query()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(pendingOf(q, name)); got != "[exclusive shared]" {
		t.Errorf("pending %s, want [exclusive shared] (request order)", got)
	}
	if h := heldOf(q, name); len(h) != 1 || h[0].ClientID == "" {
		t.Errorf("held %+v, want the goroutine's exclusive lock with this agent's clientId", h)
	}
	close(release)
	for range 3 {
		if err := within(t, done); err != nil {
			t.Error(err)
		}
	}
	if fmt.Sprint(order) != "[x ss]" {
		t.Errorf("granted in the order %v, want [x ss]", order)
	}
	if q, _ := Query(); len(heldOf(q, name))+len(pendingOf(q, name)) != 0 {
		t.Errorf("after every release: %+v", q)
	}
}

// Steal: granted at once while another holds; the robbed request returns
// ErrStolen once its fn returns, and its release frees nothing of the
// stealer's.
func TestRequestSteal(t *testing.T) {
	const name = "go steal"
	held, release := make(chan struct{}), make(chan struct{})
	robbed := make(chan error, 1)
	go func() {
		robbed <- Request(context.Background(), name, nil, func() error { close(held); <-release; return nil })
	}()
	<-held
	inside := make(chan struct{})
	stole := make(chan error, 1)
	go func() {
		stole <- Request(context.Background(), name, &LockOptions{Steal: true}, func() error {
			close(inside)
			<-release
			time.Sleep(5 * time.Millisecond) // (the robbed one releases meanwhile)
			if err := Request(context.Background(), name, &LockOptions{IfAvailable: true}, func() error { return nil }); !errors.Is(err, ErrNotAvailable) {
				return fmt.Errorf("the robbed release freed the stealer's lock: IfAvailable answered %v", err)
			}
			return nil
		})
	}()
	select {
	case <-inside:
	case <-time.After(5 * time.Second):
		t.Fatal("the steal was not granted within 5 s while another held the lock")
	}
	close(release)
	if err := within(t, robbed); !errors.Is(err, ErrStolen) {
		t.Errorf("the robbed request: %v, want ErrStolen", err)
	}
	if err := within(t, stole); err != nil {
		t.Error(err)
	}
	if err := Request(context.Background(), name, &LockOptions{Steal: true, Shared: true}, func() error { return nil }); err == nil {
		t.Error("a shared steal was accepted")
	}
}

// Distinct names take no room once released: far more than the registry
// holds lock names at once, one after another.
func TestRequestManyNames(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 5000
	}
	for i := range n {
		if err := Request(context.Background(), fmt.Sprintf("go doc:%d", i), nil, func() error { return nil }); err != nil {
			t.Fatalf("name %d: %v", i, err)
		}
	}
}

func mustQuery(t *testing.T) LockSnapshot {
	t.Helper()
	q, err := Query()
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func pendingOf(q LockSnapshot, name string) []string {
	var m []string
	for _, l := range q.Pending {
		if l.Name == name {
			m = append(m, map[bool]string{false: "exclusive", true: "shared"}[l.Shared])
		}
	}
	return m
}

func heldOf(q LockSnapshot, name string) []LockInfo {
	var h []LockInfo
	for _, l := range q.Held {
		if l.Name == name {
			h = append(h, l)
		}
	}
	return h
}

// within is what a request's goroutine sends on ch, 5 s at most.
func within(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("a request did not end within 5 s")
		return nil
	}
}

// until waits for cond, 5 s at most; then fails, saying what state says.
func until(t *testing.T, cond func() bool, state func() string) {
	t.Helper()
	for t0 := time.Now(); !cond(); time.Sleep(time.Millisecond) {
		if time.Since(t0) > 5*time.Second {
			t.Fatalf("not within 5 s: %s", state())
		}
	}
}

// A goroutine that waits for a lock past WATCH_MS shows in Snapshot as a
// wait for the Lock, named by its lock name.
func TestRequestInSnapshot(t *testing.T) {
	const name = "go snap lock"
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 2)
	go func() {
		done <- Request(context.Background(), name, nil, func() error { close(held); <-release; return nil })
	}()
	<-held
	go func() { done <- Request(context.Background(), name, nil, func() error { return nil }) }()
	time.Sleep(150 * time.Millisecond) // (past WATCH_MS: the watch records the wait)
	var w *WaitState
	for _, a := range Snapshot() {
		if a.Waiting != nil && a.Waiting.Kind == "Lock" {
			w = a.Waiting
		}
	}
	close(release)
	for range 2 {
		if err := within(t, done); err != nil {
			t.Error(err)
		}
	}
	if w == nil || !w.Named || w.Name != name {
		t.Errorf("the waiting request in Snapshot: %+v, want a wait for the Lock named %q", w, name)
	}
}

// The fast path: a name requested again, with nothing held or queued, is
// held through its queue slot's fast word (this agent's id in it, no
// record); a goroutine that requests it meanwhile queues behind it and is
// granted at its release; a steal by another goroutine robs it (ErrStolen).
func TestRequestFastPath(t *testing.T) {
	const name = "go fast"
	ctx := context.Background()
	if err := Request(ctx, name, nil, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	word := func() int {
		fastSlots.Lock()
		defer fastSlots.Unlock()
		return registry.i32.Index(int(fastSlots.m[name].q + proto.LockQueueFast)).Int()
	}
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 2)
	var during int
	go func() {
		done <- Request(ctx, name, nil, func() error { during = word(); close(held); <-release; return nil })
	}()
	<-held
	if during != int(AgentID()) {
		t.Errorf("the fast word while held: %d, want this agent's id %d (taken through the fast path)", during, AgentID())
	}
	second := false
	go func() { done <- Request(ctx, name, nil, func() error { second = true; return nil }) }()
	until(t, func() bool { return len(pendingOf(mustQuery(t), name)) == 1 }, func() string { return fmt.Sprintf("%+v", mustQuery(t)) })
	if q := mustQuery(t); len(heldOf(q, name)) != 1 || second {
		t.Errorf("behind the fast holder: %+v, second ran: %v", q, second)
	}
	close(release)
	for range 2 {
		if err := within(t, done); err != nil {
			t.Error(err)
		}
	}
	if !second {
		t.Error("the request queued behind the fast holder never ran")
	}
	// A steal of a fast lock.
	held2 := make(chan struct{})
	robbed := make(chan error, 1)
	go func() {
		robbed <- Request(ctx, name, nil, func() error { close(held2); time.Sleep(50 * time.Millisecond); return nil })
	}()
	<-held2
	if err := Request(ctx, name, &LockOptions{Steal: true}, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := within(t, robbed); !errors.Is(err, ErrStolen) {
		t.Errorf("the robbed fast holder's Request: %v, want ErrStolen", err)
	}
	if err := Request(ctx, name, nil, func() error { return nil }); err != nil {
		t.Errorf("after the steal: %v", err)
	}
}
