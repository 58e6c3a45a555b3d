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

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// The tests run as a program that joined a registry, as a Go worker given
// forWorker()'s object does (Join comes before any primitive): in Node.js,
// which has no Web Locks, it joins unwatched, and its waits sleep at most
// WATCH_MS and ask the watch, as a joined program's do.
//
// The registry is made in debug mode, as by a page's init({ debug: true }),
// so that Join puts the program in debug mode (debug_test.go). Debug mode
// is then off again for every test but those that turn it on (withDebug),
// so that the others and the benchmarks run as they do without it;
// SABSYNC_TEST_DEBUG=1 keeps it on for all of them.
func TestMain(m *testing.M) {
	registry := js.ValueOf(map[string]any{"registry": newRegistry(true)})
	start := time.Now()
	if err := Join(registry, "sabsync tests"); err != nil {
		panic(err)
	}
	joinTook = time.Since(start)
	joinedDebugging = debugging
	debugging = debugging && os.Getenv("SABSYNC_TEST_DEBUG") == "1"
	os.Exit(m.Run())
}

var (
	joinTook        time.Duration // what Join cost this program's start (TestJoin logs it)
	joinedDebugging bool          // whether Join put the program in debug mode
)

// newRegistry is a registry as the page's init makes one
// (jsglue/registry.js), with a debug area if debug.
func newRegistry(debug bool) js.Value {
	slots := int32(proto.RegistrySlots)
	if debug {
		slots += proto.DebugSlots
	}
	// Growable, as the glue's: the lock request queues grow past it.
	sab := js.Global().Get("SharedArrayBuffer").New(4*int(slots+core.Call(proto.OpNamesSlots, 0, 0, 100, 0)), map[string]any{"maxByteLength": 1 << 26})
	h := register(sab, 0)
	if r := core.Call(proto.OpNamesMake, h.mem, 0, 100, slots); r != resultOK {
		panic("OP_NAMES_MAKE failed")
	}
	if r := core.Call(proto.OpRegistryMake, h.mem, 0, int32(time.Now().UnixNano()), 0); r != resultOK {
		panic("OP_REGISTRY_MAKE failed")
	}
	if debug {
		core.DebugMake(h.mem, 0)
	}
	return sab
}

func TestJoin(t *testing.T) {
	t.Logf("Join took %v (Node.js: no Web Locks, so no life lock to wait for); debug mode in the other tests: %v", joinTook, debugging)
	if AgentID() <= 0 {
		t.Fatalf("AgentID() = %d after Join", AgentID())
	}
	snap := Snapshot()
	if len(snap) != 1 || snap[0].AgentID != AgentID() || snap[0].Name != "sabsync tests" || !snap[0].Alive {
		t.Fatalf("Snapshot() = %+v, want this program alone, named, alive", snap)
	}
	if !joinedDebugging || debugR < 0 {
		t.Errorf("after Join of a registry with a debug area: debug mode %v, region %d; want on, a region", joinedDebugging, debugR)
	}
	for _, debug := range []bool{false, true} {
		if err := Join(newRegistry(debug), "again"); err == nil || !strings.Contains(err.Error(), "Join must come first") {
			t.Errorf("a second Join (debug area %v) = %v, want the error that says it comes first", debug, err)
		}
	}
	// A buffer that starts as a registry does, but of neither length.
	tooLong := newSAB(int(proto.RegistrySlots + proto.DebugSlots + 1))
	i32Of(tooLong).SetIndex(0, proto.RegistryMagic)
	for _, bad := range []any{nil, 7, newSAB(4), map[string]any{"registry": newSAB(4)}, tooLong} {
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
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- m.LockContext(ctx) }()
	time.Sleep(150 * time.Millisecond)
	snap := Snapshot()
	w := snap[0].Waiting
	if w == nil || w.Kind != "Mutex" || w.Index != 2 || w.Holder != AgentID() || w.Blocked || w.Since < 50*time.Millisecond {
		t.Errorf("the waiting program's snapshot = %+v, want a non-blocking wait for the Mutex at index 2, held by itself, for 50 ms or more", w)
	}
	// Its context's deadline is the wait's (issue 45, point 5).
	if want := start.Add(300 * time.Millisecond); w == nil || w.Deadline.Before(want.Add(-20*time.Millisecond)) || w.Deadline.After(want.Add(20*time.Millisecond)) {
		t.Errorf("the wait's deadline: %+v, want about %v", w, want)
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LockContext = %v, want the deadline", err)
	}
	m.Unlock()
	if snap := Snapshot(); snap[0].Waiting != nil {
		t.Errorf("after the wait, the snapshot still shows %+v", snap[0].Waiting)
	}
}
