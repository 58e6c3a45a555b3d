package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

// The apps that `make test-bundlers` built from the packed package with Vite,
// esbuild, webpack and none (bundlers/build.mjs, into ../dist/bundlers), each
// as docs/bundlers.md's recipe says, loaded here: every app inits sabmutex and has
// the page and a module worker count to 1000 under one mutex. Static builds
// are served with the two headers; Vite's dev and preview servers run
// (bundlers/serve-vite.mjs) with the recipe's vite.config.js.
func TestBundlers(t *testing.T) {
	inThisPass(t) // before the servers start: Vite's would start for nothing in make test's pass without Atomics.waitAsync
	const dir = "../dist/bundlers"
	b, err := os.ReadFile(filepath.Join(dir, "built.json"))
	if err != nil {
		t.Skip("../dist/bundlers/built.json is missing: `make test-bundlers` builds the bundler apps, then runs this test")
	}
	var built struct {
		Versions map[string]string
		Apps     map[string]struct {
			Dir, Page string // a static build, served from Dir
			Vite      string // or an app for Vite's dev or preview server
			Mode      string // "dev" or "preview"
			Pkg       string // the Vite package: "vite" or "vite7"
			Expect    string // if set, init must fail with a sabmutex error that says this
		}
	}
	if err := json.Unmarshal(b, &built); err != nil {
		t.Fatalf("%s/built.json: %v", dir, err)
	}
	t.Logf("bundlers: %v", built.Versions)
	names := make([]string, 0, len(built.Apps))
	for name := range built.Apps {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := built.Apps[name]
		t.Run(name, func(t *testing.T) {
			url := ""
			if a.Vite != "" {
				// Vite serves the app; a proxy of ours in front puts the
				// test driver into its pages.
				vite, err := neturl.Parse(viteServer(t, filepath.Join(dir, a.Vite), a.Mode, a.Pkg))
				if err != nil {
					t.Fatal(err)
				}
				srv := serveWithDriver(uncompressedProxy(vite))
				t.Cleanup(srv.Close) // not defer: the engines run in parallel subtests, after this function returns
				url = srv.URL + vite.Path
			} else {
				srv := serveWithDriver(serve.New(map[string]string{"/": filepath.Join(dir, a.Dir)}, true))
				t.Cleanup(srv.Close) // not defer: the engines run in parallel subtests, after this function returns
				url = srv.URL + a.Page
			}
			forEngines(t, func(t *testing.T, e *engine) {
				if a.Expect != "" {
					checkAppFails(t, e, url, a.Expect)
					return
				}
				checkApp(t, e, url)
			})
		})
	}
}

// appResult waits for an app's window.sabmutexResult.
func appResult(p *page) string {
	p.t.Helper()
	return eval[string](p, `(async () => {
		const t0 = performance.now();
		while (!window.sabmutexResult) {
			if (performance.now() - t0 > 30000) return "timed out after 30 s waiting for window.sabmutexResult";
			await new Promise((r) => setTimeout(r, 20));
		}
		return window.sabmutexResult;
	})()`)
}

// checkAppFails loads an app whose init must reject with a sabmutex error
// that says want (the app logs it: that console error is expected).
func checkAppFails(t *testing.T, e *engine, url, want string) {
	t.Helper()
	got := appResult(e.open(t, url, want))
	if !strings.HasPrefix(got, "error: sabmutex: ") || !strings.Contains(got, want) {
		t.Errorf("%s: got %q, want a sabmutex error that says %q", url, got, want)
		return
	}
	t.Logf("%s: %s", url, got)
}

// checkApp loads an app and waits for its window.sabmutexResult.
func checkApp(t *testing.T, e *engine, url string) {
	t.Helper()
	got := appResult(e.open(t, url))
	if !strings.HasPrefix(got, "ok") {
		t.Errorf("%s: %s", url, got)
		return
	}
	t.Logf("%s: %s", url, got)
}

// uncompressedProxy forwards to the server at target, asking it for
// uncompressed responses, so that the test driver can go into its pages.
func uncompressedProxy(target *neturl.URL) http.Handler {
	p := httputil.NewSingleHostReverseProxy(&neturl.URL{Scheme: target.Scheme, Host: target.Host})
	director := p.Director
	p.Director = func(r *http.Request) {
		director(r)
		r.Header.Del("Accept-Encoding")
	}
	return p
}

// viteServer starts `vite` (mode "dev") or `vite preview` for the app in dir
// on a free port, with the Vite package pkg ("" for "vite"), and returns its
// URL; it stops when the test ends.
func viteServer(t *testing.T, dir, mode, pkg string) string {
	if pkg == "" {
		pkg = "vite"
	}
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, "node", "../bundlers/serve-vite.mjs", mode, dir, fmt.Sprint(port), "170", pkg)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe() // closing it stops the server
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting vite %s: %v", mode, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				ready <- url
			}
		}
	}()
	select {
	case url := <-ready:
		return url
	case <-time.After(60 * time.Second):
		t.Fatalf("vite %s did not start within 60 s", mode)
	}
	return ""
}
