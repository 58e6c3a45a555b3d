package coretest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// An image is an instance of the core as it was between two calls: its
// linear memory and its globals, which together are all the state a wasm
// instance has (the Go runtime inside it, the core's variables: its agent
// id, its registry record, the watch's suspicions). The explorer takes one
// when it makes a cast and puts it back before every schedule, so that each
// schedule starts from the same instances: the watch keeps state from one
// wait to the next (watchState in internal/core/watch.go), and a schedule must be
// a function of its choices alone. It is also what lets an agent end in the
// middle of a call (errEnded): the call is unwound, and the image makes the
// instance whole again for the next schedule.
//
// The memory alone is not enough: the Go runtime's stack pointer is a
// global, and a call unwound half way leaves it deep in the stack (tried:
// some thirty unwound calls later the runtime overflows its stack). wazero
// has no API for a module's own globals, so they are reached through its
// ModuleInstance's exported fields by reflection.
type image struct {
	pages   [][]byte    // the memory's 4 KiB pages (nil: zeroed)
	size    uint32      // the memory's size
	globals [][2]uint64 // each global's value (low, high)
	id      int32       // the agent's id then (0: a bare agent, not joined yet)
}

const imagePage = 4096

var zeroPage [imagePage]byte

// errEnded unwinds a call of an agent that the explorer ends at that step
// (sched.step): the agent takes no step after it, as a worker that is
// terminated there.
var errEnded = errors.New("coretest: the agent ended at this step")

// globalsOf reaches the instance's globals: each a *wasm.GlobalInstance,
// whose value lives in its module engine (Me) where it has one.
func (a *Agent) globalsOf() []reflect.Value {
	gs := reflect.ValueOf(a.mod).Elem().FieldByName("Globals")
	if !gs.IsValid() {
		panic("coretest: wazero's ModuleInstance has no Globals field: update image.go for this wazero")
	}
	out := make([]reflect.Value, gs.Len())
	for i := range out {
		out[i] = gs.Index(i).Elem()
	}
	return out
}

func globalValue(g reflect.Value) [2]uint64 {
	if me := g.FieldByName("Me"); !me.IsNil() {
		r := me.MethodByName("GetGlobalValue").Call([]reflect.Value{g.FieldByName("Index")})
		return [2]uint64{r[0].Uint(), r[1].Uint()}
	}
	return [2]uint64{g.FieldByName("Val").Uint(), g.FieldByName("ValHi").Uint()}
}

func setGlobalValue(g reflect.Value, v [2]uint64) {
	if me := g.FieldByName("Me"); !me.IsNil() {
		me.MethodByName("SetGlobalValue").Call([]reflect.Value{g.FieldByName("Index"), reflect.ValueOf(v[0]), reflect.ValueOf(v[1])})
		return
	}
	g.FieldByName("Val").SetUint(v[0])
	g.FieldByName("ValHi").SetUint(v[1])
}

// image takes the instance's image. Call it between calls only.
func (a *Agent) image() *image {
	m := a.mod.Memory()
	im := &image{size: m.Size(), id: a.ID}
	if a.mem != nil {
		a.mem.takeImage()
	} else {
		buf, _ := m.Read(0, m.Size())
		im.pages = pagesOf(buf)
	}
	for _, g := range a.globalsOf() {
		im.globals = append(im.globals, globalValue(g))
	}
	a.img, a.calls = im, 0
	return im
}

// pagesOf copies buf's pages that are not all zero (nil: zeroed).
func pagesOf(buf []byte) [][]byte {
	pages := make([][]byte, (len(buf)+imagePage-1)/imagePage)
	for p := range pages {
		page := buf[p*imagePage : min((p+1)*imagePage, len(buf))]
		if !isZero(page) {
			pages[p] = bytes.Clone(page)
		}
	}
	return pages
}

// putPagesBack makes buf as pages (pagesOf) were: every page compared,
// those that differ copied.
func putPagesBack(buf []byte, pages [][]byte) {
	for p, want := range pages {
		page := buf[p*imagePage : min((p+1)*imagePage, len(buf))]
		if want == nil {
			want = zeroPage[:len(page)]
		}
		if !bytes.Equal(page, want) {
			copy(page, want)
		}
	}
}

func isZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// restore puts the instance back as its image was (after a call that
// ended, or ran to its end). An instance not called since is as it was.
func (a *Agent) restore() {
	im := a.img
	if a.calls == 0 {
		a.ID, a.dirty = im.id, false
		return
	}
	m := a.mod.Memory()
	if m.Size() != im.size {
		panic(fmt.Sprintf("coretest: the instance's memory grew from %d to %d bytes since its image: the Go runtime in it would not know", im.size, m.Size()))
	}
	// Only the pages that calls wrote differ: a mapping knows which those
	// are, and puts them back (mapped_linux_test.go); else compare every
	// page, and copy those that differ.
	if a.mem != nil {
		a.mem.putBack()
	} else {
		buf, _ := m.Read(0, m.Size())
		putPagesBack(buf, im.pages)
	}
	for i, g := range a.globalsOf() {
		setGlobalValue(g, im.globals[i])
	}
	a.ID, a.dirty, a.calls = im.id, false, 0
}

// restore puts back every byte and global of the image, whichever way it
// finds the pages that calls wrote (mapped_linux_test.go, or comparing
// all): the calls below change the memory, and after restore not a byte
// differs from it as imaged.
func TestRestorePutsTheImageBack(t *testing.T) {
	a := agents(t, 1)[0]
	mem, _ := host.NewMemory(2)
	a.Lock(mem, 0, inf) // (the first calls grow what they grow before the image)
	a.Unlock(mem, 0)
	a.image()
	before, _ := a.mod.Memory().Read(0, a.mod.Memory().Size())
	before = bytes.Clone(before)
	var globals [][2]uint64
	for _, g := range a.globalsOf() {
		globals = append(globals, globalValue(g))
	}
	for range 1000 {
		a.Lock(mem, 0, inf)
		a.Unlock(mem, 0)
	}
	// Stores into the instance's memory, through the same bytes as its own
	// code's, in pages spread over the whole of it: a byte in every 37th
	// page, and the memory's last byte.
	buf, _ := a.mod.Memory().Read(0, a.mod.Memory().Size())
	for p := 0; p*imagePage < len(buf); p += 37 {
		buf[p*imagePage+p%imagePage]++
	}
	buf[len(buf)-1]++
	after, _ := a.mod.Memory().Read(0, a.mod.Memory().Size())
	changed := 0
	for p := 0; p*imagePage < len(after); p++ {
		lo, hi := p*imagePage, min((p+1)*imagePage, len(after))
		if !bytes.Equal(before[lo:hi], after[lo:hi]) {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no page of the memory changed: nothing to put back")
	}
	a.restore()
	now, _ := a.mod.Memory().Read(0, a.mod.Memory().Size())
	for p := 0; p*imagePage < len(now); p++ {
		lo, hi := p*imagePage, min((p+1)*imagePage, len(now))
		if !bytes.Equal(before[lo:hi], now[lo:hi]) {
			t.Errorf("page %d (at %#x) differs from the image after restore (of %d pages the calls changed)", p, lo, changed)
		}
	}
	for i, g := range a.globalsOf() {
		if v := globalValue(g); v != globals[i] {
			t.Errorf("global %d is %v after restore, %v in the image", i, v, globals[i])
		}
	}
	t.Logf("%d pages changed by the calls, all put back (mapped memory: %v)", changed, a.mem != nil)
}
