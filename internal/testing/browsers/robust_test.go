package browsers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Long-polls that end with "nothing yet" are renewed: evaluations still get
// through after many empty rounds (with PollWait shortened to 100 ms).
func TestIdlePolls(t *testing.T) {
	driver.mu.Lock()
	driver.pollWait = 100 * time.Millisecond
	driver.mu.Unlock()
	t.Cleanup(func() { // not defer: the engines' subtests run after this function returns
		driver.mu.Lock()
		driver.pollWait = PollWait
		driver.mu.Unlock()
	})
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser of its own: the three at once
			b := start(t, name, Options{})
			time.Sleep(500 * time.Millisecond) // the runner idles
			p := open(t, b, isolated.URL+"/head.html")
			time.Sleep(500 * time.Millisecond) // the page idles
			if got := eval[int](t, p, `6 * 7`); got != 42 {
				t.Errorf("got %d", got)
			}
			noProblems(t, p)
		})
	}
}

// Concurrent evaluations on one page each get their own answer, large ones
// included.
func TestConcurrentEvals(t *testing.T) {
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser of its own: the three at once
			b := start(t, name, Options{})
			p := open(t, b, isolated.URL+"/head.html")
			var wg sync.WaitGroup
			for i := 0; i < 20; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					got, err := Eval[int](ctx, p, fmt.Sprintf(`new Promise((ok) => setTimeout(() => ok(%d), %d))`, i, (20-i)*5))
					if err != nil || got != i {
						t.Errorf("eval %d: %d, %v", i, got, err)
					}
				}()
			}
			wg.Wait()
			big := eval[string](t, p, `"x".repeat(8 << 20)`)
			if len(big) != 8<<20 {
				t.Errorf("a large result came back with %d bytes", len(big))
			}
		})
	}
}

// When the engine dies, a pending Eval fails at once instead of waiting for
// its deadline, and so do Open and Eval afterwards.
func TestEngineDies(t *testing.T) {
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser of its own: the three at once
			b := start(t, name, Options{})
			p := open(t, b, isolated.URL+"/head.html")
			errc := make(chan error, 1)
			go func() { _, err := p.Eval(context.Background(), `new Promise(() => {})`); errc <- err }()
			time.Sleep(200 * time.Millisecond)
			t0 := time.Now()
			syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
			select {
			case err := <-errc:
				if err == nil || !strings.Contains(err.Error(), "exited") {
					t.Errorf("pending Eval: %v", err)
				}
				t.Logf("pending Eval failed %v after the kill: %v", time.Since(t0).Round(time.Millisecond), firstLine(err.Error()))
			case <-time.After(10 * time.Second):
				t.Fatal("pending Eval still waits 10 s after the engine died")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := b.Open(ctx, isolated.URL+"/head.html"); err == nil || ctx.Err() != nil {
				t.Errorf("Open after the engine died: %v (ctx %v)", err, ctx.Err())
			}
		})
	}
}

// When the process that runs the tab's pages crashes and the engine says
// so (WebKit: its WebKitWebProcess, killed here with SIGABRT as
// JavaScriptCore's failed assertions end it), a pending Eval fails with
// ErrCrashed at once instead of at its deadline, and so does Open after.
func TestTabProcessCrashes(t *testing.T) {
	for _, name := range installed(t) {
		if engines[name].crashLine == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			b := start(t, name, Options{})
			p := open(t, b, isolated.URL+"/head.html")
			errc := make(chan error, 1)
			go func() { _, err := p.Eval(context.Background(), `new Promise(() => {})`); errc <- err }()
			time.Sleep(200 * time.Millisecond)
			var web []int
			for _, pid := range procsOf(b.cmd.Process.Pid, b.tag) {
				if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), "WebProcess") {
					web = append(web, pid)
				}
			}
			if len(web) == 0 {
				t.Fatal("found no web process")
			}
			t0 := time.Now()
			for _, pid := range web { // the runner's and the page's, where they are two
				syscall.Kill(pid, syscall.SIGABRT)
			}
			select {
			case err := <-errc:
				if !errors.Is(err, ErrCrashed) {
					t.Errorf("pending Eval: %v", err)
				}
				t.Logf("pending Eval failed %v after the crash: %v", time.Since(t0).Round(time.Millisecond), err)
			case <-time.After(10 * time.Second):
				t.Fatal("pending Eval still waits 10 s after the crash")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := b.Open(ctx, isolated.URL+"/head.html"); !errors.Is(err, ErrCrashed) {
				t.Errorf("Open after the crash: %v", err)
			}
		})
	}
}

// An engine that never loads the runner page fails Start by its deadline and
// is killed.
func TestStartDeadline(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-chromium")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nsleep 600 &\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHROMIUM", fake)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t0 := time.Now()
	b, err := Start(ctx, "chromium", driver, isolated.URL, Options{})
	if err == nil {
		b.Stop()
		t.Fatal("Start succeeded")
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Start took %v", d)
	}
	t.Logf("error: %v", err)
	// Nothing of it is left: no process runs the fake script's sleeps.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(string(cmd), "sleep\x00600") {
			t.Errorf("a sleep of the fake engine survived: pid %s", e.Name())
		}
	}
}

// Engines running at once on one Driver keep to their own pages.
func TestParallelEngines(t *testing.T) {
	names := installed(t)
	var wg sync.WaitGroup
	for _, name := range names {
		b := start(t, name, Options{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				p, err := b.Open(ctx, fmt.Sprintf("%s/head.html?%s-%d", isolated.URL, name, i))
				if err != nil {
					t.Errorf("%s: %v", name, err)
					cancel()
					return
				}
				got, err := Eval[string](ctx, p, `location.search + " " + navigator.userAgent`)
				if want := fmt.Sprintf("?%s-%d %s", name, i, b.UserAgent()); err != nil || got != want {
					t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
				}
				p.Close()
				cancel()
			}
		}()
	}
	wg.Wait()
}

// A page on another host name than the runner's gets no cookie; it is
// matched to the one page being opened.
func TestOtherHostName(t *testing.T) {
	b := start(t, installed(t)[0], Options{})
	u := strings.Replace(plain.URL, "127.0.0.1", "localhost", 1) + "/head.html"
	p := open(t, b, u)
	if got := eval[string](t, p, `location.href`); got != u {
		t.Errorf("at %s, want %s", got, u)
	}
}

// A closed page ends its workers and stays in the tab: the next Open
// navigates from it, not through the runner, and a page left closed for
// Linger goes back to the runner. With the workers left running (no
// endWorkers in driver.js), the pings go on after Close; with Close going
// home, the runner is fetched between the two pages.
func TestClosedPageLingers(t *testing.T) {
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser and a server of its own
			testClosedPageLingers(t, name)
		})
	}
}

func testClosedPageLingers(t *testing.T, name string) {
	var runnerGets, pings atomic.Int64
	d := NewDriver()
	d.linger = 500 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>lingers</title><p>a page")
	})
	mux.HandleFunc("/pinger.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, `setInterval(() => fetch("/ping", { cache: "no-store" }), 10);`)
	})
	mux.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) { pings.Add(1) })
	wrapped := d.WrapIsolated(mux)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Prefix+"runner" {
			runnerGets.Add(1)
		}
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		wrapped.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, name, d, srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stopAndCheck(t, b)

	p := open(t, b, srv.URL+"/page.html")
	eval[bool](t, p, `new Worker("/pinger.js"), true`)
	for deadline := time.Now().Add(10 * time.Second); pings.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page's worker never pinged")
		}
	}
	before := runnerGets.Load()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a ping on its way
	n := pings.Load()
	time.Sleep(200 * time.Millisecond)
	if after := pings.Load(); after != n {
		t.Errorf("the closed page's worker pinged %d times more: its workers were not ended", after-n)
	}
	p = open(t, b, srv.URL+"/page.html")
	if got := runnerGets.Load(); got != before {
		t.Errorf("the runner was fetched %d times between two pages: the second should open from the first", got-before)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); runnerGets.Load() == before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the closed page was still in the tab 10 s after Close, with Linger %v", d.linger)
		}
	}
}
