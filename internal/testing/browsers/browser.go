package browsers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure one Browser.
type Options struct {
	// NoWaitAsync makes driver.js delete Atomics.waitAsync on every page
	// before any other script runs, as in engines that lack it.
	NoWaitAsync bool
}

// Default deadlines, used when a context has none.
const (
	StartTimeout = 60 * time.Second // Start: launch until the runner page connects
	OpenTimeout  = 30 * time.Second // Open: navigation until driver.js on the page connects
	EvalTimeout  = 60 * time.Second // Eval: until the expression settles
	closeTimeout = 5 * time.Second  // Close: until the page acknowledges
	stopTimeout  = 10 * time.Second // Stop: until every process is gone
)

// withDefault returns ctx bounded by d if it has no deadline of its own.
func withDefault(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// Browser is one running engine with one tab, driven through a Driver.
type Browser struct {
	name, path string
	d          *Driver
	s          *session
	cmd        *exec.Cmd
	xvfb       *exec.Cmd
	dir        string // temporary: profile, HOME, XDG dirs
	tag        string // value of tagVar in the engine's environment
	out        *tail  // the engine's stdout and stderr (and Xvfb's)
	exited     chan struct{}
	waitErr    error // of cmd, once exited is closed
	startup    time.Duration

	stopOnce sync.Once
	stopErr  error
}

// Start launches the engine name (one of Engines) in a process group of its
// own, with a fresh temporary profile and HOME (and, for webkit, an Xvfb of
// its own), at the runner page of d on origin (e.g. an httptest server's URL
// whose handler mounts d at Prefix). It returns once the runner page has
// connected to d, or fails when ctx ends (StartTimeout if ctx has no
// deadline) or the engine exits; the error then carries the end of the
// engine's output. Call Stop when done.
func Start(ctx context.Context, name string, d *Driver, origin string, opts Options) (*Browser, error) {
	path, err := Find(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withDefault(ctx, StartTimeout)
	defer cancel()
	t0 := time.Now()
	dir, err := os.MkdirTemp("", "sabmutex-"+name+"-")
	if err != nil {
		return nil, err
	}
	b := &Browser{name: name, path: path, d: d, dir: dir, tag: randomID(), out: newTail(engines[name].crashLine), exited: make(chan struct{})}
	b.s = d.newSession(b, opts)
	// Pages go back to the runner at this absolute URL, so that a page on
	// another server (one that may close) does not strand the tab there.
	b.s.home = strings.TrimSuffix(origin, "/") + b.s.runnerPath()
	l, err := launchFor(name, dir, b.s.home)
	if err != nil {
		b.Stop()
		return nil, err
	}
	env := append(baseEnv(), l.env...)
	env = append(env, tagVar+"="+b.tag)
	if engines[name].display {
		x, display, err := startXvfb(ctx, env, b.out)
		if err != nil {
			b.Stop()
			return nil, err
		}
		b.xvfb = x
		env = append(env, "DISPLAY="+display, "GDK_BACKEND=x11")
	}
	b.cmd = exec.Command(path, l.args...)
	b.cmd.Env = env
	b.cmd.Dir = dir
	b.cmd.Stdout, b.cmd.Stderr = b.out, b.out
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := b.cmd.Start(); err != nil {
		b.Stop()
		return nil, fmt.Errorf("browsers: starting %s: %w", path, err)
	}
	go func() {
		b.waitErr = b.cmd.Wait()
		close(b.exited)
	}()
	select {
	case <-b.s.runnerUp:
		b.startup = time.Since(t0)
		return b, nil
	case <-b.exited:
		err = fmt.Errorf("browsers: %s exited before its runner page connected (%v)%s", name, b.waitErr, b.outputNote())
	case <-ctx.Done():
		err = fmt.Errorf("browsers: %s: the runner page did not connect: %w%s", name, ctx.Err(), b.outputNote())
	}
	b.Stop()
	return nil, err
}

// Name returns the engine's name, as passed to Start.
func (b *Browser) Name() string { return b.name }

// UserAgent returns navigator.userAgent of the runner page.
func (b *Browser) UserAgent() string {
	b.d.mu.Lock()
	defer b.d.mu.Unlock()
	return b.s.ua
}

// StartupTime returns how long Start took, from launch until the runner page
// connected.
func (b *Browser) StartupTime() time.Duration { return b.startup }

// Output returns the last few kilobytes the engine (and its Xvfb) wrote to
// stdout and stderr.
func (b *Browser) Output() string { return b.out.String() }

func (b *Browser) outputNote() string {
	if o := b.out.String(); o != "" {
		return "\n--- output of " + b.name + " (end) ---\n" + o
	}
	return ""
}

// Crashed returns a channel closed once the engine has said that the
// process running its tab's pages crashed (see ErrCrashed); it is never
// closed for an engine that says no such thing.
func (b *Browser) Crashed() <-chan struct{} { return b.out.seen }

// errCrashed is the error of a wait that ended because the tab's process
// crashed (the engine's output says no more than that).
func (b *Browser) errCrashed() error {
	return fmt.Errorf("browsers: %s: %w", b.name, ErrCrashed)
}

// errExited is the error of a wait that ended because the engine exited.
func (b *Browser) errExited() error {
	return fmt.Errorf("browsers: %s exited (%v)%s", b.name, b.waitErr, b.outputNote())
}

// Stop kills the engine's whole process group and every process that
// inherited its tag (even one that left the group), then its Xvfb, waits for
// them (10 s at most) and removes the temporary profile. Pages of b fail from
// then on. Stop may be called more than once.
func (b *Browser) Stop() error {
	b.stopOnce.Do(func() { b.stopErr = b.stop() })
	return b.stopErr
}

func (b *Browser) stop() error {
	b.d.endSession(b.s)
	deadline := time.Now().Add(stopTimeout)
	var errs []error
	if b.cmd != nil && b.cmd.Process != nil {
		pgid := b.cmd.Process.Pid
		if left := killAll(pgid, b.tag, deadline); len(left) > 0 {
			errs = append(errs, fmt.Errorf("browsers: %s: processes %v survived SIGKILL", b.name, left))
		}
		select {
		case <-b.exited:
		case <-time.After(time.Until(deadline)):
			errs = append(errs, fmt.Errorf("browsers: %s (pid %d) was not reaped", b.name, pgid))
		}
	}
	if b.xvfb != nil {
		killGroup(b.xvfb.Process.Pid)
		done := make(chan struct{})
		go func() { b.xvfb.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Until(deadline)):
			errs = append(errs, fmt.Errorf("browsers: Xvfb (pid %d) did not exit", b.xvfb.Process.Pid))
		}
	}
	if err := os.RemoveAll(b.dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// randomID returns 16 random hex digits.
func randomID() string {
	var x [8]byte
	rand.Read(x[:])
	return hex.EncodeToString(x[:])
}
