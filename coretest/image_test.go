package coretest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
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
	buf, _ := m.Read(0, m.Size())
	im := &image{pages: make([][]byte, (len(buf)+imagePage-1)/imagePage), size: m.Size(), id: a.ID}
	for p := 0; p*imagePage < len(buf); p++ {
		page := buf[p*imagePage : min((p+1)*imagePage, len(buf))]
		for _, b := range page {
			if b != 0 {
				im.pages[p] = append([]byte(nil), page...)
				break
			}
		}
	}
	for _, g := range a.globalsOf() {
		im.globals = append(im.globals, globalValue(g))
	}
	a.img, a.calls = im, 0
	return im
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
	// Only the pages that calls wrote differ: compare, and copy those.
	buf, _ := m.Read(0, m.Size())
	for p := 0; p*imagePage < len(buf); p++ {
		page := buf[p*imagePage : min((p+1)*imagePage, len(buf))]
		want := im.pages[p]
		if want == nil {
			want = zeroPage[:len(page)]
		}
		if !bytes.Equal(page, want) {
			copy(page, want)
		}
	}
	for i, g := range a.globalsOf() {
		setGlobalValue(g, im.globals[i])
	}
	a.ID, a.dirty, a.calls = im.id, false, 0
}
