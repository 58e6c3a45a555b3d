//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/wasm/core"
	"github.com/sabmutex/sabmutex/wasm/proto"
)

// The tests run as a program that joined a registry, as a Go worker given
// forWorker()'s object does (Join comes before any primitive): in Node.js,
// which has no Web Locks, it joins unwatched, and its waits sleep at most
// WATCH_MS and ask the watch, as a joined program's do.
func TestMain(m *testing.M) {
	registry := js.ValueOf(map[string]any{"registry": newRegistry()})
	start := time.Now()
	if err := Join(registry, "sabsync tests"); err != nil {
		panic(err)
	}
	joinTook = time.Since(start)
	os.Exit(m.Run())
}

var joinTook time.Duration // what Join cost this program's start (TestJoin logs it)

// newRegistry is a registry as the page's init makes one (jsglue/registry.js).
func newRegistry() js.Value {
	sab := newSAB(int(proto.RegistrySlots))
	h := register(sab)
	if r := core.Call(proto.OpRegistryMake, h.mem, 0, int32(time.Now().UnixNano()), 0); r != resultOK {
		panic("OP_REGISTRY_MAKE failed")
	}
	return sab
}

func TestJoin(t *testing.T) {
	t.Logf("Join took %v (Node.js: no Web Locks, so no life lock to wait for)", joinTook)
	if AgentID() <= 0 {
		t.Fatalf("AgentID() = %d after Join", AgentID())
	}
	snap := Snapshot()
	if len(snap) != 1 || snap[0].AgentID != AgentID() || snap[0].Name != "sabsync tests" || !snap[0].Alive {
		t.Fatalf("Snapshot() = %+v, want this program alone, named, alive", snap)
	}
	if err := Join(newRegistry(), "again"); err == nil || !strings.Contains(err.Error(), "Join must come first") {
		t.Errorf("a second Join = %v, want the error that says it comes first", err)
	}
	for _, bad := range []any{nil, 7, newSAB(4), map[string]any{"registry": newSAB(4)}} {
		if err := Join(js.ValueOf(bad), "x"); err == nil || !strings.HasPrefix(err.Error(), "sabmutex: Join takes the registry of sabmutex.forWorker()") {
			t.Errorf("Join(%v) = %v, want the error that names forWorker()", bad, err)
		}
	}
}

// A wait that has lasted shows in the snapshot, and Go's deadlock rule:
// while another goroutine lives (this test's), the wait is not blocking.
func TestSnapshotShowsAWait(t *testing.T) {
	sab := newSAB(8)
	m, _ := NewMutex(sab, 2)
	m.Lock()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.LockContext(ctx) }()
	time.Sleep(150 * time.Millisecond)
	snap := Snapshot()
	w := snap[0].Waiting
	if w == nil || w.Kind != "Mutex" || w.Index != 2 || w.Holder != AgentID() || w.Blocking || w.Since < 50*time.Millisecond {
		t.Errorf("the waiting program's snapshot = %+v, want a non-blocking wait for the Mutex at index 2, held by itself, for 50 ms or more", w)
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LockContext = %v, want the deadline", err)
	}
	m.Unlock()
	if snap := Snapshot(); snap[0].Waiting != nil {
		t.Errorf("after the wait, the snapshot still shows %+v", snap[0].Waiting)
	}
}
