package browsers

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sabmutex/sabmutex/internal/testing/serve"
)

var (
	driver   *Driver
	isolated *httptest.Server // COOP/COEP
	plain    *httptest.Server // the same files without them
)

func TestMain(m *testing.M) {
	driver = NewDriver()
	mounts := map[string]string{"/": "testdata"}
	isolated = httptest.NewServer(driver.WrapIsolated(serve.New(mounts, true)))
	plain = httptest.NewServer(driver.Wrap(serve.New(mounts, false)))
	code := m.Run()
	isolated.Close()
	plain.Close()
	os.Exit(code)
}

// engines returns the selected engines that are installed, skipping (with
// a message) those that are not.
func installed(t *testing.T) []string {
	sel, err := Selected()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range sel {
		if _, err := Find(name); err != nil {
			t.Logf("skipping %s: %v", name, err)
			continue
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		t.Skip("no engine installed")
	}
	return out
}

// start starts name with opts, stopped (and checked to leave nothing
// behind) when t ends.
func start(t *testing.T, name string, opts Options) *Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, name, driver, isolated.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopAndCheck(t, b) })
	return b
}

func stopAndCheck(t *testing.T, b *Browser) {
	t.Helper()
	pgid := b.cmd.Process.Pid
	tagged, grouped := procsOf(pgid, b.tag), procsOf(pgid, "")
	t.Logf("%s before Stop: %d processes carry its tag, %d of them in its process group", b.name, len(tagged), len(grouped))
	if len(tagged) == 0 && !exited(b) {
		t.Errorf("%s: no process carries the tag before Stop", b.name)
	}
	if err := b.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if left := procsOf(pgid, b.tag); len(left) > 0 {
		t.Errorf("%s left processes behind: %v", b.name, left)
	}
	if b.xvfb != nil {
		if left := procsOf(b.xvfb.Process.Pid, ""); len(left) > 0 {
			t.Errorf("Xvfb left processes behind: %v", left)
		}
	}
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("the temporary profile %s is still there", b.dir)
	}
}

func exited(b *Browser) bool {
	select {
	case <-b.exited:
		return true
	default:
		return false
	}
}

func open(t *testing.T, b *Browser, url string) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := b.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func eval[T any](t *testing.T, p *Page, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v, err := Eval[T](ctx, p, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitProblem waits (5 s at most) for a problem of p containing all parts.
func waitProblem(t *testing.T, p *Page, parts ...string) {
	t.Helper()
	var seen []string
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		seen = append(seen, p.Problems()...)
		for _, m := range seen {
			ok := true
			for _, part := range parts {
				ok = ok && strings.Contains(m, part)
			}
			if ok {
				t.Logf("reported: %q", m)
				return
			}
		}
	}
	t.Errorf("no problem with %q reported; got %q", parts, seen)
}

func noProblems(t *testing.T, p *Page) {
	t.Helper()
	for _, m := range p.Problems() {
		t.Errorf("unexpected problem: %s", m)
	}
}

func TestEngines(t *testing.T) {
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser of its own: the three at once
			v, err := Version(name)
			if err != nil {
				t.Fatal(err)
			}
			b := start(t, name, Options{})
			t.Logf("%s: %s; started in %v; %s", name, v, b.StartupTime().Round(time.Millisecond), b.UserAgent())
			t.Run("Isolation", func(t *testing.T) { testIsolation(t, b) })
			t.Run("NotIsolated", func(t *testing.T) { testNotIsolated(t, b) })
			t.Run("Timing", func(t *testing.T) { testTiming(t, b) })
			t.Run("Head", func(t *testing.T) { testHead(t, b) })
			t.Run("Promise", func(t *testing.T) { testPromise(t, b) })
			t.Run("Throws", func(t *testing.T) { testThrows(t, b) })
			t.Run("ConsoleError", func(t *testing.T) { testConsoleError(t, b) })
			t.Run("Uncaught", func(t *testing.T) { testUncaught(t, b) })
			t.Run("UnhandledRejection", func(t *testing.T) { testUnhandledRejection(t, b) })
			t.Run("ErrorWhileLoading", func(t *testing.T) { testErrorWhileLoading(t, b) })
			t.Run("ThreePages", func(t *testing.T) { testThreePages(t, b) })
			t.Run("NeverSettles", func(t *testing.T) { testNeverSettles(t, b) })
			t.Run("Reload", func(t *testing.T) { testReload(t, b) })
			t.Run("Closed", func(t *testing.T) { testClosed(t, b) })
		})
	}
}

func testIsolation(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	got := eval[map[string]any](t, p, `({
		isolated: crossOriginIsolated,
		sab: typeof SharedArrayBuffer,
		waitAsync: typeof Atomics.waitAsync,
		ran: window.pageScriptRan === true,
		lexical: lexicalBinding,
	})`)
	want := map[string]any{"isolated": true, "sab": "function", "waitAsync": "function", "ran": true, "lexical": "visible"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	noProblems(t, p)
}

func testNotIsolated(t *testing.T, b *Browser) {
	p := open(t, b, plain.URL+"/index.html")
	if eval[bool](t, p, `crossOriginIsolated`) {
		t.Error("the plain server's page is cross-origin isolated")
	}
	if got := eval[string](t, p, `location.origin`); got != plain.URL {
		t.Errorf("origin %s, want %s", got, plain.URL)
	}
}

// The script goes first in an explicit <head>, before the page's scripts.
func testHead(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/head.html")
	if got := eval[string](t, p, `window.firstScript`); got != isolated.URL+Prefix+"driver.js" {
		t.Errorf("the first script is %q", got)
	}
}

func testPromise(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/")
	type v struct {
		A int
		B []int
		U any
	}
	got := eval[v](t, p, `new Promise((ok) => setTimeout(() => ok({ a: 1, b: [2, 3], u: undefined }), 10))`)
	if got.A != 1 || len(got.B) != 2 || got.B[1] != 3 || got.U != nil {
		t.Errorf("got %+v", got)
	}
	if raw, err := p.Eval(context.Background(), `undefined`); err != nil || string(raw) != "null" {
		t.Errorf("undefined: %s, %v", raw, err)
	}
	if got := eval[int](t, p, `1, 2, 3`); got != 3 {
		t.Errorf("a comma expression gave %d", got)
	}
}

func testThrows(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	for _, c := range []struct{ expr, want string }{
		{`(async () => { throw new TypeError("boom 42"); })()`, "TypeError: boom 42"},
		{`null.x`, "TypeError"},
		{`Promise.reject("a plain string")`, "a plain string"},
		{`(() => { const e = new RangeError("ranged"); throw e; })()`, "RangeError: ranged"},
		{`1n`, "BigInt"},
		{`syntax error here`, "SyntaxError"},
	} {
		_, err := p.Eval(context.Background(), c.expr)
		var ee *EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%s: error %v, want an EvalError", c.expr, err)
			continue
		}
		t.Logf("%s: %q", c.expr, firstLine(ee.Message))
		if !strings.Contains(ee.Message, c.want) && !(c.want == "BigInt" && strings.Contains(strings.ToLower(ee.Message), "bigint")) {
			t.Errorf("%s: error %q, want %q in it", c.expr, ee.Message, c.want)
		}
	}
	noProblems(t, p) // a rejected evaluation is not an unhandled rejection
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func testConsoleError(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	var cb []string
	got := make(chan string, 10)
	p.OnProblem(func(m string) { got <- m })
	eval[bool](t, p, `console.error("oops", 7, { k: [1] }, new Error("inside")), console.log("not a problem"), true`)
	// Reported before Eval returned.
	for len(got) > 0 {
		cb = append(cb, <-got)
	}
	if len(cb) != 1 || !strings.Contains(cb[0], `console.error: oops 7 {"k":[1]} Error: inside`) {
		t.Errorf("OnProblem got %q", cb)
	}
	waitProblem(t, p, "console.error", "oops 7")
}

func testUncaught(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	eval[bool](t, p, `setTimeout(() => { throw new Error("late failure"); }, 0), true`)
	waitProblem(t, p, "uncaught", "late failure")
}

func testUnhandledRejection(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	eval[bool](t, p, `Promise.reject(new Error("nobody catches this")), true`)
	waitProblem(t, p, "unhandledrejection", "nobody catches this")
}

func testErrorWhileLoading(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/early.html")
	waitProblem(t, p, "uncaught", "thrown while loading")
}

func testThreePages(t *testing.T, b *Browser) {
	for i, u := range []string{isolated.URL + "/head.html", plain.URL + "/head.html", isolated.URL + "/early.html"} {
		p := open(t, b, u)
		if got := eval[string](t, p, `location.href`); got != u {
			p.Problems()
			t.Errorf("page %d is at %s, want %s", i, got, u)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
		if _, err := p.Eval(context.Background(), "1"); err == nil {
			t.Error("Eval on a closed page succeeded")
		}
	}
}

func testNeverSettles(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	t0 := time.Now()
	_, err := p.Eval(ctx, `new Promise(() => {})`)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want a deadline", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if got := eval[int](t, p, `40 + 2`); got != 42 {
		t.Errorf("after the hung one: %d", got)
	}
}

// A page that navigates itself: its next document takes over.
func testReload(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	eval[bool](t, p, `window.marker = 1, setTimeout(() => location.reload(), 50), true`)
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := Eval[bool](context.Background(), p, `window.marker === undefined && window.pageScriptRan === true`)
		if err == nil && v {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reloaded page did not take over: %v %v", v, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func testClosed(t *testing.T, b *Browser) {
	p := open(t, b, isolated.URL+"/index.html")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := p.Eval(ctx, `new Promise(() => {})`); errc <- err }()
	time.Sleep(100 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, errClosed) {
		t.Errorf("pending Eval: %v, want errClosed", err)
	}
}

// Without Atomics.waitAsync, as in the second pass of the browser tests.
func TestNoWaitAsync(t *testing.T) {
	for _, name := range installed(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each engine a browser of its own: the three at once
			b := start(t, name, Options{NoWaitAsync: true})
			for _, u := range []string{isolated.URL + "/index.html", plain.URL + "/head.html"} {
				p := open(t, b, u)
				if got := eval[string](t, p, `typeof Atomics.waitAsync`); got != "undefined" {
					t.Errorf("%s: typeof Atomics.waitAsync = %s", u, got)
				}
			}
		})
	}
}

// A page that never loads driver.js fails Open by its deadline.
func TestOpenWithoutDriver(t *testing.T) {
	names := installed(t)
	b := start(t, names[0], Options{})
	raw := httptest.NewServer(serve.New(map[string]string{"/": "testdata"}, true)) // no Inject
	defer raw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t0 := time.Now()
	_, err := b.Open(ctx, raw.URL+"/index.html")
	if err == nil || !strings.Contains(err.Error(), "Inject") {
		t.Errorf("error %v, want one that mentions Inject", err)
	}
	if d := time.Since(t0); d > 4*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSelected(t *testing.T) {
	t.Setenv("BROWSERS", "firefox, webkit")
	if got, err := Selected(); err != nil || fmt.Sprint(got) != "[firefox webkit]" {
		t.Errorf("Selected() = %v, %v", got, err)
	}
	t.Setenv("BROWSERS", "lynx")
	if _, err := Selected(); err == nil {
		t.Error("an unknown engine was accepted")
	}
}
