package browsers

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tagVar is set, to a value unique to one Browser, in the environment of the
// engine it starts. Every process the engine forks inherits it, even one that
// leaves the process group, so Stop can find and kill them all.
const tagVar = "SABMUTEX_BROWSERS_TAG"

// killGroup sends SIGKILL to the process group pgid.
func killGroup(pgid int) {
	if pgid > 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// killAll sends SIGKILL to process group pgid and to every process tagged
// tag, again and again until none is left or deadline passes, and returns
// those left.
func killAll(pgid int, tag string, deadline time.Time) []int {
	for {
		killGroup(pgid)
		left := procsOf(pgid, tag)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procsOf returns the live (not zombie) processes that are in process group
// pgid or carry tagVar=tag in their environment. It reads /proc (Linux).
func procsOf(pgid int, tag string) []int {
	ents, _ := os.ReadDir("/proc")
	want := []byte("\x00" + tagVar + "=" + tag + "\x00")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces or parentheses.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); pgid > 0 && g == pgid {
			out = append(out, pid)
			continue
		}
		if tag == "" {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(append(append([]byte{0}, env...), 0), want) {
			out = append(out, pid)
		}
	}
	return out
}

// tail is an io.Writer that keeps the last tailSize bytes written to it: an
// engine's stdout and stderr, for error messages. With a mark, it also
// closes seen the first time the mark is written (its first byte to its
// last in one Write or across several).
type tail struct {
	mu   sync.Mutex
	buf  []byte
	mark []byte        // "" for none
	seen chan struct{} // closed when mark is first written
}

func newTail(mark string) *tail {
	return &tail{mark: []byte(mark), seen: make(chan struct{})}
}

const tailSize = 8 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	from := max(0, len(t.buf)-len(t.mark)+1)
	t.buf = append(t.buf, p...)
	if len(t.mark) > 0 && bytes.Contains(t.buf[from:], t.mark) {
		select {
		case <-t.seen:
		default:
			close(t.seen)
		}
	}
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailSize:]...)
	}
	return len(p), nil
}

// String returns what is kept, trimmed.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
