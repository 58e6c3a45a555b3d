//go:build linux

package coretest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// A mappedMemory backs an instance's linear memory with a private mapping
// of a file of its own (in /dev/shm where there is one), so that putting
// the instance back as its image was looks only at the pages its calls
// wrote: the image is written into the file (takeImage), a page the
// instance has not written since reads the file, and the kernel tells
// which pages were written (/proc/self/pagemap: a written page of a
// private file mapping is anonymous, a copy of its own). putBack compares
// those with the file (a second, read-only view of it) and copies back
// the ones that differ. Comparing the whole memory with its image, as
// image_test.go does without it, was half of the explorer's time: a Go
// runtime's memory is megabytes, and a schedule writes a few pages of it.
// (Dropping the written pages instead, MADV_DONTNEED, was slower still:
// every page the next calls read faulted in again.)
//
// States of one page of the mapping:
//
//	FILE     reads the file: as the image was (or zero past it)
//	COPY     written since the image: a copy of its own, compared and
//	         made as the image was by putBack, and a COPY still after
//
//	FILE -> COPY  a call writes it
//	COPY -> FILE  takeImage (after writing the file)
//
// The backing never moves: it is mapped at its maximum size once (address
// space only, MAP_NORESERVE), and grows by length.
type mappedMemory struct {
	f       *os.File
	mapping []byte // the whole reservation, private
	image   []byte // the file, read-only and shared: the image
	size    uint64 // the memory's length now
	written bool   // the file holds an image (before the first: zeros)
	entries []byte // putBack's buffer for pagemap's entries
}

// mappedLimit caps the reservation of a memory declared without a maximum
// (a Go module's is 4 GiB): the core's instances use some megabytes.
const mappedLimit = 1 << 30

// pagemap is /proc/self/pagemap, open once: 8 bytes a page of this
// process's address space, by the page's address.
var pagemap = func() *os.File {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil
	}
	return f
}()

const (
	pagemapPresent = 1 << 63
	pagemapSwapped = 1 << 62
	pagemapFile    = 1 << 61 // a page of a file (or shared): not a copy of its own
)

func newMappedMemory(maxBytes uint64) *mappedMemory {
	size := min(maxBytes, mappedLimit)
	dir := "/dev/shm"
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = ""
	}
	f, err := os.CreateTemp(dir, "coretest-memory-")
	if err != nil {
		panic("coretest: a file for an instance's memory: " + err.Error())
	}
	os.Remove(f.Name()) // (open, it lives until Free closes it)
	if err := f.Truncate(int64(size)); err != nil {
		panic("coretest: sizing an instance's memory file: " + err.Error())
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		panic("coretest: mapping an instance's memory: " + err.Error())
	}
	img, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_NORESERVE)
	if err != nil {
		panic("coretest: mapping an instance's image: " + err.Error())
	}
	return &mappedMemory{f: f, mapping: b, image: img}
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.mapping)) {
		return nil // (memory.grow fails: past mappedLimit)
	}
	m.size = size
	return m.mapping[:size:size]
}

func (m *mappedMemory) Free() {
	syscall.Munmap(m.mapping)
	syscall.Munmap(m.image)
	m.f.Close()
}

// takeImage makes the file hold the memory as it is now, and every page
// read it again. Before the file's first image, zero pages are left out
// (the file reads zero there).
func (m *mappedMemory) takeImage() {
	buf := m.mapping[:m.size]
	for p := 0; p*imagePage < len(buf); p++ {
		page := buf[p*imagePage : min((p+1)*imagePage, len(buf))]
		if !m.written && isZero(page) {
			continue
		}
		if _, err := m.f.WriteAt(page, int64(p*imagePage)); err != nil {
			panic("coretest: writing an instance's image: " + err.Error())
		}
	}
	m.written = true
	if err := syscall.Madvise(buf, syscall.MADV_DONTNEED); err != nil {
		panic("coretest: mapping an instance's image: " + err.Error())
	}
}

// putBack makes every page written since the image as the image was.
func (m *mappedMemory) putBack() {
	buf := m.mapping[:m.size]
	pages := (len(buf) + imagePage - 1) / imagePage
	if cap(m.entries) < 8*pages {
		m.entries = make([]byte, 8*pages)
	}
	e := m.entries[:8*pages]
	at := int64(uintptr(unsafe.Pointer(&buf[0]))/imagePage) * 8
	if n, err := pagemap.ReadAt(e, at); err != nil || n != len(e) {
		panic(fmt.Sprintf("coretest: reading which pages an instance wrote: %d of %d bytes: %v", n, len(e), err))
	}
	for p := range pages {
		v := binary.LittleEndian.Uint64(e[8*p:])
		if v&pagemapFile != 0 || v&(pagemapPresent|pagemapSwapped) == 0 {
			continue // FILE (or not read since the image): as the image
		}
		lo, hi := p*imagePage, min((p+1)*imagePage, len(buf))
		if !bytes.Equal(buf[lo:hi], m.image[lo:hi]) {
			copy(buf[lo:hi], m.image[lo:hi])
		}
	}
}

// withMappedMemory makes the instance made with the context it returns
// use a mappedMemory, which it stores in *m.
func withMappedMemory(ctx context.Context, m **mappedMemory) context.Context {
	if pagemap == nil || os.Getpagesize() != imagePage {
		return ctx // (image_test.go compares)
	}
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(func(_, maxBytes uint64) experimental.LinearMemory {
		*m = newMappedMemory(maxBytes)
		return *m
	}))
}
