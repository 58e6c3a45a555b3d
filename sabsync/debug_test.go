//go:build js && wasm

package sabsync

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// Debug mode (debug.go), read back from this program's region of its
// registry's debug area (TestMain joined one made in debug mode): orders
// per goroutine, none to a try, a Once held while f runs, a Cond's Mutex
// released while it waits, marks of holds and waits, sites and keys.

var debugRuns int

// withDebug turns debug mode on for the test, and returns a prefix for the
// names of its locks that no earlier run used: an order is published once
// per program, so a second run (-count) over the same names would find
// the first run's.
func withDebug(t *testing.T) string {
	if !joinedDebugging {
		t.Fatal("Join did not put the program in debug mode")
	}
	was := debugging
	debugging = true
	t.Cleanup(func() { debugging = was })
	debugRuns++
	return fmt.Sprintf("%s %d ", t.Name(), debugRuns)
}

func regionWord(i int32) int32 { return int32(registry.i32.Index(int(debugR + i)).Int()) }

// regionText is the text of ref in this program's region.
func regionText(ref int32) string {
	if ref <= 0 {
		return ""
	}
	at := proto.DebugText + ref - 1
	n := regionWord(at)
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(regionWord(at+1+int32(i/4)) >> (8 * (i % 4)))
	}
	return string(b)
}

type debugEdge struct {
	from, to, fromMode, toMode int32
	fromLabel, fromSite        string
	toLabel, toSite            string
}

// debugEdges is every order this program has published
// (internal/core/debugarea.go: {from, to, modes, from label, from site, to
// label, to site}).
func debugEdges() []debugEdge {
	var out []debugEdge
	for i := range regionWord(proto.DebugEdges) {
		e := proto.DebugEdgeList + i*proto.DebugEdgeSlots
		modes := regionWord(e + 2)
		out = append(out, debugEdge{regionWord(e), regionWord(e + 1), modes & 3, modes >> 2,
			regionText(regionWord(e + 3)), regionText(regionWord(e + 4)), regionText(regionWord(e + 5)), regionText(regionWord(e + 6))})
	}
	return out
}

// edgeOf is the order from -> to (keys), or nil.
func edgeOf(from, to int32) *debugEdge {
	for _, e := range debugEdges() {
		if e.from == from && e.to == to {
			return &e
		}
	}
	return nil
}

type debugMark struct {
	key, mode   int32
	label, site string
}

// debugMarks is this program's marks of key now ({key, mode, label, site, since}).
func debugMarks(key int32) []debugMark {
	var out []debugMark
	for i := range int32(proto.DebugMarkEntries) {
		m := proto.DebugMarks + i*proto.DebugMarkSlots
		if regionWord(m) == key {
			out = append(out, debugMark{key, regionWord(m + 1), regionText(regionWord(m + 2)), regionText(regionWord(m + 3))})
		}
	}
	return out
}

func keyOf(id string) int32 { return core.DebugKey([]byte(id)) }

// The goroutine rule: an order comes only from what the goroutine that
// takes the lock holds. One goroutine holds A while another takes B: no
// order A -> B. The twin: one goroutine takes A then B: the order A -> B.
func TestDebugOrdersPerGoroutine(t *testing.T) {
	p := withDebug(t)
	sab := newSAB(8)
	a, _ := NewMutex(sab, 0, Named(p+"A"))
	b, _ := NewMutex(sab, 2, Named(p+"B"))
	ka, kb := keyOf(fmt.Sprintf("Mutex %q", p+"A")), keyOf(fmt.Sprintf("Mutex %q", p+"B"))
	a.Lock()
	done := make(chan struct{})
	go func() {
		b.Lock()
		b.Unlock()
		close(done)
	}()
	<-done
	a.Unlock()
	if e := edgeOf(ka, kb); e != nil {
		t.Fatalf("one goroutine held A while another took B: the order %+v was published; want none", *e)
	}
	if len(holds) != 0 {
		t.Errorf("after every release, holds = %v; want none", holds)
	}

	a.Lock()
	b.Lock()
	b.Unlock()
	a.Unlock()
	e := edgeOf(ka, kb)
	if e == nil {
		t.Fatal("one goroutine took A then B: no order A -> B published")
	}
	if e.fromLabel != fmt.Sprintf("the Mutex %q", p+"A") || e.toLabel != fmt.Sprintf("the Mutex %q", p+"B") || e.fromMode != markHold || e.toMode != markHold {
		t.Errorf("the order A -> B = %+v; want the labels of the names, modes hold", *e)
	}
	if edgeOf(kb, ka) != nil {
		t.Error("an order B -> A was published; nobody took A while holding B")
	}
}

// Two goroutines hold read locks of one RWMutex; the second releases its
// own: the first still holds its read lock (a Mutex it takes then is
// ordered after it), the second holds nothing (no order to what it takes).
func TestDebugReadLocksPerGoroutine(t *testing.T) {
	p := withDebug(t)
	sab := newSAB(8)
	rw, _ := NewRWMutex(sab, 0, Named(p+"RW"))
	m, _ := NewMutex(sab, 4, Named(p+"M"))
	n, _ := NewMutex(sab, 6, Named(p+"N"))
	krw, km, kn := keyOf(fmt.Sprintf("RWMutex %q", p+"RW")), keyOf(fmt.Sprintf("Mutex %q", p+"M")), keyOf(fmt.Sprintf("Mutex %q", p+"N"))
	rw.RLock()
	done := make(chan struct{})
	go func() {
		rw.RLock()
		rw.RUnlock()
		n.Lock()
		n.Unlock()
		close(done)
	}()
	<-done
	m.Lock()
	m.Unlock()
	rw.RUnlock()
	if edgeOf(krw, km) == nil || edgeOf(krw, kn) != nil {
		t.Errorf("orders RW -> M (its reader took M) %v, RW -> N (taken after its reader released) %v; want true, false", edgeOf(krw, km) != nil, edgeOf(krw, kn) != nil)
	}
	if len(holds) != 0 || len(debugMarks(krw)) != 0 {
		t.Errorf("after every release: holds %v, marks of RW %+v; want none", holds, debugMarks(krw))
	}
}

// The site: the user's frames (sabsync's own left out, its tests kept), as
// "fn (file.go:line) < ...", at most three.
func TestDebugSites(t *testing.T) {
	p := withDebug(t)
	sab := newSAB(8)
	a, _ := NewMutex(sab, 0, Named(p+"A"))
	rw, _ := NewRWMutex(sab, 2, Named(p+"RW"))
	_, _, line, _ := runtime.Caller(0)
	a.Lock()            // line+1
	rw.RLocker().Lock() // line+2: through RLocker, whose frames are sabsync's
	rw.RUnlock()
	a.Unlock()
	e := edgeOf(keyOf(fmt.Sprintf("Mutex %q", p+"A")), keyOf(fmt.Sprintf("RWMutex %q", p+"RW")))
	if e == nil {
		t.Fatal("no order A -> RW")
	}
	wantFrom := fmt.Sprintf("sabsync.TestDebugSites (debug_test.go:%d) < testing.tRunner (testing.go:", line+1)
	wantTo := fmt.Sprintf("sabsync.TestDebugSites (debug_test.go:%d) < testing.tRunner (testing.go:", line+2)
	if !strings.HasPrefix(e.fromSite, wantFrom) || !strings.HasPrefix(e.toSite, wantTo) {
		t.Errorf("the order's sites are %q and %q; want them to start %q and %q", e.fromSite, e.toSite, wantFrom, wantTo)
	}
	if e.toMode != markRead || e.toLabel != fmt.Sprintf("the RWMutex %q", p+"RW") {
		t.Errorf("the order to RW: mode %d, label %q; want a read lock's mode (%d), its name", e.toMode, e.toLabel, markRead)
	}
	if n := strings.Count(e.fromSite, " < "); n > 2 {
		t.Errorf("the site %q has %d frames; want at most three", e.fromSite, n+1)
	}
}

// A try records no order to what it takes (it never waits); what it took
// gives orders to the locks taken after it. The twin: a Lock in its place
// records the order.
func TestDebugTryRecordsNoOrder(t *testing.T) {
	p := withDebug(t)
	sab := newSAB(8)
	a, _ := NewMutex(sab, 0, Named(p+"A"))
	b, _ := NewMutex(sab, 2, Named(p+"B"))
	rw, _ := NewRWMutex(sab, 4, Named(p+"RW"))
	ka, kb, krw := keyOf(fmt.Sprintf("Mutex %q", p+"A")), keyOf(fmt.Sprintf("Mutex %q", p+"B")), keyOf(fmt.Sprintf("RWMutex %q", p+"RW"))
	a.Lock()
	if !b.TryLock() || !rw.TryRLock() {
		t.Fatal("a try of a free lock failed")
	}
	if edgeOf(ka, kb) != nil || edgeOf(ka, krw) != nil || edgeOf(kb, krw) != nil {
		t.Error("a try published an order to what it took")
	}
	rw.RUnlock()
	rw.Lock() // waits (may): orders from A and B
	rw.Unlock()
	b.Unlock()
	a.Unlock()
	if edgeOf(ka, krw) == nil || edgeOf(kb, krw) == nil {
		t.Errorf("RW's Lock while A (locked) and B (tried) were held: orders A -> RW %v, B -> RW %v; want both", edgeOf(ka, krw) != nil, edgeOf(kb, krw) != nil)
	}
}

// A Once is held while its f runs: a lock taken in f gives the order Once
// -> it, and the Once's mark is gone once f returns.
func TestDebugOnceHeldWhileFRuns(t *testing.T) {
	p := withDebug(t)
	sab := newSAB(8)
	o, _ := NewOnce(sab, 0, Named(p+"O"))
	m, _ := NewMutex(sab, 2, Named(p+"M"))
	ko, km := keyOf(fmt.Sprintf("Once %q", p+"O")), keyOf(fmt.Sprintf("Mutex %q", p+"M"))
	var marks []debugMark
	o.Do(func() {
		marks = debugMarks(ko)
		m.Lock()
		m.Unlock()
	})
	if len(marks) != 1 || marks[0].mode != markHold {
		t.Errorf("while f ran, the Once's marks were %+v; want one hold", marks)
	}
	if e := edgeOf(ko, km); e == nil || e.fromLabel != fmt.Sprintf("the Once %q", p+"O") {
		t.Errorf("a Mutex locked in the Once's f: order Once -> Mutex %+v; want one, labelled", e)
	}
	if marks := debugMarks(ko); len(marks) != 0 {
		t.Errorf("after Do, the Once's marks are %+v; want none", marks)
	}
}

// A Cond's Wait releases its Mutex (no mark while it waits) and takes it
// again (one mark); a Mutex unlocked by another goroutine than the one
// that locked it loses its mark and its hold; a wait is marked while it
// lasts, with its site. Locks without a name are known by their first slot
// and their buffer's length, and labelled as in messages.
func TestDebugMarks(t *testing.T) {
	withDebug(t)
	sab := newSAB(13) // a length of its own: unnamed locks are known by it
	l, _ := NewMutex(sab, 2)
	c, _ := NewCond(sab, 0, l)
	kl := keyOf("Mutex @2/52")
	l.Lock()
	if marks := debugMarks(kl); len(marks) != 1 || marks[0].label != "the Mutex at index 2" || marks[0].mode != markHold {
		t.Fatalf("an unnamed Mutex held: its marks are %+v; want one hold, labelled %q", marks, "the Mutex at index 2")
	}
	var during []debugMark
	go func() {
		l.Lock()
		during = debugMarks(kl) // the goroutine's own hold, only
		c.Signal()
		l.Unlock()
	}()
	c.Wait()
	if len(during) != 1 {
		t.Errorf("while the Cond waited, its Mutex's marks were %+v; want the other goroutine's hold only", during)
	}
	if marks := debugMarks(kl); len(marks) != 1 || marks[0].mode != markHold {
		t.Errorf("after Wait, its Mutex's marks are %+v; want one hold", marks)
	}
	done := make(chan struct{})
	go func() {
		l.Unlock() // another goroutine's unlock, as sync.Mutex allows
		close(done)
	}()
	<-done
	if marks := debugMarks(kl); len(marks) != 0 || len(holds) != 0 {
		t.Errorf("unlocked by another goroutine: marks %+v, holds %v; want none", marks, holds)
	}

	// A wait, marked while it lasts.
	l.Lock()
	got := make(chan struct{})
	_, _, line, _ := runtime.Caller(0)
	go func() {
		l.Lock() // line+2
		l.Unlock()
		close(got)
	}()
	var waiting []debugMark
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && len(waiting) == 0; time.Sleep(5 * time.Millisecond) {
		for _, m := range debugMarks(kl) {
			if m.mode == markWait {
				waiting = append(waiting, m)
			}
		}
	}
	l.Unlock()
	<-got
	want := fmt.Sprintf("sabsync.TestDebugMarks.func3 (debug_test.go:%d)", line+2)
	if len(waiting) != 1 || !strings.HasPrefix(waiting[0].site, want) {
		t.Errorf("a goroutine waiting for the Mutex: its wait marks %+v; want one, at %q", waiting, want)
	}
	if marks := debugMarks(kl); len(marks) != 0 {
		t.Errorf("after the wait: marks %+v; want none", marks)
	}
}

// Keys are those of the JavaScript side (jsglue/debug.js): FNV-1a of the
// lock's id, a name quoted as JSON.stringify quotes it.
func TestDebugKeys(t *testing.T) {
	for _, c := range []struct{ name, quoted string }{
		{"A", `"A"`},
		{`a "b" \c`, `"a \"b\" \\c"`},
		{"<&>\u2028é", "\"<&>\u2028é\""},
		{"\n\t\x01", `"\n\t\u0001"`},
	} {
		if got := jsonQuote(c.name); got != c.quoted {
			t.Errorf("jsonQuote(%q) = %s, want %s", c.name, got, c.quoted)
		}
	}
	// FNV-1a 32 of "Mutex \"A\"", worked out apart.
	h := uint32(2166136261)
	for _, b := range []byte(`Mutex "A"`) {
		h = (h ^ uint32(b)) * 16777619
	}
	if keyOf(`Mutex "A"`) != int32(h) {
		t.Errorf("DebugKey = %d, want %d", keyOf(`Mutex "A"`), int32(h))
	}
}

// Where, in debug mode: Snapshot shows what this program holds and where it
// took it, and a deadlock's message says so (debugWhere, as the glue's
// whereText), read back through the core's reader of the area. The twin:
// with debug mode off, neither says anything.
func TestDebugWhere(t *testing.T) {
	sab := newSAB(8)
	for _, on := range []bool{false, true} { // off first: withDebug turns it on for the rest of the test
		p := fmt.Sprintf("where %v ", on)
		if on {
			p = withDebug(t)
		}
		a, _ := NewMutex(sab, 0, Named(p+"A"))
		rw, _ := NewRWMutex(sab, 2, Named(p+"RW"))
		_, _, line, _ := runtime.Caller(0)
		a.Lock()   // line+1
		rw.RLock() // line+2
		var me *AgentState
		for _, s := range Snapshot() {
			if s.AgentID == AgentID() {
				me = &s
			}
		}
		where := debugWhere([]int32{AgentID()})
		rw.RUnlock()
		a.Unlock()
		if me == nil {
			t.Fatalf("the snapshot has no row for this program (%d)", AgentID())
		}
		if !on {
			if len(me.Holding) != 0 || where != "" {
				t.Errorf("debug mode off: holding %+v, where %q; want neither", me.Holding, where)
			}
			continue
		}
		siteA := fmt.Sprintf("sabsync.TestDebugWhere (debug_test.go:%d)", line+1)
		siteRW := fmt.Sprintf("sabsync.TestDebugWhere (debug_test.go:%d)", line+2)
		var gotA, gotRW bool
		for _, h := range me.Holding {
			gotA = gotA || h.Lock == fmt.Sprintf("the Mutex %q", p+"A") && !h.Read && strings.HasPrefix(h.At, siteA)
			gotRW = gotRW || h.Lock == fmt.Sprintf("the RWMutex %q", p+"RW") && h.Read && strings.HasPrefix(h.At, siteRW)
		}
		if !gotA || !gotRW {
			t.Errorf("holding %+v: want the Mutex %q at %s and a read lock of the RWMutex %q at %s", me.Holding, p+"A", siteA, p+"RW", siteRW)
		}
		wantA := fmt.Sprintf("holding the Mutex %q taken at %s", p+"A", siteA)
		if !strings.HasPrefix(where, ". Where: "+core.AgentLabel(AgentID())+" waits, ") || !strings.Contains(where, wantA) ||
			!strings.Contains(where, fmt.Sprintf("the RWMutex %q (a read lock) taken at %s", p+"RW", siteRW)) {
			t.Errorf("the deadlock message adds %q; want where this program took both", where)
		}
	}
}
