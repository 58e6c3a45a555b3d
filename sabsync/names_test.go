//go:build js && wasm

package sabsync

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Primitives by name in the registry TestMain joined: one object per name,
// the same slots as JavaScript's, mistakes refused with sabmutex: errors.
func TestNamed(t *testing.T) {
	a, err := NamedMutex("go db")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := NamedMutex("go db"); a != b {
		t.Errorf("NamedMutex twice: two objects")
	}
	if _, err := NamedSemaphore("go sem", 2); err != nil {
		t.Fatal(err)
	}
	if s, err := NamedSemaphore("go sem", 0); err != nil || !s.TryAcquire(2) || s.TryAcquire(1) {
		t.Errorf("NamedSemaphore(\"go sem\", 0) of one of 2 permits: %v", err)
	}
	// The texts are the glue's (internal/proto/messages.go's), with Go's calls.
	for what, c := range map[string]struct {
		err  error
		want string
	}{
		"another kind": {second(NamedRWMutex("go db")),
			`sabmutex: the name "go db" is a Mutex in this registry, not a RWMutex; ask for it with NamedMutex, or give the RWMutex another name`},
		"other permits": {second(NamedSemaphore("go sem", 3)),
			`sabmutex: the name "go sem" is a Semaphore of 2 permits, not a Semaphore of 3 permits; every agent must give the same permits (or none: the name's)`},
		"no permits": {second(NamedSemaphore("go none", 0)),
			`sabmutex: there is no Semaphore named "go none" yet; the first agent to ask for it gives its permits (NamedSemaphore(name, ...))`},
		"another channel": {second2(NamedChannel("go ch", 4, 16))(NamedChannel("go ch", 8, 16)),
			`sabmutex: the name "go ch" is a Channel of capacity 4 and messages of up to 16 bytes, not a Channel of capacity 8 and messages of up to 16 bytes; every agent must give the same capacity and maxMessageBytes`},
		"a reserved name": {Request(context.Background(), "-x", nil, func() error { return nil }), "sabmutex: "},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %s...", what, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func second2[T any](_ T, err1 error) func(T, error) error {
	return func(_ T, err error) error {
		if err1 != nil {
			return err1
		}
		return err
	}
}

// Request: goroutines add to a counter under one name (the counter is a
// plain int: the race detector's absence aside, a lost update shows in the
// count); IfAvailable while it is held; a context done while it waits.
func TestRequest(t *testing.T) {
	const g, n = 4, 500
	hammer := func(name func(i int) string) int {
		var count int
		var wg sync.WaitGroup
		for i := range g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n {
					if err := Request(context.Background(), name(i), nil, func() error {
						v := count
						runtime.Gosched() // (another goroutine between the load and the store)
						count = v + 1
						return nil
					}); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return count
	}
	if count := hammer(func(int) string { return "go counter" }); count != g*n {
		t.Errorf("count %d, want %d", count, g*n)
	}
	if twin := hammer(func(i int) string { return "go counter " + strconv.Itoa(i) }); twin == g*n {
		t.Errorf("a name each: the count reached %d: the hammer cannot fail", twin)
	}
	held := make(chan struct{})
	release := make(chan struct{})
	go Request(context.Background(), "go held", nil, func() error { close(held); <-release; return nil })
	<-held
	if err := Request(context.Background(), "go held", &LockOptions{IfAvailable: true}, func() error { return nil }); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("IfAvailable while held: %v", err)
	}
	if err := Request(context.Background(), "go held", &LockOptions{Shared: true, IfAvailable: true}, func() error { return nil }); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("shared IfAvailable while held: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := Request(ctx, "go held", nil, func() error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a request whose context ends while it waits: %v", err)
	}
	close(release)
	mine := errors.New("mine")
	if err := Request(context.Background(), "go held", &LockOptions{Shared: true}, func() error { return mine }); err != mine {
		t.Errorf("fn's error: %v", err)
	}
}

// A primitive by name is named where users read it: nameAt finds its name
// by its slot (and none for a slot no name has); a deadlock message's
// member whose primitive is in the registry's memory says its name, with
// its mode, and a member not by name its index, as the core's members
// (TEXT_DEADLOCK's rows) say; a member marked in the registry's memory
// whose index no name has (a lock request's) keeps its index.
func TestNamesWhereRead(t *testing.T) {
	m, err := NamedMutex("read \"me\"")
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := nameAt(m.s.at); !ok || name != `read "me"` {
		t.Errorf("nameAt(%d) = %q, %v; want the name", m.s.at, name, ok)
	}
	if name, ok := nameAt(m.s.at + 1); ok {
		t.Errorf("nameAt of a slot no primitive by name starts at: %q", name)
	}
	me, at := strconv.Itoa(int(AgentID())), strconv.Itoa(int(m.s.at))
	label := func(id int32) string {
		if id == AgentID() {
			return "agent " + me + ` ("a \"q\" b")`
		}
		return "agent " + strconv.Itoa(int(id))
	}
	members := `[[` + me + `,"RWMutex","write",` + at + `,1,9],[9,"Mutex","",4,0,10],[10,"Lock","",` + strconv.Itoa(int(m.s.at+1)) + `,1,` + me + `]]`
	want := "deadlock: agent " + me + ` ("a \"q\" b") waits for the RWMutex "read \"me\"" (write), which agent 9 holds; agent 9 waits for the Mutex at index 4, which agent 10 holds; ` +
		`agent 10 waits for the Lock at index ` + strconv.Itoa(int(m.s.at+1)) + `, which agent ` + me + ` ("a \"q\" b") holds. Each waits in a blocking call for the next, so none could ever go on: ` +
		"this wait ended without taking anything; release what this agent holds (and take locks in one order everywhere)"
	if got := deadlockMessage([]byte(members), nameAt, label); got != want {
		t.Errorf("deadlockMessage:\n got %s\nwant %s", got, want)
	}
}
