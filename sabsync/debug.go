//go:build js && wasm

package sabsync

import (
	"fmt"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall/js"

	"github.com/sabmutex/sabmutex/internal/core"
	"github.com/sabmutex/sabmutex/internal/proto"
)

// Debug mode (the README's "Debugging"): a program that joins a registry
// whose maker asked for it (init({ debug }) on the page: the registry is
// longer, with a debug area) records, in its own region of that area,
// what each of its goroutines holds and waits for, where (the caller's
// stack, trimmed to the user's frames), and the orders in which it took its
// locks ("B taken while A was held"). The registry's maker reads every
// region and reports lock-order inversions across agents (JavaScript and
// Go) and locks held too long (jsglue/debug.js). The layout and its
// writers are the core's (internal/core/debugarea.go); here is what only this
// host knows: goroutines, sites and names.
//
// Goroutines are to a Go program what tasks are to a JavaScript agent, so
// holds are kept per goroutine (its id, read from runtime.Stack's header,
// in debug mode only): an acquisition that may wait (Lock, LockContext,
// RLock, RLockContext, a Once's Do that runs f, a Cond's relock) records an
// order from each lock that its own goroutine holds, never from another
// goroutine's; a try (TryLock, TryRLock) never waits, so it records no order
// to what it takes (it is held, and gives orders to later ones). A Once is
// held while its f runs here; a Cond's Wait releases its Mutex and takes
// it again. Semaphores, WaitGroups, Barriers and Channels are not recorded.
//
// Off (the registry has no debug area, or the program did not join), the
// only cost is one test of debugging on each acquisition and release.

// The modes of a mark (internal/core/debugarea.go).
const (
	markHold = proto.MarkHold
	markRead = proto.MarkRead
	markWait = proto.MarkWait
)

var (
	debugging bool       // this program records what it holds (its registry has a debug area, and a region for it)
	debugR    int32 = -1 // its region's first slot (core.DebugRegion)

	// What follows is guarded by debugMu: a goroutine may be preempted
	// between any two calls, even on js/wasm.
	debugMu    sync.Mutex
	holds      = map[uint64][]heldLock{}        // goroutine id -> what it holds, in the order taken
	published  = map[[2]int32]bool{}            // the orders {from, to} published (or given up on)
	textRefs   = map[string]int32{}             // text -> its ref in this program's region
	siteRefs   = map[[siteDepth]uintptr]int32{} // a stack -> its site's ref
	warnedFull bool
)

type heldLock struct{ key, mode int32 }

// startDebug starts debug mode after Join, if its registry has a debug area.
func startDebug() {
	if r := core.DebugRegion(true); r >= 0 {
		debugR, debugging = r, true
	}
}

// Option is an option of NewMutex, NewRWMutex and NewOnce.
type Option func(*debugLock)

// Named names the lock, as the JavaScript constructors' { name } does: in
// debug mode, reports call it `the Mutex "accounts"` (not `the Mutex at
// index 4`), and the lock is known by its type and name across agents: a
// JavaScript Mutex and a Go one with the same name are the same lock to
// the reports, whatever their slots, so give one name to one lock only.
func Named(name string) Option {
	return func(d *debugLock) { d.name, d.named = name, true }
}

// debugLockOf is what a constructor's options say: nil for none.
func debugLockOf(opts []Option) *debugLock {
	if len(opts) == 0 {
		return nil
	}
	d := &debugLock{}
	for _, o := range opts {
		o(d)
	}
	return d
}

// debugLock is what debug mode knows of a lock: its name (Named), and, once
// it is first recorded, its key and its label's text.
type debugLock struct {
	name  string
	named bool
	key   int32 // DebugKey of what identifies it (0: not worked out yet)
	label int32 // the ref of how reports name it (0: not written yet)
}

// lockOf is *p, made if need be, its key worked out: what identifies the
// lock of type typ at s across agents is its type and its name, or its
// first slot and its buffer's length, as in JavaScript (jsglue/debug.js's
// lockOf), so that one lock has one key in every agent.
func lockOf(p **debugLock, typ string, s *slots) *debugLock {
	d := *p
	if d == nil {
		d = &debugLock{}
		*p = d
	}
	if d.key == 0 {
		d.key = core.DebugKey([]byte(d.id(typ, s)))
	}
	if d.label == 0 {
		label := s.what
		if d.named {
			label = "the " + d.id(typ, s)
		}
		d.label = textRef(label)
	}
	return d
}

func (d *debugLock) id(typ string, s *slots) string {
	if d.named {
		return typ + " " + jsonQuote(d.name)
	}
	// A growable buffer's length changes; its maximum does not (as in
	// jsglue/debug.js).
	b := s.i32.Get("buffer")
	length := b.Get("byteLength")
	if b.Get("growable").Truthy() {
		length = b.Get("maxByteLength")
	}
	return fmt.Sprintf("%s @%d/%d", typ, s.at, length.Int())
}

// jsonQuote is s quoted as JavaScript's JSON.stringify quotes it (Go's
// encoding/json escapes more: <, >, &, U+2028, U+2029).
func jsonQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// textRef is the ref of text s in this program's region (0: no room left).
func textRef(s string) int32 {
	if r, ok := textRefs[s]; ok {
		return r
	}
	r := core.DebugText(debugR, []byte(s))
	if r == 0 {
		full("text")
		return 0
	}
	textRefs[s] = r
	return r
}

func full(what string) {
	if warnedFull {
		return
	}
	warnedFull = true
	js.Global().Get("console").Call("warn", "sabmutex: debug mode: this agent's "+what+` in the debug area is full; from here on, some of its locks go unrecorded (see the README's "Debugging" for the limits)`)
}

// ---- Sites ----

// siteDepth is how many frames a site's stack keeps to tell it from others.
const siteDepth = 32

// siteRef is the ref of the site of the call into sabsync that called it:
// the user's frames of the stack there, at most three, as the JavaScript
// side writes them: "fn (file.go:line) < fn (file.go:line)", fn its
// package's name and its own (main.worker, main.worker.func1), file the
// base name. Sabsync's own frames (not its tests') and the runtime's are
// left out. Each stack is written once.
func siteRef() int32 {
	var pcs [siteDepth]uintptr
	runtime.Callers(2, pcs[:])
	if r, ok := siteRefs[pcs]; ok {
		return r
	}
	r := textRef(siteText(pcs[:]))
	if len(siteRefs) < proto.DebugTextSlots {
		siteRefs[pcs] = r
	}
	return r
}

func siteText(pcs []uintptr) string {
	var shown []string
	frames := runtime.CallersFrames(pcs)
	for len(shown) < 3 {
		f, more := frames.Next()
		if f.Function != "" && !internalFrame(f) {
			shown = append(shown, fmt.Sprintf("%s (%s:%d)", f.Function[strings.LastIndexByte(f.Function, '/')+1:], path.Base(f.File), f.Line))
		}
		if !more {
			break
		}
	}
	if len(shown) == 0 {
		return "(unknown)"
	}
	return strings.Join(shown, " < ")
}

// sabsyncPkg is this package's import path.
var sabsyncPkg = func() string {
	pc, _, _, _ := runtime.Caller(0)
	return pkgOf(runtime.FuncForPC(pc).Name())
}()

// pkgOf is the import path of the package of the function named fn.
func pkgOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}

// internalFrame: a frame of sabsync (its tests are users), of the runtime,
// or of syscall/js (which calls a js.Func).
func internalFrame(f runtime.Frame) bool {
	switch pkgOf(f.Function) {
	case sabsyncPkg:
		return !strings.HasSuffix(f.File, "_test.go")
	case "runtime", "syscall/js":
		return true
	}
	return false
}

// goroutineID is the calling goroutine's id, from the header of its stack
// ("goroutine 18 [running]:").
func goroutineID() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	s = s[len("goroutine "):]
	if i := strings.IndexByte(string(s), ' '); i >= 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}

// ---- What the primitives call, in debug mode only ----

// noSite: the acquisition's site is where it is recorded.
const noSite = -1

// debugWait records that the calling goroutine waits for the lock
// (*p, of type typ at s), and returns the wait's site.
func debugWait(p **debugLock, typ string, s *slots) int32 {
	debugMu.Lock()
	defer debugMu.Unlock()
	d := lockOf(p, typ, s)
	site := siteRef()
	core.DebugMark(debugR, d.key, markWait, d.label, site)
	return site
}

// debugWaited records that the wait for *p has ended.
func debugWaited(p **debugLock) {
	debugMu.Lock()
	defer debugMu.Unlock()
	core.DebugUnmark(debugR, (*p).key, markWait)
}

// debugTook records that the calling goroutine took the lock (*p, of type
// typ at s) in mode, at site (noSite: here), and, unless it was a try
// (waited false), the orders from each lock that this goroutine holds.
func debugTook(p **debugLock, typ string, s *slots, mode, site int32, waited bool) {
	debugMu.Lock()
	defer debugMu.Unlock()
	d := lockOf(p, typ, s)
	if site == noSite {
		site = siteRef()
	}
	g := goroutineID()
	if !core.DebugMark(debugR, d.key, mode, d.label, site) {
		full("marks")
	} else if waited {
		for _, h := range holds[g] {
			k := [2]int32{h.key, d.key}
			if h.key == d.key || published[k] {
				continue
			}
			published[k] = true
			if !core.DebugEdge(debugR, h.key, d.key) {
				full("orders")
			}
		}
	}
	holds[g] = append(holds[g], heldLock{d.key, mode})
}

// debugReleased records that the lock *p, held in mode, is released: by
// the goroutine that took it, or by another (a Mutex may be unlocked by
// any goroutine of the program, as a sync.Mutex).
func debugReleased(p **debugLock, mode int32) {
	debugMu.Lock()
	defer debugMu.Unlock()
	d := *p
	if d == nil || d.key == 0 {
		return // never recorded
	}
	// The goroutine's id (runtime.Stack: dear, docs/decisions/debug-mode.md)
	// only when more than one holds it (read locks): then its own hold goes
	// first.
	var holders []uint64
	for g, hs := range holds {
		for _, h := range hs {
			if h.key == d.key && h.mode == mode {
				holders = append(holders, g)
				break
			}
		}
	}
	switch {
	case len(holders) == 0:
		return
	case len(holders) == 1 || !dropHold(goroutineID(), d.key, mode):
		dropHold(holders[0], d.key, mode)
	}
	core.DebugUnmark(debugR, d.key, mode)
}

// dropHold removes goroutine g's last hold of key in mode; false if it has none.
func dropHold(g uint64, key, mode int32) bool {
	hs := holds[g]
	for i := len(hs) - 1; i >= 0; i-- {
		if hs[i].key == key && hs[i].mode == mode {
			hs = append(hs[:i], hs[i+1:]...)
			if len(hs) == 0 {
				delete(holds, g)
			} else {
				holds[g] = hs
			}
			return true
		}
	}
	return false
}

// debugWhere is what a deadlock message adds in debug mode, as the glue's
// (jsglue/debug.js, whereText): where each of its members (ids) waits and
// took what it holds, from their regions of the debug area ("" when none).
func debugWhere(ids []int32) string {
	if !debugging {
		return ""
	}
	var parts []string
	seen := map[int32]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		marks := core.DebugMarksOf(true, id)
		if marks == nil {
			continue
		}
		waits, holds := "waits", []string(nil)
		for _, m := range marks {
			switch m.Mode {
			case core.DebugWait:
				waits = "waits at " + m.Site
			case core.DebugRead:
				holds = append(holds, m.Label+" (a read lock) taken at "+m.Site)
			default:
				holds = append(holds, m.Label+" taken at "+m.Site)
			}
		}
		part := core.AgentLabel(id) + " " + waits
		if len(holds) > 0 {
			part += ", holding " + strings.Join(holds, ", ")
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return ". Where: " + strings.Join(parts, "; ")
}

// debugHolds is what agent id holds, and where it waits, for Snapshot in
// debug mode (nil, "": not in debug mode, or no region for it).
func debugHolds(id int32) (holds []Hold, waitingAt string) {
	if !debugging {
		return nil, ""
	}
	for _, m := range core.DebugMarksOf(true, id) {
		if m.Mode == core.DebugWait {
			waitingAt = m.Site
			continue
		}
		holds = append(holds, Hold{Lock: m.Label, Read: m.Mode == core.DebugRead, At: m.Site, SinceMs: m.SinceMs})
	}
	return holds, waitingAt
}
